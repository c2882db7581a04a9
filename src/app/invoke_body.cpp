#include "app/invoke_body.hpp"

#include "domain/json_text.hpp"
#include "domain/runs/paused_turn.hpp"

#include <boost/json/monotonic_resource.hpp>

namespace agentgate {

namespace json = boost::json;

json::object InvokeBody(const InvokeResult& result, json::storage_ptr sp) {
  json::object out(7, sp);
  out.emplace("response", result.response);
  out.emplace("blocked", result.blocked);
  if (result.conversation_id) {
    out.emplace("conversation_id", *result.conversation_id);
  } else {
    out.emplace("conversation_id", nullptr);
  }
  if (const auto reason = StopReasonName(result.stop_reason)) {
    out.emplace("terminated_reason", *reason);
  } else {
    out.emplace("terminated_reason", nullptr);
  }
  json::array models(sp);
  models.reserve(result.models.size());
  for (const auto& m : result.models) {
    json::object model(9, sp);
    model.emplace("provider", m.provider);
    model.emplace("model", m.model);
    model.emplace("calls", m.calls);
    model.emplace("failed_calls", m.failed_calls);
    model.emplace("input_tokens", m.tokens.input_tokens);
    model.emplace("cached_input_tokens", m.tokens.cached_input_tokens);
    model.emplace("cache_write_tokens", m.tokens.cache_write_tokens);
    model.emplace("output_tokens", m.tokens.output_tokens);
    model.emplace("cost_usd", m.cost_usd);
    models.push_back(std::move(model));
  }
  json::object usage(5, sp);
  usage.emplace("input_tokens", result.usage.input_tokens);
  usage.emplace("output_tokens", result.usage.output_tokens);
  usage.emplace("cost_usd", result.cost_usd);
  usage.emplace("model_calls", result.model_calls);
  usage.emplace("models", std::move(models));
  out.emplace("usage", std::move(usage));
  if (!result.run_id.empty()) {
    // Paused for approval: the run to decide, and what waits (docs/daemon.md, Tool approvals).
    out["run_id"] = result.run_id;
    PausedTurn pending;
    pending.to_run = result.pending_actions;
    for (const auto& call : result.pending_actions) pending.needs_approval.push_back(call.id);
    out["pending_actions"] = PendingActionsJson(pending);
  }
  return out;
}

std::string InvokeBodyText(const InvokeResult& result) {
  unsigned char buffer[2048];
  json::monotonic_resource resource(buffer, sizeof buffer);
  return json_text::Write(InvokeBody(result, json::storage_ptr(&resource)));
}

}  // namespace agentgate
