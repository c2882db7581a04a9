// Group commit against a real SQLite file: turns that finish while the writer is busy are committed
// together, each all or nothing, and every caller learns its own turn's outcome.
#include "app/turn_committer.hpp"
#include "adapters/store_sqlite/sqlite_db.hpp"
#include "store/store_backends.hpp"

#include <gtest/gtest.h>
#include <boost/asio/co_spawn.hpp>
#include <boost/asio/detached.hpp>
#include <boost/asio/io_context.hpp>

#include <optional>
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
  }
  io.run();

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

}  // namespace
}  // namespace agentgate::testing
