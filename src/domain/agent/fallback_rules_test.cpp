// The rule table of docs/daemon.md "Fallbacks and key pools", a test per row.
#include "domain/agent/fallback_rules.hpp"

#include <gtest/gtest.h>

namespace agentgate::fallback {
namespace {

using namespace std::chrono_literals;

constexpr Options kNothingLeft{};
constexpr Options kKeyLeft{true, false, false};
constexpr Options kSameProviderModelLeft{false, true, false};
constexpr Options kOtherProviderLeft{false, true, true};
constexpr Options kEverythingLeft{true, true, true};

Move MoveOf(Failure failure, const Options& options, int failures = 1,
            std::optional<std::chrono::milliseconds> retry_after = std::nullopt,
            std::chrono::milliseconds remaining = 60s) {
  return Decide(failure, retry_after, failures, remaining, options).move;
}

TEST(FallbackRules, ATransientFailureMovesToTheNextKeyThenTheNextModel) {
  EXPECT_EQ(MoveOf(Failure::kTransient, kEverythingLeft), Move::kNextKey);
  EXPECT_EQ(MoveOf(Failure::kTransient, kSameProviderModelLeft), Move::kNextModel);
  EXPECT_EQ(MoveOf(Failure::kTransient, kOtherProviderLeft), Move::kNextModel);
}

TEST(FallbackRules, TheChainsLastEntryIsRetriedWithBackoffAsAModelWithoutFallbacksWas) {
  const auto first = Decide(Failure::kTransient, std::nullopt, 1, 60s, kNothingLeft);
  EXPECT_EQ(first.move, Move::kRetrySame);
  EXPECT_EQ(first.wait, 500ms);
  EXPECT_EQ(Decide(Failure::kTransient, std::nullopt, 2, 60s, kNothingLeft).wait, 1000ms);
  const auto third = Decide(Failure::kTransient, std::nullopt, 3, 60s, kNothingLeft);
  EXPECT_EQ(third.move, Move::kStop);
  EXPECT_EQ(third.stop, StopReason::kLlmError);
  // The same decisions as the retry policy for one model and one key.
  for (int failures = 1; failures <= 4; ++failures) {
    const ModelFailure transient{ModelFailure::Kind::kTransient, "", std::nullopt};
    EXPECT_EQ(MoveOf(Failure::kTransient, kNothingLeft, failures) == Move::kRetrySame,
              DecideRetry(transient, failures, 60s).retry);
  }
}

TEST(FallbackRules, ARefusedKeyMovesToTheNextKeyThenAnotherProvider) {
  EXPECT_EQ(MoveOf(Failure::kKeyRefused, kEverythingLeft), Move::kNextKey);
  EXPECT_EQ(MoveOf(Failure::kKeyRefused, kOtherProviderLeft), Move::kNextProvider);
  // A model on the same provider would be refused with the same keys.
  EXPECT_EQ(MoveOf(Failure::kKeyRefused, kSameProviderModelLeft), Move::kStop);
  EXPECT_EQ(Decide(Failure::kKeyRefused, std::nullopt, 1, 60s, kNothingLeft).stop,
            StopReason::kProviderError);
}

TEST(FallbackRules, ABillingOrQuotaRefusalMovesToAnotherProviderOnly) {
  EXPECT_EQ(MoveOf(Failure::kAccountRefused, kEverythingLeft), Move::kNextProvider);
  EXPECT_EQ(MoveOf(Failure::kAccountRefused, kKeyLeft), Move::kStop);
  EXPECT_EQ(MoveOf(Failure::kAccountRefused, kSameProviderModelLeft), Move::kStop);
  EXPECT_EQ(Decide(Failure::kAccountRefused, std::nullopt, 1, 60s, kKeyLeft).stop,
            StopReason::kProviderError);
}

TEST(FallbackRules, ABadRequestNeverFallsBack) {
  EXPECT_EQ(MoveOf(Failure::kBadRequest, kEverythingLeft), Move::kStop);
  EXPECT_EQ(Decide(Failure::kBadRequest, std::nullopt, 1, 60s, kEverythingLeft).stop,
            StopReason::kLlmError);
}

TEST(FallbackRules, ARateLimitedKeyIsLeftForAnotherKeyOrWaitedForWhenItIsTheOnlyOne) {
  EXPECT_EQ(MoveOf(Failure::kRateLimited, kEverythingLeft, 1, 3s), Move::kNextKey);
  const auto waited = Decide(Failure::kRateLimited, 3s, 1, 60s, kOtherProviderLeft);
  EXPECT_EQ(waited.move, Move::kRetrySame);
  EXPECT_EQ(waited.wait, 3s);
  // A wait that does not fit before the soft deadline is a transient failure: the next model.
  EXPECT_EQ(MoveOf(Failure::kRateLimited, kSameProviderModelLeft, 1, 30s, 20s), Move::kNextModel);
  const auto last = Decide(Failure::kRateLimited, 30s, 1, 20s, kNothingLeft);
  EXPECT_EQ(last.move, Move::kStop);
  EXPECT_EQ(last.stop, StopReason::kProviderError);
  EXPECT_EQ(MoveOf(Failure::kRateLimited, kNothingLeft, 5, 1s), Move::kStop);  // five tries
}

TEST(FallbackRules, NoMoveStartsACallThatCannotFitBeforeTheSoftDeadline) {
  for (auto failure : {Failure::kTransient, Failure::kKeyRefused, Failure::kAccountRefused,
                       Failure::kRateLimited}) {
    const auto late = Decide(failure, std::nullopt, 1, 900ms, kEverythingLeft);
    EXPECT_EQ(late.move, Move::kStop);
    EXPECT_EQ(late.stop, StopReasonOf(failure));
  }
}

TEST(FallbackRules, ReadsTheProvidersClassification) {
  using Kind = ModelFailure::Kind;
  EXPECT_EQ(FailureOf({Kind::kTransient, "", std::nullopt}), Failure::kTransient);
  EXPECT_EQ(FailureOf({Kind::kRejected, "", std::nullopt}), Failure::kBadRequest);
  EXPECT_EQ(FailureOf({Kind::kThrottled, "", 2000ms}), Failure::kRateLimited);
  EXPECT_EQ(FailureOf({Kind::kRefused, "", std::nullopt}), Failure::kKeyRefused);
  EXPECT_EQ(FailureOf({Kind::kRefused, "", std::nullopt, true}), Failure::kAccountRefused);
}

}  // namespace
}  // namespace agentgate::fallback
