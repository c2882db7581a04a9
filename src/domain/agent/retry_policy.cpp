#include "domain/agent/retry_policy.hpp"

namespace agentgate {

RetryDecision DecideRetry(const ModelFailure& failure, int failures,
                          std::chrono::milliseconds remaining, const RetryLimits& limits) {
  using Kind = ModelFailure::Kind;
  switch (failure.kind) {
    case Kind::kRefused:
      return RetryDecision{false, {}, StopReason::kProviderError};
    case Kind::kRejected:
      return RetryDecision{false, {}, StopReason::kLlmError};
    case Kind::kTransient: {
      if (failures >= limits.max_transient_attempts)
        return RetryDecision{false, {}, StopReason::kLlmError};
      const auto wait = limits.first_backoff * (1 << (failures - 1));
      if (wait + limits.min_call_time > remaining)
        return RetryDecision{false, {}, StopReason::kLlmError};
      return RetryDecision{true, wait, StopReason::kLlmError};
    }
    case Kind::kThrottled: {
      const auto wait = failure.retry_after.value_or(limits.default_retry_after);
      if (failures >= limits.max_throttled_attempts || wait + limits.min_call_time > remaining) {
        return RetryDecision{false, {}, StopReason::kProviderError};
      }
      return RetryDecision{true, wait, StopReason::kProviderError};
    }
  }
  return RetryDecision{false, {}, StopReason::kLlmError};
}

}  // namespace agentgate
