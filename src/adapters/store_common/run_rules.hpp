#pragma once
// How a run ends when its server cannot end it itself, once for both engines: canceled while
// queued, or interrupted with its server (docs/runs.md).

#include "ports/store_records.hpp"

namespace agentgate {

// A queued run canceled at `now_ms`; `canceled` is its terminal event (its data is the error).
// An ended run keeps nothing of what it held to go on: its request, and where a pause stopped
// (the system prompt with the call's host context, the tool results). Each engine's end clears
// both columns in the same write.
inline void DropWhatItHeld(RunRecord& run) {
  run.request_json.clear();
  run.paused_json.clear();
}

inline void CancelQueued(RunRecord& run, std::int64_t now_ms, const RunEvent& canceled) {
  run.status = RunStatus::kCanceled;
  run.ended_at_ms = now_ms;
  run.error_json = canceled.data;
  DropWhatItHeld(run);
}

// A paused run nobody decided in time: failed; `expired` is its terminal event.
inline void ExpirePaused(RunRecord& run, std::int64_t now_ms, const RunEvent& expired) {
  run.status = RunStatus::kFailed;
  run.ended_at_ms = now_ms;
  run.error_json = expired.data;
  DropWhatItHeld(run);
}

// A running run whose server's lease lapsed: failed, `interrupted`, never re-run. Its terminal
// event (the engine numbers it after the run's last).
inline RunEvent Interrupt(RunRecord& run, std::int64_t now_ms) {
  RunEvent terminal = run_events::Failed(
      Error(ErrorCode::kInterrupted,
            "the server running this run stopped; it was not run again (its tools may have had "
            "effects): start a new run"));
  run.status = RunStatus::kFailed;
  run.ended_at_ms = now_ms;
  run.error_json = terminal.data;
  DropWhatItHeld(run);
  return terminal;
}

// What a run's end adds for its webhooks, in the end's transaction (both engines bind $1..$6 in
// order: run id, event type, now, org, env, the LIKE pattern of the type): a pending delivery per
// webhook of the run's environment that wants the type, its id stable across attempts.
inline constexpr const char* kEnqueueRunWebhooks =
    "INSERT INTO webhook_deliveries(id, webhook_id, run_id, type, status, attempts, "
    "next_attempt_at_ms, held_until_ms, created_at_ms, log) SELECT 'msg_' || substr($1, 5) || '_' "
    "|| substr(id, 4), id, $1, $2, 'pending', 0, $3, 0, $3, '[]' FROM webhooks WHERE org_id = $4 "
    "AND env = $5 AND events LIKE $6";

// What a run's pause for approval adds for its webhooks, in its turn's commit, when the run
// notifies (both engines bind $1..$6 in order: run id, the pause's expiry as text (a run may pause
// more than once: each pause's delivery has an id of its own), now, org, env, the LIKE pattern).
inline constexpr const char* kEnqueuePauseWebhooks =
    "INSERT INTO webhook_deliveries(id, webhook_id, run_id, type, status, attempts, "
    "next_attempt_at_ms, held_until_ms, created_at_ms, log) SELECT 'msg_' || substr($1, 5) || "
    "'_p' || $2 || '_' || substr(w.id, 4), w.id, $1, 'run.requires_action', 'pending', 0, $3, 0, "
    "$3, '[]' FROM webhooks w JOIN runs r ON r.id = $1 AND r.notify WHERE w.org_id = $4 AND "
    "w.env = $5 AND w.events LIKE $6";

// A run written once, as it ended (RunWrite::kCreateEnded), for both engines: they bind $1..$16 in
// order: id, org, env, agent, token, status, conversation, creates_conversation, created, started,
// ended, server, notify, result, error, and its folded events (run_event_log).
inline constexpr const char* kInsertEndedRun =
    "INSERT INTO runs(id, org_id, env, agent_id, token_id, status, conversation_id, "
    "creates_conversation, created_at_ms, started_at_ms, ended_at_ms, server_id, notify, result, "
    "error, events) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16)";

// The webhook event a run's end is: run.completed, run.failed or run.canceled.
inline std::string RunEndEvent(RunStatus ended) {
  return "run." + std::string(RunStatusName(ended));
}

}  // namespace agentgate
