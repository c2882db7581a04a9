#include "adapters/store_common/spend_rules.hpp"

#include <gtest/gtest.h>

namespace agentgate {
namespace {

class FakeSpendRows final : public SpendRows {
 public:
  std::optional<double> org_limit;
  double org_spent = 0;
  double agent_spent = 0;
  std::vector<std::string> writes;

  std::optional<double> OrgLimit(const std::string&) override { return org_limit; }
  double Spent(const std::string&, const std::string&, const std::string* agent_id) override {
    return agent_id == nullptr ? org_spent : agent_spent;
  }
  void InsertReservation(const std::string& id, const SpendReservationRequest&,
                         double usd) override {
    writes.push_back("reservation " + std::to_string(id.size()) + " " + std::to_string(usd));
  }
  void AddReserved(const SpendAccount& account, double usd) override {
    writes.push_back("reserved " + std::get<1>(account) + " " + std::to_string(usd));
  }
};

}  // namespace

TEST(SpendRules, AGrantIsWrittenAsAReservationAndAddedToItsAccount) {
  FakeSpendRows rows;
  const auto decision = ReserveSpendIn(
      rows, SpendReservationRequest{"acme", "bot", "2026-11", 0.1, std::nullopt, 1, 0.5});
  ASSERT_TRUE(decision.reserved);
  EXPECT_EQ(decision.reservation_id.size(), 24u);
  EXPECT_DOUBLE_EQ(decision.amount_usd, 0.5);  // no limit: all that is wanted
  EXPECT_EQ(rows.writes,
            (std::vector<std::string>{"reservation 24 0.500000", "reserved bot 0.500000"}));
}

TEST(SpendRules, ARefusalNamesTheLimitAndWritesNothing) {
  FakeSpendRows rows;
  rows.org_limit = 1.0;
  rows.org_spent = 1.0;
  const auto decision = ReserveSpendIn(
      rows, SpendReservationRequest{"acme", "bot", "2026-11", 0.1, std::nullopt, 1, 0});
  EXPECT_FALSE(decision.reserved);
  EXPECT_EQ(decision.scope, "organization");
  EXPECT_DOUBLE_EQ(decision.limit_usd, 1.0);
  EXPECT_TRUE(rows.writes.empty());
}

TEST(SpendRules, ReleasedRemaindersComeOffEachAccountOnce) {
  const SpendAccount bot{"acme", "bot", "2026-11"}, helper{"acme", "helper", "2026-11"};
  std::map<SpendAccount, double> unreserved;
  int changes = 0;
  Unreserve({{bot, 0.25}, {helper, 0.5}, {bot, 0.25}},
            [&](const SpendAccount& account, const AccountChange& change) {
              ++changes;
              EXPECT_EQ(change.settled_usd, 0);
              unreserved[account] = change.unreserved_usd.value();
            });
  EXPECT_EQ(changes, 2);
  EXPECT_DOUBLE_EQ(unreserved[bot], 0.5);
  EXPECT_DOUBLE_EQ(unreserved[helper], 0.5);
}

}  // namespace agentgate
