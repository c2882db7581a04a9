#include "app/seal_contexts.hpp"

namespace agentgate {

std::string CrmSealContext(const std::string& org_id, const std::string& env) {
  return "agentgate-crm-v1:" + org_id + "/" + env;
}

std::string ToolSecretSealContext(const std::string& org_id, const std::string& name) {
  return "tool-secret:" + org_id + "/" + name;
}

std::string WebhookSealContext(const std::string& org_id, const std::string& env,
                               const std::string& webhook_id) {
  return "webhook:" + org_id + ":" + env + ":" + webhook_id;
}

std::string SigningKeySealContext(const std::string& kid) {
  return "oauth_signing_key:" + kid;
}

std::string McpRequestStateContext() {
  return "mcp_request_state:v1";
}

}  // namespace agentgate
