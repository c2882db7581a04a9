// Group commit against a real SQLite file: turns that finish while the writer is busy are committed
// together, each all or nothing, and every caller learns its own turn's outcome.
#include "runtime/turn_committer.hpp"
#include "adapters/store_sqlite/sqlite_db.hpp"
#include "observability/metrics.hpp"
#include "store/store_backends.hpp"

#include <gtest/gtest.h>
#include <boost/asio/co_spawn.hpp>
#include <boost/asio/detached.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/steady_timer.hpp>

#include <chrono>
#include <optional>
#include <thread>
#include <vector>

namespace agentgate::testing {
namespace {

TurnCommit Stateless(std::string id) {
  TurnCommit commit;
  commit.turn.id = std::move(id);
  commit.turn.org_id = "acme";
  commit.turn.env = "prod";
  commit.turn.agent_id = "bot";
  commit.turn.transcript_json = "{}";
  return commit;
}

TEST(TurnCommitter, TurnsThatWaitForTheWriterAreCommittedTogether) {
  SqliteBackend backend;
  auto store = backend.Open();
  std::vector<TurnCommit> commits;
  for (int i = 0; i < 40; ++i) commits.push_back(Stateless("turn-" + std::to_string(i)));
  commits.push_back(Stateless("turn-7"));  // the same id again: this one turn fails alone
  std::vector<std::optional<Result<void>>> outcomes(commits.size());

  TurnCommitter committer(*store, 1, 128);
  boost::asio::io_context io;
  {
    // Another writer holds the file: every commit queues behind it.
    sqlite::Connection other(backend.path());
    sqlite::WriteTransaction busy(other);
    for (std::size_t i = 0; i < commits.size(); ++i) {
      boost::asio::co_spawn(
          io,
          [&, i]() -> boost::asio::awaitable<void> {
            outcomes[i] = co_await committer.Commit(commits[i]);
          },
          boost::asio::detached);
    }
    io.poll();  // each coroutine runs up to its commit, which is queued
    EXPECT_EQ(committer.unfinished(), commits.size());  // queued, or being written
  }
  io.run();
  // Once a writer is back from handing every caller its result, nothing is unfinished.
  const auto until = std::chrono::steady_clock::now() + std::chrono::seconds(10);
  while (committer.unfinished() > 0 && std::chrono::steady_clock::now() < until) {
    std::this_thread::yield();
  }
  EXPECT_EQ(committer.unfinished(), 0u);

  for (std::size_t i = 0; i < 40; ++i) {
    ASSERT_TRUE(outcomes[i]) << i;
    EXPECT_TRUE(*outcomes[i]) << i;
    EXPECT_TRUE(store->GetTurn(commits[i].turn.id).value()) << i;
  }
  ASSERT_TRUE(outcomes[40]);
  EXPECT_EQ(outcomes[40]->error().code, ErrorCode::kConflict);
  EXPECT_EQ(committer.committed(), 40u);
  EXPECT_LE(committer.batches(), 2u);  // the first one the writer took, then all the others
}

// Runs one commit while another connection holds the file for `held`; returns how many handlers the
// loop ran until the commit's result was back.
std::size_t HandlersRunWhileACommitWaits(std::chrono::milliseconds held) {
  SqliteBackend backend;
  auto store = backend.Open();
  const TurnCommit commit = Stateless("turn-1");
  std::optional<Result<void>> outcome;
  TurnCommitter committer(*store, 1, 128);
  boost::asio::io_context io;
  sqlite::Connection other(backend.path());
  auto busy = std::make_unique<sqlite::WriteTransaction>(other);
  boost::asio::co_spawn(
      io, [&]() -> boost::asio::awaitable<void> { outcome = co_await committer.Commit(commit); },
      boost::asio::detached);
  std::thread release([&] {
    std::this_thread::sleep_for(held);
    busy.reset();  // rolled back: the commit goes through
  });
  const std::size_t handlers = io.run();
  release.join();
  EXPECT_TRUE(outcome && *outcome);
  return handlers;
}

TEST(TurnCommitter, TheCallersLoopPollsForTheResultInsteadOfSleeping) {
  PollForHandoffs(std::chrono::seconds(5), Polling::kAlways);
  const std::size_t polling = HandlersRunWhileACommitWaits(std::chrono::milliseconds(50));
  PollForHandoffs(std::chrono::microseconds(0));
  const std::size_t sleeping = HandlersRunWhileACommitWaits(std::chrono::milliseconds(50));
  // A pass, then a yield, for 50 ms: hundreds on an idle machine, fewer when other threads want
  // the CPU (a yield then gives it away for a while).
  EXPECT_GT(polling, 25u);
  EXPECT_LT(sleeping, 10u);  // the coroutine's steps and the result
}

TEST(TurnCommitter, TheCallersLoopStopsPollingAtTheBudget) {
  // The commit takes 300 ms: a loop with a budget of 30 ms polls for those, then sleeps. How it
  // ended is counted, whatever else the machine runs meanwhile.
  Metrics metrics;
  DeclareAgentgateMetrics(metrics);
  PollForHandoffs(std::chrono::milliseconds(30), Polling::kAlways, &metrics);
  const std::size_t bounded = HandlersRunWhileACommitWaits(std::chrono::milliseconds(300));
  PollForHandoffs(std::chrono::microseconds(0));
  EXPECT_GE(
      bounded,
      3u);  // it polled (a handful of passes on a loaded machine); the metric says how it stopped
  const std::string counted = metrics.Render();
  EXPECT_NE(counted.find(R"(agentgate_handoff_spins_total{thread="io",outcome="timed_out"} 1)"),
            std::string::npos)
      << counted;
  EXPECT_EQ(counted.find(R"(outcome="caught")"), std::string::npos) << counted;
}

TEST(TurnCommitter, ALoopWhoseCommitsTakeLongerThanTheBudgetStopsPollingForThem) {
  SqliteBackend backend;
  auto store = backend.Open();
  TurnCommitter committer(*store, 1, 128);
  boost::asio::io_context io;
  int next_id = 0;
  auto commit_once = [&](std::chrono::milliseconds held) {
    const TurnCommit commit = Stateless("turn-" + std::to_string(next_id++));
    sqlite::Connection other(backend.path());
    auto busy = std::make_unique<sqlite::WriteTransaction>(other);
    if (held.count() == 0) busy.reset();
    boost::asio::co_spawn(
        io,
        [&]() -> boost::asio::awaitable<void> { EXPECT_TRUE(co_await committer.Commit(commit)); },
        boost::asio::detached);
    std::thread release([&] {
      std::this_thread::sleep_for(held);
      busy.reset();
    });
    io.restart();
    const std::size_t handlers = io.run();
    release.join();
    return handlers;
  };
  PollForHandoffs(std::chrono::milliseconds(2));
  for (int i = 0; i < 80; ++i) commit_once(std::chrono::milliseconds(0));  // quick: worth polling
  for (int i = 0; i < 3; ++i) commit_once(std::chrono::milliseconds(30));  // then slow
  const std::size_t handlers = commit_once(std::chrono::milliseconds(30));
  PollForHandoffs(std::chrono::microseconds(0));
  EXPECT_LT(handlers, 10u);  // slept through it
}

TEST(TurnCommitter, AWriterSpinningForWorkCommitsEveryTurnAndStops) {
  SqliteBackend backend;
  auto store = backend.Open();
  std::vector<TurnCommit> commits;
  for (int i = 0; i < 200; ++i) commits.push_back(Stateless("turn-" + std::to_string(i)));
  boost::asio::io_context io;
  Metrics metrics;
  DeclareAgentgateMetrics(metrics);
  std::size_t committed = 0;
  {
    TurnCommitter committer(*store, 2, 128, std::chrono::milliseconds(2), &metrics);
    boost::asio::co_spawn(
        io,
        [&]() -> boost::asio::awaitable<void> {
          // One after another, 100 us apart: each finds the writer idle a moment ago (well within
          // the budget), so it learns to spin for them.
          boost::asio::steady_timer pause(co_await boost::asio::this_coro::executor);
          for (const auto& commit : commits) {
            auto outcome = co_await committer.Commit(commit);
            EXPECT_TRUE(outcome);
            pause.expires_after(std::chrono::microseconds(100));
            co_await pause.async_wait(boost::asio::use_awaitable);
          }
        },
        boost::asio::detached);
    io.run();
    committed = committer.committed();
  }  // the destructor returns although a writer may be spinning
  EXPECT_EQ(committed, 200u);
  EXPECT_TRUE(store->GetTurn("turn-199").value());
  // It did spin, and each spin's end was counted (caught, or stopped by the budget or contention).
  EXPECT_NE(metrics.Render().find("agentgate_handoff_spins_total{thread=\"committer\""),
            std::string::npos);
}

}  // namespace
}  // namespace agentgate::testing
