#include "adapters/store_common/run_write.hpp"

#include "adapters/store_common/run_event_log.hpp"
#include "domain/runs/run_state.hpp"

namespace agentgate {

namespace {

// The webhook event a run's end is: run.completed, run.failed or run.canceled.
std::string EndEvent(RunStatus ended) {
  return "run." + std::string(RunStatusName(ended));
}

// Its environment's webhooks when it notifies; its own push configs when it is of a conversation
// (an A2A task always is).
void EnqueueEnd(RunRowWriter& rows, const RunRecord& run) {
  if (run.notify || !run.conversation_id.empty())
    rows.EnqueueEndWebhooks(run, EndEvent(run.status));
}

// `run`'s end as it says, with its last `events` (its terminal one among them).
void End(RunRowWriter& rows, const RunRecord& run, const std::vector<RunEvent>& events) {
  // One column rather than a row an event: a streamed reply's end writes dozens.
  rows.UpdateEnd(run, events.empty() ? std::string() : FoldRunEvents(run, events));
  EnqueueEnd(rows, run);
}

// An end its own server did not write: `run` becomes `status` at `now_ms`, keeps nothing of what
// it held to go on, and gets `terminal` after its last event.
void EndFromOutside(RunRowWriter& rows, RunRecord& run, RunStatus status, std::int64_t now_ms,
                    RunEvent terminal) {
  run.status = status;
  run.ended_at_ms = now_ms;
  run.error_json = terminal.data;
  run.request_json.clear();
  run.paused_json.clear();
  terminal.seq = rows.LastEventSeq(run.id) + 1;
  End(rows, run, {terminal});
}

Result<bool> Create(RunRowWriter& rows, const RunWrite& write) {
  const bool queued = write.run.status == RunStatus::kQueued;
  if (queued && rows.WaitingRunsOf(write.run.org_id) >= write.max_queued) return false;
  if (write.answer && !rows.CompleteIdempotencyKey(*write.answer))
    return MakeError(ErrorCode::kConflict, "the idempotency claim was taken over");
  // A queued run keeps its request until a server claims it; a running one has its server.
  RunRecord run = write.run;
  if (queued) {
    run.started_at_ms = 0;
    run.server_id.clear();
  } else {
    run.status = RunStatus::kRunning;
    run.request_json.clear();
  }
  rows.InsertRun(run);
  rows.InsertEvents(run.id, write.events);
  return true;
}

Result<bool> Finish(RunRowWriter& rows, const RunWrite& write) {
  const auto from = rows.StatusForUpdate(write.run.id);
  if (!from || !run_state::Finish(*from, write.run.status)) return false;
  End(rows, write.run, write.events);
  return true;
}

}  // namespace

Result<bool> WriteRun(RunRowWriter& rows, const RunWrite& write) {
  switch (write.kind) {
    case RunWrite::Kind::kCreate:
      return Create(rows, write);
    case RunWrite::Kind::kAppend:
      rows.InsertEvents(write.run.id, write.events);
      return true;
    case RunWrite::Kind::kFinish:
      return Finish(rows, write);
    case RunWrite::Kind::kCreateEnded:
      InsertEndedRun(rows, write);
      return true;
  }
  return true;
}

void InsertEndedRun(RunRowWriter& rows, const RunWrite& ended) {
  rows.InsertEndedRun(ended.run, FoldRunEvents(ended.run, ended.events));
  EnqueueEnd(rows, ended.run);
}

void CancelLockedRun(RunRowWriter& rows, RunRecord& run, std::int64_t now_ms,
                     const RunEvent& canceled) {
  switch (run_state::DecideCancel(run.status, run.cancel_requested)) {
    case run_state::CancelDecision::kEndNow:
      EndFromOutside(rows, run, RunStatus::kCanceled, now_ms, canceled);
      return;
    case run_state::CancelDecision::kAskItsServer:
      rows.AskCancel(run.id);
      run.cancel_requested = true;
      return;
    case run_state::CancelDecision::kAskedAlready:
    case run_state::CancelDecision::kEndedAlready:
      return;
  }
}

std::int64_t ExpireLockedRuns(RunRowWriter& rows, std::vector<RunRecord>& runs, std::int64_t now_ms,
                              const RunEvent& expired) {
  std::int64_t ended = 0;
  for (auto& run : runs) {
    const auto to = run_state::Expire(run.status, run.expires_at_ms, now_ms);
    if (!to) continue;
    EndFromOutside(rows, run, *to, now_ms, expired);
    ++ended;
  }
  return ended;
}

void InterruptLockedRuns(RunRowWriter& rows, std::vector<RunRecord>& runs, std::int64_t now_ms) {
  for (auto& run : runs) {
    const auto to = run_state::Interrupt(run.status);
    if (!to) continue;
    EndFromOutside(rows, run, *to, now_ms,
                   run_events::Failed(run_state::EndingError(RunEnding::kInterrupted, run.status)));
  }
}

std::vector<RunEvent> UnpackFoldedEvents(const std::string& run_id, const FoldedEventsRow& row,
                                         std::int64_t after_seq, int limit) {
  return UnpackRunEvents(row.events, after_seq, limit, RunOutcome(row.result, row.error),
                         RunStartedData(run_id, row.conversation_id, row.agent_id));
}

}  // namespace agentgate
