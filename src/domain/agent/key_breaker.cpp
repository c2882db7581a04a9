#include "domain/agent/key_breaker.hpp"

namespace agentgate::fallback {

bool KeyBreaker::Usable(BreakerTime now) const {
  if (now < cool_until_) return false;
  if (!open_) return true;
  return now >= open_until_ && !probing_;
}

void KeyBreaker::Take(BreakerTime now) {
  if (open_ && now >= open_until_) probing_ = true;
}

void KeyBreaker::Answered() {
  failures_in_a_row_ = 0;
  open_ = false;
  probing_ = false;
}

void KeyBreaker::Failed(BreakerTime now, const BreakerLimits& limits) {
  ++failures_in_a_row_;
  // A failed probe opens the key again at once; a closed key opens at the limit.
  if (probing_ || failures_in_a_row_ >= limits.failures_to_open) {
    open_ = true;
    open_until_ = now + limits.cooldown;
  }
  probing_ = false;
}

void KeyBreaker::Throttled(BreakerTime now, std::chrono::milliseconds wait) {
  if (now + wait > cool_until_) cool_until_ = now + wait;
  probing_ = false;  // a 429 tells nothing of the key's health: the next call probes again
}

void KeyBreaker::Abandoned() {
  probing_ = false;
}

KeyState KeyBreaker::State() const {
  if (!open_) return KeyState::kClosed;
  if (probing_) return KeyState::kHalfOpen;
  return KeyState::kOpen;
}

}  // namespace agentgate::fallback
