#pragma once
// Staying awake for a hand-off that comes back within microseconds. A turn hands its commit to
// the committer thread and its I/O thread would sleep in epoll until the result is posted back;
// the committer sleeps on a condition variable between batches. Waking a sleeping thread costs
// tens of microseconds on a virtual machine (an inter-processor interrupt, and the host running an
// idle vCPU again), twice per turn. So both sides stay awake for a bounded time instead:
// - an I/O thread with a hand-off awaited keeps its loop polling (epoll with no wait) for at most
//   `budget` after the hand-off, yielding the CPU between passes, when its hand-offs have recently
//   come back within `budget`;
// - the committer, when work has recently followed within `budget` of its going idle, spins for
//   the next commit for at most `budget`, yielding between checks (`SpinPolicy`).
// Spinning should only use a CPU nothing else wants: while two or more turns run, a spinner that
// has had less than half of the CPU since it began (others ran in its yields) sleeps at once and
// skips its next chances to spin, 1, 2, 4, ... up to 1,024 of them (`SpinBackoff`). Without that,
// the spinning took a fifth of the turns per second at 8 connections on 2 cores. A lone turn's
// spin never backs off (`RunningTurn`).
// A budget of zero turns both off (server.handoff_spin_microseconds).

#include <boost/asio/any_io_executor.hpp>

#include <chrono>
#include <string_view>

namespace agentgate {

class Metrics;

// Whether a thread about to sleep should first spin for what it waits for: when its recent waits
// (a writer's gap before new work came, an I/O thread's hand-off until its result came back; an
// average weighted 1/8 to the newest) are shorter than the budget. It starts asleep: a quiet
// server never spins, and a store whose commits take longer than the budget is never polled for.
class SpinPolicy {
 public:
  explicit SpinPolicy(std::chrono::microseconds budget) : budget_(budget) {}
  bool ShouldSpin() const { return budget_.count() > 0 && average_wait_ < budget_; }
  std::chrono::microseconds budget() const { return budget_; }
  void ObserveWait(std::chrono::nanoseconds wait);

 private:
  std::chrono::microseconds budget_;
  std::chrono::nanoseconds average_wait_ = std::chrono::seconds(1);
};

// Skips chances to spin after a spin that found its CPU wanted, twice as many each time in a row.
class SpinBackoff {
 public:
  bool Allows();     // false while chances are being skipped (and counts this one)
  void Contended();  // the spin was switched out for another thread
  void Uncontended();

 private:
  int skip_ = 0;
  int backoff_ = 0;
};

// Counts, for its lifetime, a turn running in this process. A spin is judged contended only
// while two or more turns run: a lone turn's spinning takes a CPU from no other work of this
// server (what it yields to is the turn's own client and upstream), and backing off there cost
// every other hand-off a thread wake-up, 30-50 us on a virtual CPU (docs/performance.md).
class RunningTurn {
 public:
  RunningTurn();
  ~RunningTurn();
  RunningTurn(const RunningTurn&) = delete;
  RunningTurn& operator=(const RunningTurn&) = delete;
};

// How many RunningTurn are alive in this process now (the metric agentgate_turns_in_flight).
int RunningTurns();

// Whether the calling thread, spinning since the watch was made while two or more turns ran, has
// had less than half of the CPU in that time (at least 20 us of it): a CPU other threads want.
class ContentionWatch {
 public:
  ContentionWatch();
  bool Contended() const;

 private:
  std::chrono::steady_clock::time_point began_;
  std::chrono::nanoseconds cpu_at_start_;
};

// Ends a spin on either side: the backoff learns whether the CPU was wanted, and
// agentgate_handoff_spins_total{thread, outcome} counts it, so an operator can see whether
// spinning pays on their machines: `caught` what it waited for, `timed_out` at the budget, or
// stopped as `contended`.
void EndSpin(SpinBackoff& backoff, Metrics* metrics, std::string_view thread, bool contended,
             bool caught);

// Marks, for its lifetime, a hand-off that the calling coroutine awaits: while one is marked, the
// I/O thread running the coroutine's loop polls instead of sleeping, for at most the loop's budget
// after the newest mark. Create it on the loop's thread (in a coroutine of that loop).
class AwaitedHandoff {
 public:
  explicit AwaitedHandoff(const boost::asio::any_io_executor& loop);
  ~AwaitedHandoff();
  AwaitedHandoff(const AwaitedHandoff&) = delete;
  AwaitedHandoff& operator=(const AwaitedHandoff&) = delete;

 private:
  struct LoopThread* thread_;
  std::chrono::steady_clock::time_point handed_off_;
};

enum class Polling {
  kWhenItPays,  // hand-offs recently back within the budget, and the CPU not wanted by others
  kAlways,      // every hand-off, for the whole budget (tests that count the polls)
};

// Declares the calling thread an I/O thread whose loop may poll for awaited hand-offs, for at most
// `budget` each. Call on the thread before it runs its loop. Without it a thread never polls.
void PollForHandoffs(std::chrono::microseconds budget, Polling polling = Polling::kWhenItPays,
                     Metrics* metrics = nullptr);

}  // namespace agentgate
