#include "domain/agent/approval_rules.hpp"

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

}  // namespace agentgate::approval
