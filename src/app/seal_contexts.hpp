#pragma once
// What each sealed secret is bound to (crypto::Seal's context), written once: a secret sealed for
// one owner opens for no other. Every capability that seals or opens one reads its context here, so
// none depends on another for a string.

#include <string>

namespace agentgate {

// A CRM credential, for its (org, env).
std::string CrmSealContext(const std::string& org_id, const std::string& env);
// A tool secret, for its (org, name).
std::string ToolSecretSealContext(const std::string& org_id, const std::string& name);
// A webhook's signing secret, for its own webhook.
std::string WebhookSealContext(const std::string& org_id, const std::string& env,
                               const std::string& webhook_id);
// The authorization server's signing key, for its kid.
std::string SigningKeySealContext(const std::string& kid);
// An MCP input_required result's requestState (it names its run and caller inside).
std::string McpRequestStateContext();

}  // namespace agentgate
