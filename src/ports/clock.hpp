#pragma once
// Time is injected so month boundaries, windows and expiries are testable.

#include <cstdint>

namespace agentgate {

inline constexpr std::int64_t kMsPerDay = 24 * 60 * 60 * 1000;  // a UTC day

class Clock {
 public:
  virtual ~Clock() = default;
  virtual std::int64_t NowMs() const = 0;  // milliseconds since the Unix epoch, UTC
};

}  // namespace agentgate
