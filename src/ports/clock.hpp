#pragma once
// Time is injected so month boundaries, windows, expiries and deadlines are testable.

#include <chrono>
#include <cstdint>

namespace agentgate {

inline constexpr std::int64_t kMsPerDay = 24 * 60 * 60 * 1000;  // a UTC day

using SteadyTime = std::chrono::steady_clock::time_point;

class Clock {
 public:
  virtual ~Clock() = default;
  virtual std::int64_t NowMs() const = 0;  // milliseconds since the Unix epoch, UTC
  // Monotonic time, for deadlines and durations: never jumps with the wall clock.
  virtual SteadyTime SteadyNow() const = 0;
};

// The wall clock and the steady clock of the machine.
class SystemClock final : public Clock {
 public:
  std::int64_t NowMs() const override {
    return std::chrono::duration_cast<std::chrono::milliseconds>(
               std::chrono::system_clock::now().time_since_epoch())
        .count();
  }
  SteadyTime SteadyNow() const override { return std::chrono::steady_clock::now(); }
};

}  // namespace agentgate
