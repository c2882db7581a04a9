#pragma once
// One provider key's health, as the fallback rules see it (docs/daemon.md "Fallbacks and key
// pools"): a key that answered 429 cools down for its Retry-After; a key whose calls failed
// `failures_to_open` times in a row is open (skipped) for the cool-down, after which one call
// probes it: success closes it, failure opens it again. Pure: the caller passes the time and keeps
// it under its own lock.

#include <chrono>

namespace agentgate::fallback {

using BreakerTime = std::chrono::steady_clock::time_point;

struct BreakerLimits {
  int failures_to_open = 5;
  std::chrono::milliseconds cooldown{30000};
};

enum class KeyState { kClosed, kOpen, kHalfOpen };

class KeyBreaker {
 public:
  // Whether a call may use the key now: closed and not cooling down after a 429, or open with its
  // cool-down over and no probe under way (that call becomes the probe).
  bool Usable(BreakerTime now) const;
  // A call takes the key: an open key past its cool-down is half-open, this call its probe.
  void Take(BreakerTime now);

  // How the call went. A bad request counts as an answer: the key works.
  void Answered();
  // A failure that speaks of the key or its provider (transient, refused).
  void Failed(BreakerTime now, const BreakerLimits& limits);
  // A 429: the key cools down for `wait`; the breaker does not count it.
  void Throttled(BreakerTime now, std::chrono::milliseconds wait);
  // The call ended without a verdict (its turn was stopped): a probe may be made again.
  void Abandoned();

  // For /metrics: closed, open, or half-open (a probe is under way).
  KeyState State() const;

 private:
  int failures_in_a_row_ = 0;
  bool open_ = false;
  bool probing_ = false;
  BreakerTime open_until_{};
  BreakerTime cool_until_{};
};

}  // namespace agentgate::fallback
