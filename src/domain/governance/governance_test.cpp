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
  EXPECT_EQ(MonthOf(1709164800000), "2024-02");     // 2024-02-29, a leap day
  EXPECT_EQ(MonthOf(-1), "1969-12");                // the last millisecond before 1970
  EXPECT_EQ(MonthOf(-62135596800000), "0001-01");   // 0001-01-01, zero-padded
  EXPECT_EQ(MonthOf(253402300800000), "10000-01");  // past year 9999: all its digits
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

TEST(GovernanceSpend, CachedAndCacheWrittenInputHaveTheirOwnPrices) {
  Price price{3.0, 15.0, 0.3, 3.75};
  TokenUsage usage;
  usage.input_tokens = 10000;  // 2,000 read, 5,000 written, 3,000 neither
  usage.cached_input_tokens = 2000;
  usage.cache_write_tokens = 5000;
  usage.output_tokens = 100;
  EXPECT_DOUBLE_EQ(CostUsd(price, usage),
                   (3000 * 3.0 + 2000 * 0.3 + 5000 * 3.75 + 100 * 15.0) / 1e6);
  // Without cache prices, cached tokens cost what any input does.
  EXPECT_DOUBLE_EQ(CostUsd(Price{3.0, 15.0}, usage), CostUsd(Price{3.0, 15.0}, 10000, 100));
  // Counts that do not add up are bounded by the input they are part of.
  usage.cached_input_tokens = 50000;
  EXPECT_DOUBLE_EQ(CostUsd(price, usage), (10000 * 0.3 + 100 * 15.0) / 1e6);
  // The worst case reserves every input token at the dearer of input and cache write.
  EXPECT_DOUBLE_EQ(WorstCaseUsd(price, 2000, 1024), (2000 * 3.75 + 1024 * 15.0) / 1e6);
  EXPECT_DOUBLE_EQ(WorstCaseUsd(Price{3.0, 15.0, 0.3, 1.0}, 2000, 0), 2000 * 3.0 / 1e6);
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

TEST(GovernanceSpend, AGrantIsWhatIsWantedWhileAQuarterOfTheHeadroomCoversIt) {
  int reads = 0;
  auto spent = [&](double org, double agent) {
    return [&reads, org, agent](bool whole_org) {
      ++reads;
      return whole_org ? org : agent;
    };
  };
  // No limit: the whole lease.
  auto grant = GrantSpend(std::nullopt, std::nullopt, spent(0, 0), 0.1, 3.2);
  EXPECT_FALSE(grant.refused);
  EXPECT_DOUBLE_EQ(grant.amount_usd, 3.2);
  EXPECT_EQ(reads, 0);
  // Plenty of headroom: the whole lease; each scope's spend is read once.
  grant = GrantSpend(100.0, 50.0, spent(10, 10), 0.1, 3.2);
  EXPECT_DOUBLE_EQ(grant.amount_usd, 3.2);
  EXPECT_EQ(reads, 2);
  // The tighter limit sets the slice: the agent has 4 left, so a quarter of it.
  grant = GrantSpend(100.0, 14.0, spent(10, 10), 0.1, 3.2);
  EXPECT_DOUBLE_EQ(grant.amount_usd, 1.0);
  // Nearly spent: never less than one call's worst case, which may cross the limit once.
  grant = GrantSpend(10.0, std::nullopt, spent(9.95, 0), 0.1, 3.2);
  EXPECT_FALSE(grant.refused);
  EXPECT_DOUBLE_EQ(grant.amount_usd, 0.1);
  // Reached: refused, naming the limit.
  grant = GrantSpend(10.0, std::nullopt, spent(10.05, 0), 0.1, 3.2);
  ASSERT_TRUE(grant.refused);
  EXPECT_EQ(grant.refused->scope, "organization");
  // A lease never shrinks below what was wanted when wanted is less than needed.
  grant = GrantSpend(std::nullopt, std::nullopt, spent(0, 0), 0.5, 0);
  EXPECT_DOUBLE_EQ(grant.amount_usd, 0.5);
}

}  // namespace agentgate::governance
