#include "app/turn/invoke_body.hpp"

#include "domain/json_text.hpp"
#include "domain/runs/paused_turn.hpp"

#include <boost/json/parse.hpp>

namespace agentgate {

namespace json = boost::json;

// Written straight to text (each plain turn answers one, each streamed run stores one).
std::string InvokeBodyText(const InvokeResult& result) {
  json_text::ObjectWriter out(512);
  out.String("response", result.response);
  WriteInvokeFields(out, result);
  return out.Finish();
}

void WriteInvokeFields(json_text::ObjectWriter& out, const InvokeResult& result) {
  out.Bool("blocked", result.blocked);
  if (result.conversation_id) {
    out.String("conversation_id", *result.conversation_id);
  } else {
    out.Null("conversation_id");
  }
  if (const auto reason = StopReasonName(result.stop_reason)) {
    out.String("terminated_reason", *reason);
  } else {
    out.Null("terminated_reason");
  }
  out.Object("usage")
      .Int("input_tokens", result.usage.input_tokens)
      .Int("output_tokens", result.usage.output_tokens)
      .Number("cost_usd", result.cost_usd)
      .Int("model_calls", result.model_calls)
      .Array("models");
  for (const auto& m : result.models) {
    out.Object()
        .String("provider", m.provider)
        .String("model", m.model)
        .Int("calls", m.calls)
        .Int("failed_calls", m.failed_calls)
        .Int("input_tokens", m.tokens.input_tokens)
        .Int("cached_input_tokens", m.tokens.cached_input_tokens)
        .Int("cache_write_tokens", m.tokens.cache_write_tokens)
        .Int("output_tokens", m.tokens.output_tokens)
        .Number("cost_usd", m.cost_usd)
        .End();
  }
  out.End().End();
  if (result.output) {
    out.Value("output", *result.output);
  } else {
    out.Null("output");
  }
  if (!result.run_id.empty()) {
    // Paused for approval: the run to decide, and what waits (docs/daemon.md, Tool approvals).
    out.String("run_id", result.run_id);
    out.Value("pending_actions", json::value(PendingActionsOf(result)));
  }
  if (!result.tool_calls.empty()) {
    // The caller's own functions the model called (/v1 `tools`, docs/openai.md).
    out.Array("tool_calls");
    for (const auto& call : result.tool_calls) {
      out.Object()
          .String("call_id", call.id)
          .String("name", call.name)
          .String("arguments", call.arguments_json)
          .End();
    }
    out.End();
  }
}

json::array PendingActionsOf(const InvokeResult& result) {
  PausedTurn pending;
  pending.to_run = result.pending_actions;
  pending.needs_answer = result.questions;
  pending.asks = result.asks;
  for (const auto& call : result.pending_actions) pending.needs_approval.push_back(call.id);
  return PendingActionsJson(pending);
}

json::object InvokeBody(const InvokeResult& result) {
  return json::parse(InvokeBodyText(result)).as_object();
}

}  // namespace agentgate
