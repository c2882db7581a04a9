#pragma once
// The invoke's 200 body (SPEC §5): response, conversation_id, terminated_reason, blocked, usage.
// The HTTP invoke answers it, MCP carries it as structured content, and a run stores it as its
// result and sends it as its run.completed event.

#include "domain/agent/model_types.hpp"
#include "domain/agent/stop_reason.hpp"
#include "domain/agent/turn.hpp"
#include "domain/json_text.hpp"

#include <boost/json/fwd.hpp>

#include <map>
#include <optional>
#include <string>
#include <vector>

namespace agentgate {

// What a turn answers (the body's fields, and the turn that answered).
struct InvokeResult {
  std::string response;
  std::optional<std::string> conversation_id;
  std::optional<StopReason> stop_reason;
  bool blocked = false;
  TokenUsage usage;
  double cost_usd = 0;
  int model_calls = 0;
  std::vector<ModelUsage> models;  // usage.models: each model's share
  std::string turn_id;             // GET /admin/v1/orgs/{org}/turns/{id} shows its transcript
  // Paused for approval (terminated_reason approval_required): the run a person decides, and the
  // calls that wait for the decision.
  std::string run_id = {};
  std::vector<ToolCall> pending_actions = {};
  std::vector<std::string> questions = {};   // which of them are questions
  std::map<std::string, ToolAsk> asks = {};  // the questions an MCP server asks, by call id
  // The answer parsed, under an answer schema it kept to (docs/structured-output.md); else null.
  std::optional<boost::json::value> output = {};
  // The model called the caller's own functions (/v1 `tools`): the caller runs them.
  std::vector<ToolCall> tool_calls = {};
  bool operator==(const InvokeResult&) const = default;
};

// The body as JSON text.
std::string InvokeBodyText(const InvokeResult& result);
// Its fields but `response`, into an object being written (the chat completion's "agentgate").
void WriteInvokeFields(json_text::ObjectWriter& out, const InvokeResult& result);
// The same body as a JSON object (MCP's structured content): the text, read back.
boost::json::object InvokeBody(const InvokeResult& result);
// A paused answer's pending_actions, typed (docs/runs.md, "What a run needs").
boost::json::array PendingActionsOf(const InvokeResult& result);

}  // namespace agentgate
