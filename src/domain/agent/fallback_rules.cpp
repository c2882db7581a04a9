#include "domain/agent/fallback_rules.hpp"

namespace agentgate::fallback {

using std::chrono::milliseconds;

Failure FailureOf(const ModelFailure& failure) {
  switch (failure.kind) {
    case ModelFailure::Kind::kTransient:
      return Failure::kTransient;
    case ModelFailure::Kind::kRejected:
      return Failure::kBadRequest;
    case ModelFailure::Kind::kThrottled:
      return Failure::kRateLimited;
    case ModelFailure::Kind::kRefused:
      break;
  }
  return failure.account ? Failure::kAccountRefused : Failure::kKeyRefused;
}

StopReason StopReasonOf(Failure failure) {
  switch (failure) {
    case Failure::kTransient:
    case Failure::kBadRequest:
      return StopReason::kLlmError;
    case Failure::kRateLimited:
    case Failure::kKeyRefused:
    case Failure::kAccountRefused:
      break;
  }
  return StopReason::kProviderError;
}

Decision Decide(Failure failure, std::optional<milliseconds> retry_after, int failures_here,
                milliseconds remaining, const Options& options, const RetryLimits& limits) {
  const StopReason stop = StopReasonOf(failure);
  const Decision stopped{Move::kStop, milliseconds(0), stop};
  // Another key or model is called at once, if a call still fits before the soft deadline.
  const bool time_for_a_call = remaining >= limits.min_call_time;
  const auto move = [&](Move to) { return time_for_a_call ? Decision{to, {}, stop} : stopped; };
  switch (failure) {
    case Failure::kBadRequest:
      return stopped;  // the same request fails on every key and model
    case Failure::kKeyRefused:
      if (options.another_key) return move(Move::kNextKey);
      if (options.another_provider) return move(Move::kNextProvider);
      return stopped;
    case Failure::kAccountRefused:
      if (options.another_provider) return move(Move::kNextProvider);
      return stopped;
    case Failure::kRateLimited: {
      if (options.another_key) return move(Move::kNextKey);
      // The only key: wait for it if the wait fits, as before fallbacks; else the next model.
      const milliseconds wait = retry_after.value_or(limits.default_retry_after);
      if (failures_here < limits.max_throttled_attempts && wait + limits.min_call_time <= remaining)
        return Decision{Move::kRetrySame, wait, stop};
      if (options.another_model) return move(Move::kNextModel);
      return stopped;
    }
    case Failure::kTransient: {
      if (options.another_key) return move(Move::kNextKey);
      if (options.another_model) return move(Move::kNextModel);
      // The chain's last entry: retried with backoff, as a model without fallbacks always was.
      if (failures_here >= limits.max_transient_attempts) return stopped;
      const milliseconds wait = limits.first_backoff * (1 << (failures_here - 1));
      if (wait + limits.min_call_time > remaining) return stopped;
      return Decision{Move::kRetrySame, wait, stop};
    }
  }
  return stopped;
}

}  // namespace agentgate::fallback
