#include "domain/governance/governance.hpp"

#include <gtest/gtest.h>

#include <vector>

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

TEST(GovernanceSpend, TheOrganizationsLimitIsCheckedFirstAndReachedWhenMet) {
  std::vector<bool> reads;
  auto spent = [&](double org, double agent) {
    return [&reads, org, agent](bool whole_org) {
      reads.push_back(whole_org);
      return whole_org ? org : agent;
    };
  };
  EXPECT_FALSE(FirstLimitReached(std::nullopt, std::nullopt, spent(99, 99)));
  EXPECT_TRUE(reads.empty());  // no limit, nothing read

  auto reached = FirstLimitReached(10.0, 1.0, spent(10.0, 5.0));
  ASSERT_TRUE(reached);
  EXPECT_EQ(reached->scope, "organization");
  EXPECT_DOUBLE_EQ(reached->limit_usd, 10.0);
  EXPECT_DOUBLE_EQ(reached->spent_usd, 10.0);

  reads.clear();
  reached = FirstLimitReached(10.0, 1.0, spent(9.99, 1.0));
  ASSERT_TRUE(reached);
  EXPECT_EQ(reached->scope, "agent");
  EXPECT_DOUBLE_EQ(reached->spent_usd, 1.0);
  EXPECT_EQ(reads, (std::vector<bool>{true, false}));

  reads.clear();
  EXPECT_FALSE(FirstLimitReached(std::nullopt, 1.0, spent(50, 0.99)));
  EXPECT_EQ(reads, (std::vector<bool>{false}));  // only the agent's month is read
}

}  // namespace agentgate::governance
