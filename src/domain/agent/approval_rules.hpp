#pragma once
// Which of a model's tool calls wait for a person's approval before they run (docs/daemon.md
// "Tool approvals"): a tool whose `approval` is `always`, or `writes` for a call that may change
// something. Pure: the caller says what the call is.

#include "domain/admin/agent_config.hpp"

#include <optional>
#include <string_view>

namespace agentgate::approval {

// An MCP tool's annotations as its server listed them (absent hints are false).
struct McpHints {
  bool read_only = false;    // readOnlyHint
  bool destructive = false;  // destructiveHint
};

// An http tool's calls use its configured method: writes are every method but GET and HEAD.
bool HttpCallNeedsApproval(Approval approval, std::string_view method);

// A crm_metadata call: `method` as the call asks it (none: the call is malformed and will fail
// without reaching the CRM, so nothing is approved). Writes are every method but GET.
bool CrmCallNeedsApproval(Approval approval, const std::optional<std::string_view>& method);

// An MCP tool's call: a write unless its server marks it read-only and not destructive.
bool McpCallNeedsApproval(Approval approval, const McpHints& hints);

// Whether a turn of this version may pause for a person (a tool whose approval is not `never`, or
// "ask_user"): such a call counts against its organization's waiting runs ([runs]
// max_queued_per_org).
bool CanPause(const AgentConfig& config);

}  // namespace agentgate::approval
