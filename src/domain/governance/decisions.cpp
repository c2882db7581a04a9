#include "domain/governance/decisions.hpp"

#include "domain/governance/governance.hpp"

namespace agentgate::governance {

IdempotencyClaim JudgeIdempotencyClaim(const std::optional<StoredKey>& stored,
                                       std::string_view fingerprint, std::int64_t now_ms,
                                       std::int64_t stale_after_ms) {
  using Outcome = IdempotencyClaim::Outcome;
  if (!stored) return IdempotencyClaim{Outcome::kClaimed, 0, ""};
  const bool expired = stored->completed ? stored->expires_at_ms <= now_ms
                                         : stored->claimed_at_ms + stale_after_ms <= now_ms;
  if (expired) return IdempotencyClaim{Outcome::kClaimed, 0, ""};
  if (stored->fingerprint != fingerprint)
    return IdempotencyClaim{Outcome::kFingerprintMismatch, 0, ""};
  if (!stored->completed) return IdempotencyClaim{Outcome::kInUse, 0, ""};
  return IdempotencyClaim{Outcome::kCompleted, stored->status, stored->body};
}

CallWindowDecision JudgeCallWindow(std::int64_t calls_in_window, std::int64_t oldest_call_ms,
                                   std::int64_t window_ms, int limit, std::int64_t now_ms) {
  if (calls_in_window < limit) return CallWindowDecision{true, 0};
  return CallWindowDecision{false, RetryAfterSeconds(oldest_call_ms, window_ms, now_ms)};
}

}  // namespace agentgate::governance
