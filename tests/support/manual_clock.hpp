#pragma once
// A clock the test moves by hand: its wall time and its steady time advance together.

#include "ports/clock.hpp"

#include <atomic>
#include <chrono>
#include <cstdint>

namespace agentgate::testing {

class ManualClock final : public Clock {
 public:
  explicit ManualClock(std::int64_t start_ms = 1'000'000) : now_ms(start_ms) {}
  std::int64_t NowMs() const override { return now_ms.load(); }
  SteadyTime SteadyNow() const override {
    return SteadyTime(std::chrono::milliseconds(now_ms.load()));
  }
  void Advance(std::chrono::milliseconds by) { now_ms += by.count(); }

  std::atomic<std::int64_t> now_ms;
};

}  // namespace agentgate::testing
