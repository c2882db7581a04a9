#include "app/runs/run_body.hpp"

#include "domain/governance/governance.hpp"
#include "domain/runs/paused_turn.hpp"

#include <boost/json/parse.hpp>

namespace agentgate {

namespace json = boost::json;

namespace {

json::value OrNull(const std::string& text) {
  return text.empty() ? json::value(nullptr) : json::value(text);
}

json::value TimeOrNull(std::int64_t epoch_ms) {
  return epoch_ms == 0 ? json::value(nullptr) : json::value(governance::IsoUtc(epoch_ms));
}

// A stored JSON document (the run's result or error), or null while it has none.
json::value StoredJson(const std::string& text) {
  if (text.empty()) return nullptr;
  boost::system::error_code ec;
  json::value parsed = json::parse(text, ec);
  return ec ? json::value(nullptr) : parsed;
}

}  // namespace

json::object QueuedRunBody(const RunRecord& run) {
  return json::object{{"run_id", run.id},
                      {"status", RunStatusName(RunStatus::kQueued)},
                      {"conversation_id", OrNull(run.conversation_id)}};
}

json::object RunBody(const RunRecord& run) {
  json::object out{{"run_id", run.id},
                   {"agent_id", run.agent_id},
                   {"status", RunStatusName(run.status)},
                   {"conversation_id", OrNull(run.conversation_id)},
                   {"result", StoredJson(run.result_json)},
                   {"error", StoredJson(run.error_json)},
                   {"created_at", TimeOrNull(run.created_at_ms)},
                   {"started_at", TimeOrNull(run.started_at_ms)},
                   {"ended_at", TimeOrNull(run.ended_at_ms)}};
  if (run.status == RunStatus::kRequiresAction) {
    // What waits for a decision, and until when (docs/daemon.md, Tool approvals).
    if (auto paused = ParsePausedTurn(run.paused_json))
      out["pending_actions"] = PendingActionsJson(*paused);
    out["expires_at"] = TimeOrNull(run.expires_at_ms);
  }
  return out;
}

}  // namespace agentgate
