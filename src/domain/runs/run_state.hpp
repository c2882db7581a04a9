#pragma once
// A run's life as a state machine (docs/runs.md, "A run's states"). Each transition is a pure
// decision on the state a run is in: whether it is taken, and the state it leads to. A store writes
// each as one conditional write (adapters/store_common/run_write), so of two racing transitions
// (cancel and finish, approve and expire) the first written wins and the second finds the run in a
// state it does not leave.
//
//   queued ----------- start -----------> running
//   running ---------- pause -----------> requires_action
//   requires_action -- resume ----------> running            (before its expiry)
//   requires_action -- requeue ---------> queued             (decided to go on in the background)
//   running ---------- finish ----------> completed | failed | canceled   (by its own server)
//   queued, requires_action -- cancel --> canceled           (at once)
//   running ---------- cancel ----------> running, its server asked to cancel it
//   requires_action -- expire ----------> failed             (approval_expired)
//   running ---------- interrupt -------> failed             (its server's lease lapsed)

#include "domain/error.hpp"
#include "domain/runs/run_events.hpp"

#include <cstdint>
#include <optional>

namespace agentgate {

// Why a run ended when its own server did not finish it: canceled, expired, superseded (a newer
// call on its conversation interrupted it while it was queued), or interrupted (its server died).
enum class RunEnding { kCanceled, kExpired, kSuperseded, kInterrupted };

// A transition's decision: the state the run goes to, or none when the run is not in a state the
// transition leaves (the write is refused, and nothing changes).
using RunStep = std::optional<RunStatus>;

namespace run_state {

RunStep Start(RunStatus from);
// A run whose cancel was asked for does not pause: it ends canceled.
RunStep Pause(RunStatus from, bool cancel_requested);
RunStep Resume(RunStatus from, std::int64_t expires_at_ms, std::int64_t now_ms);
// Decided before its expiry to go on in the background: it waits in the queue for a server with
// room, as a new background run does (max_concurrent counts it once it starts).
RunStep Requeue(RunStatus from, std::int64_t expires_at_ms, std::int64_t now_ms);
// `as`: completed, failed or canceled, as the turn ended.
RunStep Finish(RunStatus from, RunStatus as);
RunStep Expire(RunStatus from, std::int64_t expires_at_ms, std::int64_t now_ms);
RunStep Interrupt(RunStatus from);

// What a cancel does to a run in state `from`.
enum class CancelDecision {
  kEndNow,        // queued or paused: it ends canceled at once
  kAskItsServer,  // running: its server cancels it, as a capped turn
  kAskedAlready,  // running, its cancel asked for before
  kEndedAlready,  // completed, failed or canceled: left as it is
};
CancelDecision DecideCancel(RunStatus from, bool cancel_requested);

// The terminal event's error of an ending its own server did not write. `from`: the state the run
// left (a cancel says whether it was waiting to start or for a decision).
Error EndingError(RunEnding ending, RunStatus from);

}  // namespace run_state
}  // namespace agentgate
