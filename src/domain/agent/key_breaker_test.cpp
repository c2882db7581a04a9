#include "domain/agent/key_breaker.hpp"

#include <gtest/gtest.h>

namespace agentgate::fallback {
namespace {

using std::chrono::milliseconds;

const BreakerTime t0 = BreakerTime() + std::chrono::hours(1);
const BreakerLimits limits{3, milliseconds(1000)};

TEST(KeyBreaker, OpensAfterTheLimitOfFailuresInARowAndIsSkippedForTheCooldown) {
  KeyBreaker key;
  key.Failed(t0, limits);
  key.Failed(t0, limits);
  EXPECT_TRUE(key.Usable(t0));
  EXPECT_EQ(key.State(), KeyState::kClosed);
  key.Failed(t0, limits);
  EXPECT_EQ(key.State(), KeyState::kOpen);
  EXPECT_FALSE(key.Usable(t0 + milliseconds(999)));
  EXPECT_TRUE(key.Usable(t0 + milliseconds(1000)));
}

TEST(KeyBreaker, AnAnswerBetweenFailuresStartsTheCountAgain) {
  KeyBreaker key;
  key.Failed(t0, limits);
  key.Failed(t0, limits);
  key.Answered();
  key.Failed(t0, limits);
  key.Failed(t0, limits);
  EXPECT_EQ(key.State(), KeyState::kClosed);
}

TEST(KeyBreaker, AfterTheCooldownOneCallProbesAndItsAnswerCloses) {
  KeyBreaker key;
  for (int i = 0; i < 3; ++i) key.Failed(t0, limits);
  const auto later = t0 + milliseconds(1500);
  key.Take(later);
  EXPECT_EQ(key.State(), KeyState::kHalfOpen);
  EXPECT_FALSE(key.Usable(later));  // one probe at a time
  key.Answered();
  EXPECT_EQ(key.State(), KeyState::kClosed);
  EXPECT_TRUE(key.Usable(later));
}

TEST(KeyBreaker, AFailedProbeOpensTheKeyAgainAtOnce) {
  KeyBreaker key;
  for (int i = 0; i < 3; ++i) key.Failed(t0, limits);
  const auto later = t0 + milliseconds(1500);
  key.Take(later);
  key.Failed(later, limits);
  EXPECT_EQ(key.State(), KeyState::kOpen);
  EXPECT_FALSE(key.Usable(later + milliseconds(999)));
  EXPECT_TRUE(key.Usable(later + milliseconds(1000)));
}

TEST(KeyBreaker, AnAbandonedProbeLetsTheNextCallProbe) {
  KeyBreaker key;
  for (int i = 0; i < 3; ++i) key.Failed(t0, limits);
  const auto later = t0 + milliseconds(1500);
  key.Take(later);
  key.Abandoned();
  EXPECT_TRUE(key.Usable(later));
  EXPECT_EQ(key.State(), KeyState::kOpen);
}

TEST(KeyBreaker, A429CoolsTheKeyForItsWaitWithoutCountingAFailure) {
  KeyBreaker key;
  key.Throttled(t0, milliseconds(2000));
  EXPECT_FALSE(key.Usable(t0 + milliseconds(1999)));
  EXPECT_TRUE(key.Usable(t0 + milliseconds(2000)));
  EXPECT_EQ(key.State(), KeyState::kClosed);
  key.Throttled(t0, milliseconds(500));  // a shorter wait does not end a longer one
  EXPECT_FALSE(key.Usable(t0 + milliseconds(1000)));
}

TEST(KeyBreaker, TakingAClosedKeyIsNoProbe) {
  KeyBreaker key;
  key.Take(t0);
  EXPECT_TRUE(key.Usable(t0));
  EXPECT_EQ(key.State(), KeyState::kClosed);
}

}  // namespace
}  // namespace agentgate::fallback
