// The maintenance loop against each real store (SQLite, PostgreSQL): stranded spend reservations
// are released (recent ones kept), expired idempotency keys purged, and old gateway counts, turns,
// idle conversations, facts and ended runs purged, each by its own retention.
#include "app/admin/maintenance.hpp"
#include "store/store_backends.hpp"
#include "support/manual_clock.hpp"

#include <gtest/gtest.h>
#include <boost/asio/co_spawn.hpp>
#include <boost/asio/detached.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/thread_pool.hpp>

namespace agentgate::testing {
namespace {

using namespace std::chrono_literals;

template <class Backend>
class Maintenance : public ::testing::Test {};
using Backends = ::testing::Types<SqliteBackend, PostgresBackend>;
TYPED_TEST_SUITE(Maintenance, Backends);

TYPED_TEST(Maintenance, ReleasesStrandedReservationsAndPurgesWhatOutlivedItsRetention) {
  if (!TypeParam::Available())
    GTEST_SKIP() << "no PostgreSQL: set AGENTGATE_TEST_POSTGRES_URL (make test does)";
  TypeParam backend;
  auto store = backend.Open();
  const std::int64_t now = 10 * 3600 * 1000;  // 10 h after the epoch: in 1970-01
  auto stranded =
      store->ReserveSpend({"acme", "bot", "1970-01", 0.5, std::nullopt, 1000, 0}).value();
  auto recent =
      store->ReserveSpend({"acme", "bot", "1970-01", 0.25, std::nullopt, now - 1000, 0}).value();
  ASSERT_TRUE(stranded.reserved && recent.reserved);
  const IdempotencyScope key{"acme", "prod", "old"};
  ASSERT_EQ(store->ClaimIdempotencyKey(key, "fp", 0, 120000, "server-a").value().outcome,
            IdempotencyClaim::Outcome::kClaimed);
  ASSERT_TRUE(store->CommitTurn(TurnCommit{
      TurnRecord{"t1", "", "acme", "prod", "bot", 1, 0, 1, "", false, 1, 1, 1, 0.0, "[]"},
      {},
      {},
      IdempotencyCompletion{key, 0, 200, "{}", now - 1},
      {},
      {},
      {}}));

  // Turns: kept 2 days; one started 2 days and 1 ms before `now` goes.
  auto old_turn = TurnCommit{TurnRecord{"t-old", "", "acme", "prod", "bot", 1,
                                        now - 2 * kMsPerDay - 1, 1, "", false, 1, 1, 1, 0.0, "[]"},
                             {},
                             {},
                             {},
                             {},
                             {},
                             {}};
  ASSERT_TRUE(store->CommitTurn(old_turn));
  const auto old_turn_gone = [&] { return !store->GetTurn("t-old").value(); };

  // Gateway counts: day 0 is `now`'s; the one past kGatewayCallDaysKept goes.
  ASSERT_TRUE(store->AddGatewayCalls(-kGatewayCallDaysKept - 1, {{200, 3}}));
  ASSERT_TRUE(store->AddGatewayCalls(-kGatewayCallDaysKept, {{200, 2}}));
  const auto gateway_days = [&] { return store->GatewayCallsPerDay(-1000).value().size(); };

  // Conversations: kept 3 days after their last use; one last used 4 days ago goes, with its
  // messages, and one used a day ago stays.
  const auto first_turn = [](std::string turn, std::string conversation, std::int64_t at) {
    TurnCommit commit;
    commit.turn = TurnRecord{std::move(turn),
                             conversation,
                             "acme",
                             "prod",
                             "bot",
                             1,
                             at,
                             1,
                             "",
                             false,
                             1,
                             1,
                             1,
                             0.0,
                             "[]"};
    commit.messages = {MessageRecord{0, "user", "hello", at}};
    commit.new_conversation = ConversationRecord{conversation, "acme", "prod", "bot", "", at};
    return commit;
  };
  ASSERT_TRUE(store->CommitTurn(first_turn("t-idle", "c-idle", -4 * kMsPerDay)));
  ASSERT_TRUE(store->CommitTurn(first_turn("t-used", "c-used", -1 * kMsPerDay)));
  const auto idle_conversation_gone = [&] { return !store->GetConversation("c-idle").value(); };

  // Facts: kept 5 days; one saved 5 days and 1 ms before `now` goes.
  const MemoryScope scope{"acme", "prod", "bot", ""};
  ASSERT_TRUE(store->AddMemory(scope, "forgotten", now - 5 * kMsPerDay - 1));
  ASSERT_TRUE(store->AddMemory(scope, "remembered", now - 5 * kMsPerDay + 1));
  const auto facts = [&] { return store->ListMemories(scope, 10).value().size(); };

  // Runs: kept 2 hours after they ended; one ended 2 hours and 1 ms before `now` goes with its
  // events, one ended later stays, and a queued one is never purged.
  const auto ended_run = [&](std::string id, std::int64_t ended_at) {
    RunRecord run{id, "acme", "prod", "bot", "tok"};
    run.created_at_ms = ended_at - 10;
    run.request_json = R"({"message":"hi"})";
    ASSERT_TRUE(store->CreateRun(run, 100, std::nullopt).value());
    auto claimed = store->ClaimRuns("server-a", ended_at - 5, 1).value();
    ASSERT_EQ(claimed.size(), 1u);
    run = claimed[0];
    run.status = RunStatus::kCompleted;
    run.ended_at_ms = ended_at;
    run.result_json = "{}";
    auto done = run_events::Completed("{}");
    done.seq = 1;
    ASSERT_TRUE(store->FinishRun(run, {done}).value());
  };
  ended_run("run-old", now - 2 * 3600 * 1000 - 1);
  ended_run("run-recent", now - 2 * 3600 * 1000 + 1);
  RunRecord queued{"run-queued", "acme", "prod", "bot", "tok"};
  queued.created_at_ms = 0;
  ASSERT_TRUE(store->CreateRun(queued, 100, std::nullopt).value());
  const auto old_run_gone = [&] { return !store->GetRun("run-old").value(); };

  boost::asio::thread_pool pool(1);
  StoreRunner runner(*store, pool);
  ManualClock clock(now);
  boost::asio::io_context io;
  boost::asio::co_spawn(io, RunMaintenance(runner, clock, 120s, Retention{2, 3, 5, 2}, 10ms),
                        boost::asio::detached);
  double reserved = 1;
  for (int i = 0; i < 200 && (reserved > 0.3 || gateway_days() > 1 || !old_turn_gone() ||
                              !idle_conversation_gone() || facts() > 1 || !old_run_gone());
       ++i) {
    io.run_one_for(50ms);
    reserved = store->GetUsage("acme", "1970-01").value().at(0).reserved_usd;
  }
  io.stop();
  pool.join();
  EXPECT_NEAR(reserved, 0.25, 1e-9);  // the stranded one released, the recent one kept
  const auto kept = store->GatewayCallsPerDay(-1000).value();
  ASSERT_EQ(kept.size(), 1u);
  EXPECT_EQ(kept[0].day, -kGatewayCallDaysKept);
  EXPECT_TRUE(old_turn_gone());
  EXPECT_TRUE(store->GetTurn("t1").value());  // started at 0: within the 2 days
  EXPECT_TRUE(idle_conversation_gone());
  EXPECT_TRUE(store->LoadRecentMessages("c-idle", 1 << 20, 10).value().empty());
  EXPECT_TRUE(store->GetConversation("c-used").value());
  EXPECT_TRUE(store->GetTurn("t-used").value());
  const auto kept_facts = store->ListMemories(scope, 10).value();
  ASSERT_EQ(kept_facts.size(), 1u);
  EXPECT_EQ(kept_facts[0].fact, "remembered");
  EXPECT_TRUE(old_run_gone());
  EXPECT_TRUE(store->ListRunEvents("run-old", 0, 10).value().empty());
  EXPECT_TRUE(store->GetRun("run-recent").value());
  EXPECT_EQ(store->ListRunEvents("run-recent", 0, 10).value().size(), 1u);
  EXPECT_TRUE(store->GetRun("run-queued").value());
  const auto settling = [](std::string turn_id, const std::string& reservation_id) {
    TurnCommit commit;
    commit.turn.id = std::move(turn_id);
    commit.turn.transcript_json = "[]";
    commit.settlements = {
        SpendSettlement{reservation_id, 0.1, 1, 1, "acme", "bot", "1970-01", 0.1}};
    return commit;
  };
  EXPECT_EQ(store->CommitTurn(settling("t-stranded", stranded.reservation_id)).error().code,
            ErrorCode::kConflict);
  EXPECT_TRUE(store->CommitTurn(settling("t-recent", recent.reservation_id)));
  // The expired key was purged: the same key with another request is a fresh claim, not a 422.
  EXPECT_EQ(store->ClaimIdempotencyKey(key, "other", now, 120000, "server-a").value().outcome,
            IdempotencyClaim::Outcome::kClaimed);
}

}  // namespace
}  // namespace agentgate::testing
