#pragma once
// The claim loop of this server's share of the background runs (docs/runs.md). The store is the
// queue: the loop claims the oldest queued runs whenever the registry has room for background runs
// (at most `max_concurrent` running here), at once when woken (a run was queued through this
// server, or one ended here) and every `poll` for runs queued through others, and hands each run
// it claimed to `launch`. A cancel asked of another server reaches the runs running here through
// it too: it cancels those the store marked for this server, and on a shared store ends the turns
// here that a call on another server superseded ("if_busy": "interrupt").

#include "ports/clock.hpp"
#include "runtime/runs/run_registry.hpp"
#include "runtime/server_lease.hpp"
#include "runtime/store_runner.hpp"
#include "runtime/turn_interrupts.hpp"

#include <boost/asio/any_io_executor.hpp>
#include <boost/asio/awaitable.hpp>

#include <atomic>
#include <chrono>
#include <functional>
#include <limits>
#include <memory>

namespace agentgate {

struct RunClaimerOptions {
  int max_concurrent = 64;
  std::chrono::milliseconds poll{200};
  // This server's turns in a conversation's line, when other servers may supersede them.
  TurnInterrupts* interrupts = nullptr;
  // An organization's share of the background runs running across servers (ClaimRuns).
  int max_running_per_org = std::numeric_limits<int>::max();
};

class RunClaimer {
 public:
  // Starts a claimed run (now running, on this server): enters it in the registry and runs it.
  using Launch = std::function<void(RunRecord)>;

  RunClaimer(StoreRunner& store, const ServerLease& server, RunRegistry& registry,
             const Clock& clock, RunClaimerOptions options, Launch launch);
  ~RunClaimer();

  // Claims on `executor` until Stop().
  void Start(const boost::asio::any_io_executor& executor);
  // Any thread: look for work now, not at the next poll.
  void Wake();
  // Any thread: claims no more runs (those running finish). The loop ends at its next step: its
  // store call, if one is out, still comes back to this claimer, so keep it until Stopped().
  void Stop();
  // Any thread: the loop has ended (or never started); the claimer may be destroyed.
  bool Stopped() const { return !looping_; }

 private:
  boost::asio::awaitable<void> Loop();
  // Claims while runs are queued and there is room; cancels what was asked of other servers.
  boost::asio::awaitable<void> ClaimWhileQueued();

  StoreRunner& store_;
  const ServerLease& server_;
  RunRegistry& registry_;
  const Clock& clock_;
  const RunClaimerOptions options_;
  const Launch launch_;
  struct Timer;
  std::unique_ptr<Timer> timer_;    // the wait between looks, from Start()
  std::atomic<bool> woken_{false};  // a wake-up came while the loop was not waiting
  std::atomic<bool> stopping_{false};
  std::atomic<bool> looping_{false};
};

}  // namespace agentgate
