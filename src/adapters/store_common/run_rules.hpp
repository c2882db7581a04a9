#pragma once
// How a run ends when its server cannot end it itself, once for both engines: canceled while
// queued, or interrupted with its server (docs/runs.md).

#include "ports/store_records.hpp"

namespace agentgate {

// A queued run canceled at `now_ms`; `canceled` is its terminal event (its data is the error).
inline void CancelQueued(RunRecord& run, std::int64_t now_ms, const RunEvent& canceled) {
  run.status = RunStatus::kCanceled;
  run.ended_at_ms = now_ms;
  run.error_json = canceled.data;
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
  return terminal;
}

}  // namespace agentgate
