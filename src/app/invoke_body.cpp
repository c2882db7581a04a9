#include "app/invoke_body.hpp"

#include "domain/runs/paused_turn.hpp"

namespace agentgate {

namespace json = boost::json;

json::object InvokeBody(const InvokeResult& result) {
  json::object out{{"response", result.response}, {"blocked", result.blocked}};
  out["conversation_id"] =
      result.conversation_id ? json::value(*result.conversation_id) : json::value(nullptr);
  const auto reason = StopReasonName(result.stop_reason);
  out["terminated_reason"] = reason ? json::value(std::string(*reason)) : json::value(nullptr);
  json::array models;
  models.reserve(result.models.size());
  for (const auto& m : result.models) {
    models.push_back(json::object{{"provider", m.provider},
                                  {"model", m.model},
                                  {"calls", m.calls},
                                  {"failed_calls", m.failed_calls},
                                  {"input_tokens", m.tokens.input_tokens},
                                  {"cached_input_tokens", m.tokens.cached_input_tokens},
                                  {"cache_write_tokens", m.tokens.cache_write_tokens},
                                  {"output_tokens", m.tokens.output_tokens},
                                  {"cost_usd", m.cost_usd}});
  }
  out["usage"] = json::object{{"input_tokens", result.usage.input_tokens},
                              {"output_tokens", result.usage.output_tokens},
                              {"cost_usd", result.cost_usd},
                              {"model_calls", result.model_calls},
                              {"models", std::move(models)}};
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

}  // namespace agentgate
