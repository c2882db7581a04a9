#pragma once
// The Daemon's request body (the source's table plus group_key), validated with 400s naming
// the field.

#include "domain/agent/model_types.hpp"
#include "domain/error.hpp"

#include <boost/json/object.hpp>
#include <boost/json/value.hpp>

#include <optional>
#include <string>
#include <vector>

namespace agentgate {

// What a stateful call does when its conversation already has a turn running (docs/daemon.md,
// "When a conversation is busy"): wait for it (a plain or streamed call's default), be refused at
// once with 409 conversation_busy (a background run's default), end it superseded and run next
// (interrupt), or, for a background run only, take its place in line behind it (enqueue).
enum class IfBusy { kWait, kReject, kInterrupt, kEnqueue };

struct InvokeRequest {
  std::string message;
  bool stateful = false;
  std::optional<std::string> conversation_id;
  std::optional<boost::json::value> host_context;  // an object
  std::optional<std::string> additional_instructions;
  std::optional<std::string> instance_id;
  std::optional<std::string> group_key;
  // A stateless call's earlier messages, sent to the model as its history and stored nowhere
  // (the OpenAI-compatible API's chat completions, docs/openai.md); the invoke body has none.
  std::vector<ChatMessage> history = {};
  // The turn whose reply must still be the conversation's last when this turn starts, else 409
  // previous_response_not_latest (the Responses API's previous_response_id, docs/openai.md); the
  // invoke body has none.
  std::optional<std::string> after_turn_id = {};
  // "response_format": the schema this call's final answer keeps to, in place of its version's
  // output_schema (docs/structured-output.md).
  std::optional<boost::json::value> answer_schema = {};
  // "if_busy", when the call gave it; a background run's is done as it is queued (its place in
  // line taken then), so it is not kept with a queued run's request.
  std::optional<IfBusy> if_busy = {};
  // The caller's own functions (/v1 `tools`, docs/openai.md "The caller's tools"): offered to the
  // model beside the agent's; a call to one ends the turn with it, for the caller to run. Never
  // run by the server nor stored as the agent's.
  std::vector<ToolSpec> caller_tools = {};
  bool caller_tools_flat = false;  // sent as the Responses API's (a 400 names tools[i].name)
  // The first model call must call a tool: any ("") or the caller's one named (`tool_choice`).
  std::optional<std::string> required_tool = {};
  // A continuation: what followed `message` in the caller's resent history, the model's calls of
  // the caller's functions and their results; the model goes on from them.
  std::vector<ChatMessage> continuation = {};
  // Where each was sent: a result, the field naming its call ("input[1].call_id").
  std::vector<std::string> continuation_fields = {};
  std::string continuation_input = "input";  // the request's field a missing result is named by
};

// "response_format": {"type": "json_schema", "schema": {...}}, or OpenAI's {"type":
// "json_schema", "json_schema": {"name", "schema", "strict"}}: the answer schema, checked.
Result<boost::json::value> ParseResponseFormat(const boost::json::value& format,
                                               std::string_view field = "response_format");
// OpenAI's named schema at `field` ({"name", "description", "schema", "strict"}: chat's
// json_schema, the Responses API's text.format less its type): the answer schema, checked; strict
// only for a schema that meets OpenAI's strict rules.
Result<boost::json::value> ParseNamedAnswerSchema(const boost::json::object& named,
                                                  std::string_view field);

// The key under which a queued run's request keeps its after_turn_id (not a field of the body).
inline constexpr std::string_view kAfterTurnKey = "_agentgate_after_turn";
// The key under which a queued run's request keeps the history its call brought (a Responses API
// call's earlier input items): [{"role", "content"}...].
inline constexpr std::string_view kHistoryKey = "_agentgate_history";
// The history kept under kHistoryKey, read back; messages it cannot read are left out.
std::vector<ChatMessage> HistoryOfJson(const boost::json::value& kept);
// The keys under which a kept request holds a /v1 caller's functions and a continuation.
inline constexpr std::string_view kCallerToolsKey = "_agentgate_caller_tools";
inline constexpr std::string_view kContinuationKey = "_agentgate_continuation";

// A request kept by InvokeRequestJson (a queued run's, a paused run's), read back whole: the
// invoke body's fields and what only a call kept (its place after a turn, its history, a caller's
// functions, a continuation).
Result<InvokeRequest> KeptInvokeRequest(boost::json::value kept);

// How the HTTP invoke's caller wants the turn delivered (docs/runs.md): as a background run, or
// streamed as it happens (and whether a streaming caller that hangs up cancels it).
struct RunOptions {
  bool background = false;
  bool stream = false;
  bool cancel_on_disconnect = false;  // "on_disconnect": "cancel" ("continue" is the default)
  // "webhooks": whether the run's end goes to its environment's webhooks (docs/webhooks.md);
  // a background run's does unless it says false, a streamed one's only if it says true.
  std::optional<bool> webhooks;
  bool Notifies() const { return webhooks.value_or(background); }
  // Once the Accept header was read: "webhooks": true asks for a run (400 on a plain call).
  Result<void> Check() const {
    if (webhooks.value_or(false) && !background && !stream) {
      return InvalidField("webhooks",
                          "applies to a background or streamed run (a plain call's answer is its "
                          "response)");
    }
    return {};
  }
};

// With `options`, the body may also carry "background", "stream", "on_disconnect" and "webhooks"
// (the HTTP invoke); without, they are unknown fields like any other (the flow action, MCP).
Result<InvokeRequest> ParseInvokeRequest(const boost::json::value& body,
                                         RunOptions* options = nullptr);

// The request as a JSON object, the fields ParseInvokeRequest reads (a queued run keeps it).
boost::json::object InvokeRequestJson(const InvokeRequest& request);

}  // namespace agentgate
