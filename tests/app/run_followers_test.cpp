// Followers of runs (docs/runs.md, "Followers") at the level of the use cases: what following
// costs the store (one watch per run however many follow it, woken by the run's own events once it
// runs here), and the streams' limits and right to go on (StreamRoster).
#include "adapters/store_common/statement_count.hpp"
#include "app/runs/stream_roster.hpp"
#include "app/runs_fixture.hpp"

#include <boost/asio/co_spawn.hpp>
#include <boost/asio/detached.hpp>

namespace agentgate::testing {
namespace {

// One follower's look, as a coroutine function (its arguments live in its frame).
asio::awaitable<void> FollowOnce(Runs* runs, RunCursor* cursor, std::chrono::milliseconds wait,
                                 StreamTicket* ticket, std::vector<std::string>* types, int* done) {
  const RunEventSink keep = [types](const RunEvent& event) { types->push_back(event.type); };
  auto read = co_await runs->NextEvents(*cursor, wait, keep, false, ticket);
  EXPECT_TRUE(read) << read.error().message;
  ++*done;
}

// Two followers of run_1 enter; a third is refused at the bound `limit` names, for a retry.
std::pair<std::shared_ptr<StreamTicket>, std::shared_ptr<StreamTicket>> TwoThenRefused(
    StreamRoster& roster, const Caller& caller, const asio::any_io_executor& ex,
    std::string_view limit) {
  auto first = roster.Enter(caller, "bot", "run_1", ex);
  auto second = roster.Enter(caller, "bot", "run_1", ex);
  EXPECT_TRUE(first && second);
  const auto third = roster.Enter(caller, "bot", "run_1", ex);
  EXPECT_FALSE(third);
  if (third) return {};
  EXPECT_EQ(third.error().code, ErrorCode::kTooManyStreams);
  EXPECT_NE(third.error().message.find(limit), std::string::npos) << third.error().message;
  EXPECT_TRUE(third.error().retry_after_seconds);
  if (!first || !second) return {};
  return {std::move(*first), std::move(*second)};
}

using RunFollowersTest = PausingRunsTest;

TEST_F(RunFollowersTest, FollowersOfAPausedRunShareOneWatchThatLooksAtTheStoreOnceASecond) {
  std::int64_t last = 0;
  const RunRecord run = Paused(last);
  ASSERT_EQ(run.status, RunStatus::kRequiresAction);
  worker_.Stop();  // its claim loop looks no more: what the store is asked now is the followers'
  RunUntil([] { return false; }, 50ms);

  constexpr int kFollowers = 50;
  std::vector<RunCursor> cursors(kFollowers, RunCursor{run.id, last, nullptr, nullptr});
  std::vector<std::vector<std::string>> seen(kFollowers);
  int done = 0;
  const auto before = store_statements::Run();
  for (int i = 0; i < kFollowers; ++i) {
    asio::co_spawn(io_, FollowOnce(&runs_, &cursors[i], 1500ms, nullptr, &seen[i], &done),
                   asio::detached);
  }
  // Their waits run on the loop's timers; their deadline is the test clock's.
  RunUntil([] { return false; }, 1600ms);
  clock_.Advance(2s);
  ASSERT_TRUE(RunUntil([&] { return done == kFollowers; }));
  const auto statements = store_statements::Run() - before;
  // A first look (the run, its events), then a look a second (the run): not one a follower, nor
  // one every poll, over the three seconds or so the followers waited.
  EXPECT_LE(statements, 6) << statements << " statements for " << kFollowers << " followers";
  for (int i = 0; i < kFollowers; ++i) {
    EXPECT_TRUE(seen[i].empty());
    EXPECT_EQ(cursors[i].watch, cursors[0].watch);
    EXPECT_EQ(cursors[i].channel, nullptr);
  }
  ASSERT_NE(cursors[0].watch, nullptr);
}

TEST_F(RunFollowersTest, ADecisionHereWakesTheRunsFollowersWithItsOwnEvents) {
  std::int64_t last = 0;
  const RunRecord run = Paused(last);
  RunCursor cursor{run.id, last, nullptr, nullptr};
  std::vector<std::string> types;
  int done = 0;
  asio::co_spawn(io_, FollowOnce(&runs_, &cursor, 30s, nullptr, &types, &done), asio::detached);
  RunUntil([&] { return cursor.watch && cursor.watch->looked(); });
  ASSERT_EQ(done, 0);  // it waits on the run's watch

  model_.script.push_back([](const ModelRequest&) { return Reply("Order 42 ships today."); });
  const auto decided = Await(
      runs_.Decide(caller_, run.id, ApprovalRequest{{ApprovalDecision{"call-1", true, ""}}, true}));
  ASSERT_TRUE(decided) << decided.error().message;
  // Resumed here: its follower moved to its channel and has its first events as they happened,
  // not at the watch's next look.
  ASSERT_TRUE(RunUntil([&] { return done == 1; }, 900ms));
  ASSERT_FALSE(types.empty());
  EXPECT_EQ(types.front(), "tool.started");
  EXPECT_NE(cursor.channel, nullptr);
  EXPECT_EQ(cursor.watch, nullptr);
  EXPECT_EQ(Ended(run.id).status, RunStatus::kCompleted);
}

TEST_F(RunFollowersTest, TheRosterCountsStreamsPerRunAndPerTokenAndGivesTheirPlacesBack) {
  StreamRoster roster(tenants_, StreamLimits{2, 3});
  const auto ex = io_.get_executor();
  auto [first, second] = TwoThenRefused(roster, caller_, ex, "max_followers_per_run");
  ASSERT_TRUE(first && second);
  auto other_run = roster.Enter(caller_, "bot", "run_2", ex);
  ASSERT_TRUE(other_run);
  const auto fourth = roster.Enter(caller_, "bot", "", ex);  // a streamed invoke's own
  ASSERT_FALSE(fourth);
  EXPECT_NE(fourth.error().message.find("max_streams_per_token"), std::string::npos);
  EXPECT_EQ(HttpStatusOf(fourth.error().code), 429);
  // Another token has places of its own, but not on a run at its bound.
  const Caller other{"acme", "prod", "tok2"};
  EXPECT_FALSE(roster.Enter(other, "bot", "run_1", ex));
  auto elsewhere = roster.Enter(other, "bot", "run_3", ex);
  EXPECT_TRUE(elsewhere);
  EXPECT_EQ(roster.open(), 4u);

  first.reset();  // a stream that ends gives its place back
  EXPECT_EQ(roster.open(), 3u);
  EXPECT_TRUE(roster.Enter(caller_, "bot", "run_1", ex));  // and its temporary, at once
  second.reset();
  other_run->reset();
  elsewhere->reset();
  EXPECT_EQ(roster.open(), 0u);
  // Every count went back to nothing: the token has its three places again, and only three.
  std::vector<std::shared_ptr<StreamTicket>> held;
  for (const char* run : {"run_1", "run_2", "run_3"})
    held.push_back(roster.Enter(caller_, "bot", run, ex).value());
  EXPECT_FALSE(roster.Enter(caller_, "bot", "run_5", ex));
}

TEST_F(RunFollowersTest, OneTokenTakesNoMoreThanItsShareOfARunsFollowers) {
  StreamRoster roster(tenants_, StreamLimits{100, 100, 2});
  const auto ex = io_.get_executor();
  auto [first, second] = TwoThenRefused(roster, caller_, ex, "max_followers_per_run_per_token");
  ASSERT_TRUE(first && second);
  // Another token still has its places on the run, and this token on other runs.
  const Caller other{"acme", "prod", "tok2"};
  EXPECT_TRUE(roster.Enter(other, "bot", "run_1", ex));
  EXPECT_TRUE(roster.Enter(caller_, "bot", "run_2", ex));
  first.reset();  // a place given back is this token's again
  EXPECT_TRUE(roster.Enter(caller_, "bot", "run_1", ex));
}

TEST_F(RunFollowersTest, AFollowersStreamStopsOnceItsTokenIsRevokedOrItsGrantRemoved) {
  ASSERT_TRUE(store_->CreateToken(TokenRecord{"tok2", "acme", "other", "hash2", {}, 1, false}));
  ASSERT_TRUE(store_->PutGrant("acme", "tok2", "bot", {"chat"}));
  tenants_.Invalidate();
  std::int64_t last = 0;
  const RunRecord run = Paused(last);
  StreamRoster roster(tenants_, StreamLimits{});
  const auto ex = io_.get_executor();
  auto revoked = roster.Enter(caller_, "bot", run.id, ex).value();
  auto kept = roster.Enter(Caller{"acme", "prod", "tok2"}, "bot", run.id, ex).value();
  RunCursor cursor{run.id, last, nullptr, nullptr};
  std::vector<std::string> types;
  int done = 0;
  asio::co_spawn(io_, FollowOnce(&runs_, &cursor, 30s, revoked.get(), &types, &done),
                 asio::detached);
  RunAsync(io_, roster.CheckRights());
  RunUntil([] { return false; }, 50ms);
  EXPECT_FALSE(revoked->stopped());
  EXPECT_EQ(done, 0);

  ASSERT_TRUE(store_->RevokeToken("acme", "tok"));
  tenants_.Invalidate();  // as the revoking server's admin call does
  RunAsync(io_, roster.CheckRights());
  // The follower's wait ends at once; the other token's stream goes on.
  ASSERT_TRUE(RunUntil([&] { return done == 1; }, 900ms));
  EXPECT_TRUE(revoked->stopped());
  EXPECT_EQ(revoked->reason(), "token_revoked");
  EXPECT_TRUE(types.empty());
  EXPECT_FALSE(kept->stopped());
  EXPECT_EQ(Stored(run.id).status, RunStatus::kRequiresAction);  // the run goes on

  ASSERT_TRUE(store_->PutGrant("acme", "tok2", "bot", {}));
  tenants_.Invalidate();
  RunAsync(io_, roster.CheckRights());
  ASSERT_TRUE(RunUntil([&] { return kept->stopped(); }, 900ms));
  EXPECT_EQ(kept->reason(), "access_removed");
  EXPECT_NE(kept->message().find("'chat'"), std::string::npos);
}

}  // namespace
}  // namespace agentgate::testing
