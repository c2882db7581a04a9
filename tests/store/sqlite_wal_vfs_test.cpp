// The store's VFS writes each commit's WAL frames in one call, and the files it leaves are SQLite's
// own format: a copy taken without a checkpoint (as a kill -9 leaves them) opens with every commit.
#include "adapters/store_sqlite/sqlite_wal_vfs.hpp"
#include "adapters/store_sqlite/sqlite_db.hpp"

#include <gtest/gtest.h>
#include <sqlite3.h>

#include <unistd.h>
#include <filesystem>
#include <initializer_list>
#include <optional>
#include <string>
#include <vector>

namespace agentgate::testing {
namespace {

class SqliteWalVfs : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = std::filesystem::temp_directory_path() /
           ("agentgate-wal-vfs-" + std::to_string(::getpid()));
    std::filesystem::remove_all(dir_);
    std::filesystem::create_directories(dir_);
    db_.emplace((dir_ / "live.db").string(), 100000);  // no checkpoint during the test
    db_->Exec("CREATE TABLE t(n INTEGER PRIMARY KEY, text TEXT NOT NULL)");
    db_->Exec("CREATE INDEX t_by_text ON t(text)");  // a second page in every commit
  }
  void TearDown() override {
    db_.reset();
    std::filesystem::remove_all(dir_);
  }
  void InsertEachInItsOwnCommit(int from, int to) {
    for (int n = from; n < to; ++n) {
      sqlite::WriteTransaction tx(*db_);
      db_->Prepare("INSERT INTO t(n, text) VALUES (?, ?)")
          .Bind(static_cast<std::int64_t>(n), std::string(300, static_cast<char>('a' + n % 26)))
          .Run();
      tx.Commit();
    }
  }
  // Copies the live files as a kill -9 leaves them (no checkpoint), opens the copy with SQLite's
  // own VFS, which recovers the log from the frames' checksums (a frame written wrong ends the
  // log there), and returns each query's first value.
  std::vector<std::string> CopyAndQuery(const std::string& name,
                                        std::initializer_list<const char*> queries) {
    for (const char* suffix : {"", "-wal"}) {
      std::filesystem::copy_file(dir_ / ("live.db" + std::string(suffix)),
                                 dir_ / (name + ".db" + std::string(suffix)));
    }
    sqlite3* copy = nullptr;
    EXPECT_EQ(
        sqlite3_open_v2((dir_ / (name + ".db")).c_str(), &copy, SQLITE_OPEN_READWRITE, nullptr),
        SQLITE_OK);
    std::vector<std::string> values;
    for (const char* sql : queries) {
      sqlite3_stmt* s = nullptr;
      EXPECT_EQ(sqlite3_prepare_v2(copy, sql, -1, &s, nullptr), SQLITE_OK);
      EXPECT_EQ(sqlite3_step(s), SQLITE_ROW);
      values.emplace_back(reinterpret_cast<const char*>(sqlite3_column_text(s, 0)));
      sqlite3_finalize(s);
    }
    sqlite3_close(copy);
    return values;
  }
  // One transaction larger than SQLite's page cache: pages spill to the log before the commit,
  // and pages spilled then changed again are rewritten in place, their checksums redone.
  void InsertInOneCommit(int from, int to, bool commit = true) {
    sqlite::WriteTransaction tx(*db_);
    for (int n = from; n < to; ++n) {
      db_->Prepare("INSERT INTO t(n, text) VALUES (?, ?)")
          .Bind(static_cast<std::int64_t>(n), std::string(1500, static_cast<char>('a' + n % 26)))
          .Run();
    }
    if (commit) tx.Commit();
  }
  std::filesystem::path dir_;
  std::optional<sqlite::Connection> db_;
};

// The store's first connection set SQLite up before its first use: it counts no memory (each
// counted allocation took a process-wide mutex). Counting, an open connection with a table and an
// index written shows as memory in use.
TEST_F(SqliteWalVfs, SqliteKeepsNoMemoryStatistics) {
  InsertEachInItsOwnCommit(0, 3);
  EXPECT_EQ(sqlite3_memory_used(), 0);
  EXPECT_EQ(sqlite3_memory_highwater(0), 0);
}

TEST_F(SqliteWalVfs, EachCommitsFramesAreWrittenInOneCall) {
  InsertEachInItsOwnCommit(0, 5);
  const std::string wal = (dir_ / "live.db-wal").string();
  const auto bytes_before = std::filesystem::file_size(wal);
  const auto writes_before = sqlite::WalWrites();
  InsertEachInItsOwnCommit(5, 45);
  const auto frames = (std::filesystem::file_size(wal) - bytes_before) / (24 + 4096);
  EXPECT_GE(frames, 80u);  // the table's page and the index's, at least
  EXPECT_EQ(sqlite::WalWrites() - writes_before, 40u);
  EXPECT_EQ(sqlite::WalRunsHeldAtPublish(), 0u);
}

TEST_F(SqliteWalVfs, ACommitLargerThanThePageCacheIsWholeInTheFiles) {
  db_->Exec("PRAGMA cache_size=50");  // spills early and often
  const auto held_before = sqlite::WalRunsHeldAtPublish();
  InsertEachInItsOwnCommit(0, 10);
  InsertInOneCommit(10, 3000);
  // Every write was out before SQLite told readers of the commit, each where its failure would
  // still have failed the commit.
  EXPECT_EQ(sqlite::WalRunsHeldAtPublish(), held_before);
  EXPECT_EQ(CopyAndQuery("copy", {"SELECT COUNT(*) FROM t", "PRAGMA integrity_check"}),
            (std::vector<std::string>{"3000", "ok"}));
}

TEST_F(SqliteWalVfs, FramesOfARolledBackTransactionNeverOverwriteALaterCommit) {
  db_->Exec("PRAGMA cache_size=50");
  InsertEachInItsOwnCommit(0, 10);
  InsertInOneCommit(10, 1000, /*commit=*/false);  // spilled frames, then rolled back
  sqlite::Connection other((dir_ / "live.db").string(), 100000);
  {
    sqlite::WriteTransaction tx(other);
    other.Prepare("INSERT INTO t(n, text) VALUES (?, ?)")
        .Bind(static_cast<std::int64_t>(5000), std::string("later"))
        .Run();
    tx.Commit();
  }
  InsertEachInItsOwnCommit(20, 25);  // the first connection writes on
  EXPECT_EQ(sqlite::WalRunsHeldAtPublish(), 0u);
  EXPECT_EQ(CopyAndQuery("copy", {"SELECT COUNT(*) FROM t", "PRAGMA integrity_check"}),
            (std::vector<std::string>{"16", "ok"}));
}

TEST_F(SqliteWalVfs, FilesCopiedWithoutACheckpointOpenWithEveryCommit) {
  InsertEachInItsOwnCommit(0, 200);
  EXPECT_EQ(CopyAndQuery("copy", {"SELECT COUNT(*) FROM t", "SELECT text FROM t WHERE n = 199",
                                  "PRAGMA integrity_check"}),
            (std::vector<std::string>{"200", std::string(300, 'r'), "ok"}));
}

}  // namespace
}  // namespace agentgate::testing
