#pragma once
// Whether a failed model call is tried again inside the turn's remaining time (SPEC §5).

#include "domain/agent/model_types.hpp"
#include "domain/agent/stop_reason.hpp"

#include <chrono>

namespace agentgate {

struct RetryDecision {
  bool retry = false;
  std::chrono::milliseconds wait{0};
  StopReason give_up = StopReason::kLlmError;  // when not retrying
};

struct RetryLimits {
  int max_transient_attempts = 3;  // calls in all, the first included
  int max_throttled_attempts = 5;
  std::chrono::milliseconds first_backoff{500};
  std::chrono::milliseconds default_retry_after{1000};
  std::chrono::milliseconds min_call_time{1000};  // a retry must leave at least this for the call
};

// `failures` counts this call's failures so far (1 after the first). `remaining` is the time
// left before the turn's soft deadline.
RetryDecision DecideRetry(const ModelFailure& failure, int failures,
                          std::chrono::milliseconds remaining, const RetryLimits& limits = {});

}  // namespace agentgate
