#include "domain/agent/approval_rules.hpp"

#include <algorithm>

namespace agentgate::approval {

bool HttpCallNeedsApproval(Approval approval, std::string_view method) {
  if (approval != Approval::kWrites) return approval == Approval::kAlways;
  return method != "GET" && method != "HEAD";
}

bool CrmCallNeedsApproval(Approval approval, const std::optional<std::string_view>& method) {
  if (approval != Approval::kWrites) return approval == Approval::kAlways;
  return method.has_value() && *method != "GET";
}

bool McpCallNeedsApproval(Approval approval, const McpHints& hints) {
  if (approval != Approval::kWrites) return approval == Approval::kAlways;
  return !hints.read_only || hints.destructive;
}

bool CanPause(const AgentConfig& config) {
  const auto gated = [](const auto& tool) { return tool.approval != Approval::kNever; };
  return config.ask_user ||  // a question pauses as an approval does
         std::any_of(config.http_tools.begin(), config.http_tools.end(), gated) ||
         std::any_of(config.mcp_servers.begin(), config.mcp_servers.end(), gated) ||
         !config.a2a_agents.empty() ||  // a remote agent's task may wait for input
         (config.crm_metadata_tool && gated(*config.crm_metadata_tool));
}

}  // namespace agentgate::approval
