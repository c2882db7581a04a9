#include "runtime/handoff_wait.hpp"

#include "observability/metrics.hpp"

#include <boost/asio/post.hpp>

#include <time.h>

#include <algorithm>
#include <atomic>
#include <optional>
#include <thread>
#include <utility>

namespace agentgate {

namespace {

using Clock = std::chrono::steady_clock;

}  // namespace

struct LoopThread {
  std::chrono::microseconds budget{0};
  int awaited = 0;
  Clock::time_point poll_until;
  bool polling = false;
  int passes = 0;
  Polling mode = Polling::kWhenItPays;
  SpinPolicy waits{std::chrono::microseconds(0)};  // how long this thread's hand-offs took
  std::optional<ContentionWatch> watch;
  SpinBackoff backoff;
  Metrics* metrics = nullptr;
};

namespace {

thread_local LoopThread t_loop_thread;

// One pass of polling: a handler that posts itself again while a hand-off is awaited. A loop with
// a handler queued runs epoll without waiting, so the posted result is found at the next pass.
void PollPass(boost::asio::any_io_executor loop) {
  LoopThread& self = t_loop_thread;
  const bool contended =
      self.mode == Polling::kWhenItPays && ++self.passes % 4 == 0 && self.watch->Contended();
  const bool caught = self.awaited == 0;
  if (contended || caught || Clock::now() >= self.poll_until) {
    self.polling = false;
    EndSpin(self.backoff, self.metrics, "io", contended, caught);
    return;
  }
  std::this_thread::yield();  // a runnable thread on this CPU (the committer) goes first
  boost::asio::post(loop, [loop]() mutable { PollPass(std::move(loop)); });
}

}  // namespace

bool SpinBackoff::Allows() {
  if (skip_ == 0) return true;
  --skip_;
  return false;
}

void SpinBackoff::Contended() {
  backoff_ = std::clamp(backoff_ * 2, 1, 1024);
  skip_ = backoff_;
}

void SpinBackoff::Uncontended() {
  backoff_ = 0;
}

namespace {

std::chrono::nanoseconds ThreadCpuTime() {
  timespec t{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
  return std::chrono::seconds(t.tv_sec) + std::chrono::nanoseconds(t.tv_nsec);
}

std::atomic<int> running_turns{0};

}  // namespace

RunningTurn::RunningTurn() {
  running_turns.fetch_add(1, std::memory_order_relaxed);
}

RunningTurn::~RunningTurn() {
  running_turns.fetch_sub(1, std::memory_order_relaxed);
}

int RunningTurns() {
  return running_turns.load(std::memory_order_relaxed);
}

ContentionWatch::ContentionWatch() : began_(Clock::now()), cpu_at_start_(ThreadCpuTime()) {}

bool ContentionWatch::Contended() const {
  if (RunningTurns() < 2) return false;
  const auto wall = Clock::now() - began_;
  if (wall < std::chrono::microseconds(20)) return false;
  return (ThreadCpuTime() - cpu_at_start_) * 2 < wall;
}

void SpinPolicy::ObserveWait(std::chrono::nanoseconds wait) {
  wait = std::clamp<std::chrono::nanoseconds>(wait, std::chrono::nanoseconds(0),
                                              std::chrono::seconds(1));
  average_wait_ += (wait - average_wait_) / 8;
}

AwaitedHandoff::AwaitedHandoff(const boost::asio::any_io_executor& loop)
    : thread_(&t_loop_thread), handed_off_(Clock::now()) {
  LoopThread& self = *thread_;
  ++self.awaited;
  if (self.budget.count() == 0) return;
  self.poll_until = handed_off_ + self.budget;
  if (self.polling) return;
  if (self.mode == Polling::kWhenItPays && (!self.waits.ShouldSpin() || !self.backoff.Allows())) {
    return;
  }
  self.polling = true;
  self.watch.emplace();
  boost::asio::post(loop, [loop]() mutable { PollPass(std::move(loop)); });
}

AwaitedHandoff::~AwaitedHandoff() {
  // Only on the thread that marked it: a frame destroyed elsewhere (a loop torn down at exit)
  // must not touch another thread's count, which may be gone.
  if (thread_ != &t_loop_thread) return;
  --thread_->awaited;
  thread_->waits.ObserveWait(Clock::now() - handed_off_);
}

void EndSpin(SpinBackoff& backoff, Metrics* metrics, std::string_view thread, bool contended,
             bool caught) {
  if (contended) {
    backoff.Contended();
  } else {
    backoff.Uncontended();
  }
  if (metrics == nullptr) return;
  const std::string_view outcome = contended ? "contended" : (caught ? "caught" : "timed_out");
  metrics->Add("agentgate_handoff_spins_total", {{"thread", thread}, {"outcome", outcome}});
}

void PollForHandoffs(std::chrono::microseconds budget, Polling polling, Metrics* metrics) {
  t_loop_thread.metrics = metrics;
  t_loop_thread.budget = budget;
  t_loop_thread.mode = polling;
  t_loop_thread.waits = SpinPolicy(budget);
  t_loop_thread.backoff = SpinBackoff{};
}

}  // namespace agentgate
