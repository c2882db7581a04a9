#include "domain/governance/governance.hpp"

#include <gtest/gtest.h>

namespace agentgate::governance {
namespace {

constexpr std::int64_t kNov30Last = 1764547199999;  // 2025-11-30T23:59:59.999Z
constexpr std::int64_t kDec1 = 1764547200000;       // 2025-12-01T00:00:00Z

}  // namespace

TEST(GovernanceMonths, RollAtMidnightUtcOnTheFirst) {
  EXPECT_EQ(MonthOf(kNov30Last), "2025-11");
  EXPECT_EQ(MonthOf(kDec1), "2025-12");
  EXPECT_EQ(NextMonthStartMs(kNov30Last), kDec1);
  EXPECT_EQ(NextMonthStartMs(kDec1), 1767225600000);  // 2026-01-01: the year rolls too
  EXPECT_EQ(IsoUtc(NextMonthStartMs(kNov30Last)), "2025-12-01T00:00:00Z");
  EXPECT_EQ(MonthOf(1709164800000), "2024-02");  // 2024-02-29, a leap day
  EXPECT_EQ(IsoUtc(NextMonthStartMs(1709164800000)), "2024-03-01T00:00:00Z");
}

TEST(GovernanceWindow, RetryAfterRoundsUpToWholeSeconds) {
  EXPECT_EQ(RetryAfterSeconds(1000, 120000, 60000), 61);
  EXPECT_EQ(RetryAfterSeconds(1000, 120000, 120500), 1);
  EXPECT_EQ(RetryAfterSeconds(1000, 120000, 120999), 1);
  EXPECT_EQ(RetryAfterSeconds(1000, 120000, 1001), 120);
}

TEST(GovernanceIdempotency, KeysAreVisibleAscii) {
  EXPECT_TRUE(ValidateIdempotencyKey("order-42/retry"));
  EXPECT_FALSE(ValidateIdempotencyKey(""));
  EXPECT_FALSE(ValidateIdempotencyKey(std::string(256, 'k')));
  EXPECT_FALSE(ValidateIdempotencyKey("has space"));
}

TEST(GovernanceSpend, CostsAndWorstCases) {
  const Price price{0.15, 0.60};
  EXPECT_DOUBLE_EQ(CostUsd(price, 1000000, 1000000), 0.75);
  EXPECT_DOUBLE_EQ(WorstCaseUsd(price, 2000, 1024), (2000 * 0.15 + 1024 * 0.60) / 1e6);
  EXPECT_DOUBLE_EQ(CostUsd(Price{}, 5000, 5000), 0.0);
}

}  // namespace agentgate::governance
