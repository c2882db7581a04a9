#include "domain/runs/run_state.hpp"

namespace agentgate::run_state {

RunStep Start(RunStatus from) {
  if (from != RunStatus::kQueued) return std::nullopt;
  return RunStatus::kRunning;
}

RunStep Pause(RunStatus from, bool cancel_requested) {
  if (from != RunStatus::kRunning || cancel_requested) return std::nullopt;
  return RunStatus::kRequiresAction;
}

RunStep Resume(RunStatus from, std::int64_t expires_at_ms, std::int64_t now_ms) {
  if (from != RunStatus::kRequiresAction || expires_at_ms <= now_ms) return std::nullopt;
  return RunStatus::kRunning;
}

RunStep Requeue(RunStatus from, std::int64_t expires_at_ms, std::int64_t now_ms) {
  if (!Resume(from, expires_at_ms, now_ms)) return std::nullopt;
  return RunStatus::kQueued;
}

RunStep Finish(RunStatus from, RunStatus as) {
  if (from != RunStatus::kRunning || !HasEnded(as)) return std::nullopt;
  return as;
}

RunStep Expire(RunStatus from, std::int64_t expires_at_ms, std::int64_t now_ms) {
  if (from != RunStatus::kRequiresAction || expires_at_ms > now_ms) return std::nullopt;
  return RunStatus::kFailed;
}

RunStep Interrupt(RunStatus from) {
  if (from != RunStatus::kRunning) return std::nullopt;
  return RunStatus::kFailed;
}

CancelDecision DecideCancel(RunStatus from, bool cancel_requested) {
  switch (from) {
    case RunStatus::kQueued:
    case RunStatus::kRequiresAction:
      return CancelDecision::kEndNow;
    case RunStatus::kRunning:
      return cancel_requested ? CancelDecision::kAskedAlready : CancelDecision::kAskItsServer;
    case RunStatus::kCompleted:
    case RunStatus::kFailed:
    case RunStatus::kCanceled:
      break;
  }
  return CancelDecision::kEndedAlready;
}

Error EndingError(RunEnding ending, RunStatus from) {
  switch (ending) {
    case RunEnding::kCanceled:
      return Error(ErrorCode::kCanceled, from == RunStatus::kRequiresAction
                                             ? "the run was canceled while it waited for approval"
                                             : "the run was canceled before it started");
    case RunEnding::kExpired:
      return Error(ErrorCode::kApprovalExpired,
                   "nobody decided the run's paused calls within approval_timeout_seconds");
    case RunEnding::kSuperseded:
      return SupersededError();
    case RunEnding::kInterrupted:
      break;
  }
  return Error(ErrorCode::kInterrupted,
               "the server running this run stopped; it was not run again (its tools may have had "
               "effects): start a new run");
}

}  // namespace agentgate::run_state
