// A server's spend leases against each real store (SQLite, PostgreSQL): many calls share one store
// reservation, two servers never pass a limit by more than one call, parts go back to the lease,
// retired leases give back what is unused and are deleted, and a limit changed through this server
// holds at once.
#include "runtime/spend_ledger.hpp"
#include "store/store_backends.hpp"
#include "support/run_async.hpp"

#include <gtest/gtest.h>
#include <boost/asio/co_spawn.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/thread_pool.hpp>

#include <set>

namespace agentgate::testing {
namespace {

using namespace std::chrono_literals;

// The ledgers' clock: it moves only when a test advances it, so a lease's age never depends on how
// fast the store (PostgreSQL under ASan, say) answered.
std::chrono::steady_clock::time_point manual_now{};
std::chrono::steady_clock::time_point ManualNow() {
  return manual_now;
}

template <class Backend>
class SpendLedgerTest : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!Backend::Available())
      GTEST_SKIP() << "no PostgreSQL: set AGENTGATE_TEST_POSTGRES_URL (make test does)";
    store_ = backend_.Open();
    ASSERT_TRUE(store_->CreateOrg(OrgRecord{"acme", "Acme", std::nullopt, 1}));
    runner_.emplace(*store_, pool_);
    manual_now = std::chrono::steady_clock::time_point{} + 1h;
  }

  static SpendLedgerOptions Options(std::chrono::milliseconds life, std::chrono::milliseconds idle,
                                    double calls, double max_calls) {
    return SpendLedgerOptions{life, idle, calls, max_calls, &ManualNow};
  }
  static void Advance(std::chrono::milliseconds by) { manual_now += by; }

  SpendReservationRequest Call(double usd, std::optional<double> agent_limit = std::nullopt) {
    return SpendReservationRequest{"acme", "bot", "2026-11", usd, agent_limit, 1, 0};
  }
  SpendDecision Reserve(SpendLedger& ledger, const SpendReservationRequest& call) {
    return RunAsync(io_, ledger.Reserve(call)).value();
  }
  // A turn's commit settling `parts` at their full amount, then the ledger told so.
  void Commit(SpendLedger& ledger, const std::vector<SpendDecision>& parts) {
    TurnCommit commit;
    commit.turn.id = "turn-" + std::to_string(++turns_);
    commit.turn.transcript_json = "[]";
    for (const auto& p : parts) {
      commit.settlements.push_back(SpendSettlement{p.reservation_id, p.amount_usd, 1, 1, "acme",
                                                   "bot", "2026-11", p.amount_usd});
    }
    ASSERT_TRUE(store_->CommitTurn(commit));
    for (const auto& p : parts) ledger.Settled(SpendPart{p.reservation_id, p.amount_usd});
  }
  // Waits for the store work the ledger posted (one blocking thread: it runs in order).
  void Flush() {
    RunAsync(io_, runner_->Run([](Store&) { return 0; }));
  }
  UsageRow Usage() {
    auto rows = store_->GetUsage("acme", "2026-11").value();
    return rows.empty() ? UsageRow{} : rows.at(0);
  }

  Backend backend_;
  std::unique_ptr<Store> store_;
  boost::asio::thread_pool pool_{1};
  std::optional<StoreRunner> runner_;
  boost::asio::io_context io_;
  int turns_ = 0;
};

using Backends = ::testing::Types<SqliteBackend, PostgresBackend>;
TYPED_TEST_SUITE(SpendLedgerTest, Backends);

TYPED_TEST(SpendLedgerTest, ManyCallsShareOneStoreReservation) {
  SpendLedger ledger(*this->runner_, this->Options(10s, 10s, 32, 32768));
  std::set<std::string> leases;
  std::vector<SpendDecision> parts;
  for (int i = 0; i < 40; ++i) {
    parts.push_back(this->Reserve(ledger, this->Call(0.01)));
    ASSERT_TRUE(parts.back().reserved);
    EXPECT_DOUBLE_EQ(parts.back().amount_usd, 0.01);
    leases.insert(parts.back().reservation_id);
  }
  EXPECT_EQ(leases.size(), 2u);  // 32 calls from the first, 8 from the next
  // The first ran out within half its life: the second is sized for twice as many calls.
  EXPECT_NEAR(this->Usage().reserved_usd, 0.32 + 0.64, 1e-9);
  this->Commit(ledger, parts);
  EXPECT_NEAR(this->Usage().spent_usd, 0.40, 1e-9);
  EXPECT_NEAR(this->Usage().reserved_usd, 0.56, 1e-9);  // the second lease's unused part
  ledger.RetireAll();
  this->Flush();
  EXPECT_NEAR(this->Usage().reserved_usd, 0.0, 1e-9);
  EXPECT_EQ(ledger.LeasesHeld(), 0u);  // nothing kept once every part is settled
}

TYPED_TEST(SpendLedgerTest, TwoServersNeverPassALimitByMoreThanOneCall) {
  ASSERT_TRUE(this->store_->SetOrgSpendLimit("acme", 1.0).value());
  SpendLedger a(*this->runner_, this->Options(10s, 10s, 32, 32768));
  SpendLedger b(*this->runner_, this->Options(10s, 10s, 32, 32768));
  double set_aside = 0;
  int refusals = 0;
  for (int i = 0; i < 100 && refusals < 2; ++i) {
    auto part = this->Reserve(i % 2 ? a : b, this->Call(0.07));
    if (part.reserved) {
      set_aside += part.amount_usd;
      refusals = 0;
    } else {
      EXPECT_EQ(part.scope, "organization");
      ++refusals;
    }
  }
  EXPECT_EQ(refusals, 2);  // both servers are refused in the end
  EXPECT_GE(set_aside, 1.0 - 0.07);
  EXPECT_LE(set_aside, 1.0 + 0.07 + 1e-9);
}

TYPED_TEST(SpendLedgerTest, ADearerCallGivesBackTheLeaseItOutgrewBeforeAskingForItsOwn) {
  // A limit the first lease crosses (one call may): its unused part must not refuse the dearer
  // call of an agent's fallback model, which the limit's room still allows.
  ASSERT_TRUE(this->store_->SetOrgSpendLimit("acme", 0.5).value());
  SpendLedger ledger(*this->runner_, this->Options(10s, 10s, 32, 32768));
  auto cheap = this->Reserve(ledger, this->Call(0.4));
  ASSERT_TRUE(cheap.reserved);
  ledger.Release(SpendPart{cheap.reservation_id, cheap.amount_usd});  // the call failed
  auto dear = this->Reserve(ledger, this->Call(3.0));
  ASSERT_TRUE(dear.reserved) << dear.scope;
  EXPECT_NE(dear.reservation_id, cheap.reservation_id);
  this->Flush();
  EXPECT_NEAR(this->Usage().reserved_usd, 3.0, 1e-9);  // the first lease is gone
  this->Commit(ledger, {dear});
  // Met now: the next call of either price is refused.
  EXPECT_FALSE(this->Reserve(ledger, this->Call(0.4)).reserved);
  EXPECT_FALSE(this->Reserve(ledger, this->Call(3.0)).reserved);
}

TYPED_TEST(SpendLedgerTest, AReleasedPartGoesBackToTheLeaseWithoutAStoreTrip) {
  SpendLedger ledger(*this->runner_, this->Options(10s, 10s, 4, 32768));
  std::vector<SpendDecision> parts;
  for (int i = 0; i < 4; ++i) parts.push_back(this->Reserve(ledger, this->Call(0.1)));
  const double reserved = this->Usage().reserved_usd;
  EXPECT_NEAR(reserved, 0.4, 1e-9);
  ledger.Release(SpendPart{parts[3].reservation_id, parts[3].amount_usd});  // a canceled turn
  auto again = this->Reserve(ledger, this->Call(0.1));
  EXPECT_EQ(again.reservation_id, parts[0].reservation_id);  // served by the same lease
  EXPECT_NEAR(this->Usage().reserved_usd, reserved, 1e-12);
}

TYPED_TEST(SpendLedgerTest, ALeaseHasRoomOnlyWhileLiveUnderTheSameLimitAndNotFullyHeld) {
  SpendLedger ledger(*this->runner_, this->Options(30ms, 10s, 2, 2));
  EXPECT_FALSE(ledger.LeaseHasRoom(this->Call(0.1)));  // no lease yet: the check reads the store
  ASSERT_TRUE(this->Reserve(ledger, this->Call(0.1)).reserved);
  EXPECT_TRUE(ledger.LeaseHasRoom(this->Call(0.1)));
  EXPECT_FALSE(ledger.LeaseHasRoom(this->Call(0.1, 5.0)));  // another agent limit
  auto other_month = this->Call(0.1);
  other_month.month = "2026-12";
  EXPECT_FALSE(ledger.LeaseHasRoom(other_month));
  ASSERT_TRUE(this->Reserve(ledger, this->Call(0.1)).reserved);  // the lease is now all held
  EXPECT_FALSE(ledger.LeaseHasRoom(this->Call(0.1)));
  this->Advance(40ms);
  EXPECT_FALSE(ledger.LeaseHasRoom(this->Call(0.1)));  // expired
}

TYPED_TEST(SpendLedgerTest, ALeaseForFreeCallsHasRoomWhileLiveAndNotPastALimitReached) {
  // A model with no price: each call's worst case is 0, and so is its lease.
  SpendLedger ledger(*this->runner_, this->Options(30ms, 10s, 32, 32768));
  EXPECT_FALSE(ledger.LeaseHasRoom(this->Call(0.0)));
  ASSERT_TRUE(this->Reserve(ledger, this->Call(0.0)).reserved);
  EXPECT_TRUE(ledger.LeaseHasRoom(this->Call(0.0)));  // no store read before the next turn
  this->Advance(40ms);
  EXPECT_FALSE(ledger.LeaseHasRoom(this->Call(0.0)));  // expired: the check reads the store
  // Once a limit is reached the store grants no lease, free or not, so none has room.
  ASSERT_TRUE(this->store_->SetOrgSpendLimit("acme", 0.0).value());
  EXPECT_FALSE(this->Reserve(ledger, this->Call(0.0)).reserved);
  EXPECT_FALSE(ledger.LeaseHasRoom(this->Call(0.0)));
}

TYPED_TEST(SpendLedgerTest, ARetiredLeaseGivesBackWhatIsUnusedAndIsDeletedAfterItsLastCall) {
  SpendLedger ledger(*this->runner_, this->Options(30ms, 10s, 10, 32768));
  auto held = this->Reserve(ledger, this->Call(0.1));
  auto released = this->Reserve(ledger, this->Call(0.1));
  ASSERT_TRUE(held.reserved && released.reserved);
  this->Advance(40ms);
  ledger.RetireStale();
  this->Flush();
  EXPECT_NEAR(this->Usage().reserved_usd, 0.2, 1e-9);  // 0.8 unused went back; calls keep theirs
  EXPECT_EQ(ledger.LeasesHeld(), 1u);
  // A retired lease serves no new call.
  auto fresh = this->Reserve(ledger, this->Call(0.1));
  EXPECT_NE(fresh.reservation_id, held.reservation_id);
  ledger.Release(SpendPart{fresh.reservation_id, fresh.amount_usd});
  ledger.Release(SpendPart{released.reservation_id, released.amount_usd});
  this->Commit(ledger, {held});
  EXPECT_EQ(ledger.LeasesHeld(), 1u);  // only the fresh lease is left
  this->Advance(40ms);
  ledger.RetireStale();
  this->Flush();
  EXPECT_EQ(ledger.LeasesHeld(), 0u);
  EXPECT_NEAR(this->Usage().reserved_usd, 0.0, 1e-9);
  EXPECT_NEAR(this->Usage().spent_usd, 0.1, 1e-9);
  // The old lease is deleted: settling against it now is refused.
  EXPECT_EQ(this->store_
                ->CommitTurn([&] {
                  TurnCommit late;
                  late.turn.id = "late";
                  late.turn.transcript_json = "[]";
                  late.settlements = {SpendSettlement{held.reservation_id, 0.1, 1, 1, "acme", "bot",
                                                      "2026-11", 0.1}};
                  return late;
                }())
                .error()
                .code,
            ErrorCode::kConflict);
}

TYPED_TEST(SpendLedgerTest, AnIdleLeaseIsGivenBack) {
  SpendLedger ledger(*this->runner_, this->Options(10s, 20ms, 10, 32768));
  auto part = this->Reserve(ledger, this->Call(0.1));
  this->Commit(ledger, {part});
  ledger.RetireStale();  // used just now: kept
  this->Flush();
  EXPECT_NEAR(this->Usage().reserved_usd, 0.9, 1e-9);
  this->Advance(30ms);
  ledger.RetireStale();
  this->Flush();
  EXPECT_NEAR(this->Usage().reserved_usd, 0.0, 1e-9);
  EXPECT_EQ(ledger.LeasesHeld(), 0u);
}

TYPED_TEST(SpendLedgerTest, LeasesThatRunOutEarlyGrowUpToTheirCap) {
  SpendLedger ledger(*this->runner_, this->Options(10s, 10s, 4, 16));
  std::vector<std::string> leases;  // in order of first use
  for (int i = 0; i < 4 + 8 + 16 + 16 + 1; ++i) {
    auto part = this->Reserve(ledger, this->Call(0.01));
    ASSERT_TRUE(part.reserved);
    if (leases.empty() || leases.back() != part.reservation_id)
      leases.push_back(part.reservation_id);
  }
  EXPECT_EQ(leases.size(), 5u);  // 4, 8, 16, 16 (the cap), then a fifth
  EXPECT_NEAR(this->Usage().reserved_usd, (4 + 8 + 16 + 16 + 16) * 0.01, 1e-9);
}

TYPED_TEST(SpendLedgerTest, AnExpiredLeaseSizesTheNextByWhatItServed) {
  SpendLedger ledger(*this->runner_, this->Options(300ms, 10s, 4, 1024));
  for (int i = 0; i < 4 + 8 + 5; ++i) ASSERT_TRUE(this->Reserve(ledger, this->Call(0.01)).reserved);
  // The third lease (16 calls) served 5 before it expired: the next asks for 10.
  this->Advance(350ms);
  const double before = this->Usage().reserved_usd;
  auto part = this->Reserve(ledger, this->Call(0.01));
  ASSERT_TRUE(part.reserved);
  this->Flush();  // the expired lease's unused 11 calls went back
  EXPECT_NEAR(this->Usage().reserved_usd, before - 0.11 + 0.10, 1e-9);
}

TYPED_TEST(SpendLedgerTest, CallsThatFindTheLeaseShortTogetherShareOneStoreRequest) {
  SpendLedger ledger(*this->runner_, this->Options(10s, 10s, 32, 32768));
  std::vector<SpendDecision> parts;
  const auto call = this->Call(0.01);  // outlives the calls, which hold a reference to it
  for (int i = 0; i < 64; ++i) {
    boost::asio::co_spawn(this->io_, ledger.Reserve(call),
                          [&](std::exception_ptr e, Result<SpendDecision> r) {
                            ASSERT_FALSE(e);
                            ASSERT_TRUE(r);
                            parts.push_back(*r);
                          });
  }
  this->io_.restart();
  while (parts.size() < 64 && this->io_.run_one() > 0) {
  }
  ASSERT_EQ(parts.size(), 64u);
  std::set<std::string> leases;
  for (const auto& p : parts) {
    EXPECT_TRUE(p.reserved);
    leases.insert(p.reservation_id);
  }
  // The first call leases 32; the 33rd, after the other 31 took theirs, leases 64 for the rest.
  EXPECT_EQ(leases.size(), 2u);
  EXPECT_NEAR(this->Usage().reserved_usd, 0.32 + 0.64, 1e-9);
}

TYPED_TEST(SpendLedgerTest, ALimitChangedThroughThisServerHoldsAtOnce) {
  SpendLedger ledger(*this->runner_, this->Options(10s, 10s, 32, 32768));
  ASSERT_TRUE(this->Reserve(ledger, this->Call(0.01)).reserved);
  ASSERT_TRUE(this->store_->SetOrgSpendLimit("acme", 0.0).value());
  ledger.ForgetOrg("acme");  // what the admin API does after the write
  auto refused = this->Reserve(ledger, this->Call(0.01));
  EXPECT_FALSE(refused.reserved);
  EXPECT_EQ(refused.scope, "organization");
  // Another agent limit than the lease's is a new lease, decided by the store.
  ASSERT_TRUE(this->store_->SetOrgSpendLimit("acme", std::nullopt).value());
  ASSERT_TRUE(this->Reserve(ledger, this->Call(0.01)).reserved);
  auto agent_refused = this->Reserve(ledger, this->Call(0.01, 0.0));
  EXPECT_FALSE(agent_refused.reserved);
  EXPECT_EQ(agent_refused.scope, "agent");
}

}  // namespace
}  // namespace agentgate::testing
