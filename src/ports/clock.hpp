#pragma once
// Time is injected so month boundaries, windows and expiries are testable.

#include <cstdint>

namespace agentgate {

class Clock {
 public:
  virtual ~Clock() = default;
  virtual std::int64_t NowMs() const = 0;  // milliseconds since the Unix epoch, UTC
};

}  // namespace agentgate
