#include "domain/governance/decisions.hpp"

#include <gtest/gtest.h>

namespace agentgate::governance {
namespace {

using Outcome = IdempotencyClaim::Outcome;

StoredKey Running(std::string fingerprint, std::int64_t claimed_at_ms) {
  return StoredKey{std::move(fingerprint), false, 0, "", claimed_at_ms, 0};
}

StoredKey Completed(std::string fingerprint, std::int64_t expires_at_ms) {
  return StoredKey{std::move(fingerprint), true, 200, "{\"ok\":1}", 0, expires_at_ms};
}

}  // namespace

TEST(IdempotencyVerdict, ANewKeyIsClaimed) {
  EXPECT_EQ(JudgeIdempotencyClaim(std::nullopt, "fp", 1000, 120000).outcome, Outcome::kClaimed);
}

TEST(IdempotencyVerdict, ARunningClaimIsInUseUntilStaleThenTakenOver) {
  EXPECT_EQ(JudgeIdempotencyClaim(Running("fp", 1000), "fp", 120999, 120000).outcome,
            Outcome::kInUse);
  EXPECT_EQ(JudgeIdempotencyClaim(Running("fp", 1000), "fp", 121000, 120000).outcome,
            Outcome::kClaimed);
  // Stale, another request may take it over too: the dead server's request is gone.
  EXPECT_EQ(JudgeIdempotencyClaim(Running("fp", 1000), "other", 121000, 120000).outcome,
            Outcome::kClaimed);
}

TEST(IdempotencyVerdict, ADifferentRequestIsRefusedWhileTheKeyLives) {
  EXPECT_EQ(JudgeIdempotencyClaim(Running("fp", 1000), "other", 2000, 120000).outcome,
            Outcome::kFingerprintMismatch);
  EXPECT_EQ(JudgeIdempotencyClaim(Completed("fp", 5000), "other", 4999, 120000).outcome,
            Outcome::kFingerprintMismatch);
}

TEST(IdempotencyVerdict, ACompletedAnswerIsReplayedUntilItExpires) {
  const auto replay = JudgeIdempotencyClaim(Completed("fp", 5000), "fp", 4999, 120000);
  EXPECT_EQ(replay.outcome, Outcome::kCompleted);
  EXPECT_EQ(replay.status, 200);
  EXPECT_EQ(replay.body, "{\"ok\":1}");
  EXPECT_EQ(JudgeIdempotencyClaim(Completed("fp", 5000), "fp", 5000, 120000).outcome,
            Outcome::kClaimed);
}

TEST(CallWindowVerdict, RefusesAtTheLimitUntilTheOldestCallLeaves) {
  EXPECT_TRUE(JudgeCallWindow(199, 1000, 120000, 200, 60000).allowed);
  const auto refused = JudgeCallWindow(200, 1000, 120000, 200, 60000);
  EXPECT_FALSE(refused.allowed);
  EXPECT_EQ(refused.retry_after_seconds, 61);
  EXPECT_EQ(WindowCutoff(121000, 120000), 1000);  // the call at 1000 has left at 121000
}

}  // namespace agentgate::governance
