#pragma once
// Where a model call goes after it failed, when the agent's model lists fallbacks and its
// providers hold several keys (docs/daemon.md "Fallbacks and key pools"): the same key again, the
// provider's next key, the chain's next model, the next model on another provider, or nowhere.
// With one model and one key it decides as the retry policy always did (SPEC §5). Pure.

#include "domain/agent/model_types.hpp"
#include "domain/agent/retry_policy.hpp"
#include "domain/agent/stop_reason.hpp"

#include <chrono>
#include <optional>

namespace agentgate::fallback {

// A failed call as the rule table reads it (the provider adapters classify the answer).
enum class Failure {
  kTransient,       // connection failure, timeout, cut stream, 408, 5xx, Anthropic 529, bad reply
  kRateLimited,     // 429 (its Retry-After, if any, in `retry_after`)
  kKeyRefused,      // 401, 403: this key is not accepted
  kAccountRefused,  // billing or quota: the provider's account will not serve
  kBadRequest,      // 400, 404, 413, 422: the request itself would fail anywhere
};

// A provider's answer as the table reads it: kRejected is a bad request, kThrottled a rate limit,
// kRefused the key's or the account's refusal.
Failure FailureOf(const ModelFailure& failure);

// What is left to try in this call's chain, as the key pool and the chain see it now.
struct Options {
  bool another_key = false;       // the provider has a key not yet tried and not cooling down
  bool another_model = false;     // a later model in the chain
  bool another_provider = false;  // a later model in the chain on another provider
};

enum class Move {
  kRetrySame,     // the same model and key, after `wait`
  kNextKey,       // the provider's next key (a 429'd key cools down for its Retry-After)
  kNextModel,     // the chain's next model
  kNextProvider,  // the chain's next model on another provider (the same keys would be refused)
  kStop,          // the turn stops with `stop`
};

struct Decision {
  Move move = Move::kStop;
  std::chrono::milliseconds wait{0};  // kRetrySame only
  StopReason stop = StopReason::kLlmError;
};

// `failures_here` counts this model and key's failures in this call so far (1 after the first);
// `remaining` is the time left before the turn's soft deadline. A move to another key or model
// needs `limits.min_call_time` left, as a retry does.
Decision Decide(Failure failure, std::optional<std::chrono::milliseconds> retry_after,
                int failures_here, std::chrono::milliseconds remaining, const Options& options,
                const RetryLimits& limits = {});

// The stop reason a failure gives when nothing is left to try: llm_error for the model's side
// (transient, bad request), provider_error for the account's (rate limit, key, billing).
StopReason StopReasonOf(Failure failure);

}  // namespace agentgate::fallback
