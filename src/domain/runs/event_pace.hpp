#pragma once
// A stream's pace of text events (docs/runs.md, "Safety on a stream"): one per `gap` on average,
// kept as credit that refills one event a gap, up to two. An event may go while half an event's
// credit is left, so a model writing exactly one token a gap is not held a whole gap by its jitter
// (a token 19.9 ms after the last event at a 20 ms gap still goes); over any span the events stay
// within one a gap and a burst of two.

#include <algorithm>
#include <chrono>

namespace agentgate {

class EventPace {
 public:
  using Time = std::chrono::steady_clock::time_point;

  explicit EventPace(std::chrono::steady_clock::duration gap) : gap_(gap) {}

  // Whether an event may go at `now`: the credit refilled until then is at least half an event.
  bool Allows(Time now) {
    if (started_) {
      const double refill = std::chrono::duration<double>(now - last_).count() /
                            std::chrono::duration<double>(gap_).count();
      credit_ = std::min(kMostCredit, credit_ + std::max(0.0, refill));
    }
    started_ = true;
    last_ = now;
    return credit_ >= 0.5;
  }
  // An event went.
  void Spend() { credit_ -= 1.0; }

 private:
  static constexpr double kMostCredit = 2.0;
  std::chrono::steady_clock::duration gap_;
  double credit_ = kMostCredit;
  Time last_{};
  bool started_ = false;
};

}  // namespace agentgate
