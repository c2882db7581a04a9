#include "adapters/store_common/settlement_sums.hpp"

#include <gtest/gtest.h>

namespace agentgate {
namespace {

SpendSettlement Call(std::string lease, std::string agent, double usd, double reserved) {
  return SpendSettlement{std::move(lease), usd,       10,      2, "acme",
                         std::move(agent), "2026-11", reserved};
}

struct Recorded {
  std::map<std::string, double> taken_off;
  std::map<SpendAccount, AccountChange> changed;
  int changes = 0;
};

Recorded Settle(const std::vector<SpendSettlement>& calls, const std::string& gone = "") {
  std::vector<const SpendSettlement*> batch;
  for (const auto& call : calls) batch.push_back(&call);
  Recorded r;
  SettleBatch(
      batch,
      [&](const std::string& id, double usd) -> std::optional<SpendAccount> {
        r.taken_off[id] += usd;
        if (id == gone) return std::nullopt;
        return SpendAccount{"acme", id == "lease-b" ? "b" : "a", "2026-11"};
      },
      [&](const SpendAccount& account, const AccountChange& change) {
        r.changed[account] = change;
        ++r.changes;
      });
  return r;
}

// Each reservation is written once, then each account once, with both of its changes.
TEST(SettleBatch, EachLeaseAndEachAccountIsWrittenOnceWithBothOfItsChanges) {
  const Recorded r = Settle({Call("lease-a", "a", 0.02, 0.1), Call("lease-a", "a", 0.03, 0.1),
                             Call("lease-b", "b", 0.5, 0.7)});
  EXPECT_DOUBLE_EQ(r.taken_off.at("lease-a"), 0.2);
  EXPECT_DOUBLE_EQ(r.taken_off.at("lease-b"), 0.7);
  ASSERT_EQ(r.changes, 2);
  const AccountChange& a = r.changed.at({"acme", "a", "2026-11"});
  EXPECT_DOUBLE_EQ(a.settled_usd, 0.05);
  EXPECT_EQ(a.input_tokens, 20);
  EXPECT_EQ(a.output_tokens, 4);
  EXPECT_EQ(a.calls, 2);
  ASSERT_TRUE(a.unreserved_usd);
  EXPECT_DOUBLE_EQ(*a.unreserved_usd, 0.2);
  EXPECT_DOUBLE_EQ(*r.changed.at({"acme", "b", "2026-11"}).unreserved_usd, 0.7);
}

// A reservation released meanwhile takes nothing off the reserved total; the cost still counts.
TEST(SettleBatch, AGoneReservationStillSettlesItsCostButUnreservesNothing) {
  const Recorded r = Settle({Call("lease-a", "a", 0.02, 0.1)}, "lease-a");
  ASSERT_EQ(r.changes, 1);
  const AccountChange& a = r.changed.at({"acme", "a", "2026-11"});
  EXPECT_DOUBLE_EQ(a.settled_usd, 0.02);
  EXPECT_FALSE(a.unreserved_usd);
}

}  // namespace
}  // namespace agentgate
