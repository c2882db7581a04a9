// SQLite connection handling below the store interface, on a real database file.
#include "adapters/store_sqlite/sqlite_db.hpp"

#include <gtest/gtest.h>

#include <unistd.h>
#include <filesystem>

namespace agentgate::testing {
namespace {

class SqliteConnection : public ::testing::Test {
 protected:
  void SetUp() override {
    path_ = std::filesystem::temp_directory_path() /
            ("agentgate-conn-" + std::to_string(::getpid()) + ".db");
    std::filesystem::remove(path_);
    db_.emplace(path_.string());
    db_->Exec("CREATE TABLE t(n INTEGER); INSERT INTO t VALUES (1), (2), (3);");
  }
  void TearDown() override {
    db_.reset();
    for (const char* suffix : {"", "-wal", "-shm"})
      std::filesystem::remove(path_.string() + suffix);
  }
  std::filesystem::path path_;
  std::optional<sqlite::Connection> db_;
};

constexpr const char* kAbove = "SELECT n FROM t WHERE n > ? ORDER BY n";

TEST_F(SqliteConnection, AReusedStatementStartsOverWithNoBindingsLeft) {
  {
    auto first = db_->Prepare(kAbove);
    first.Bind(1);
    ASSERT_TRUE(first.Step());
    EXPECT_EQ(first.Int(0), 2);  // dropped mid-result
  }
  {
    auto unbound = db_->Prepare(kAbove);
    EXPECT_FALSE(unbound.Step()) << "the previous binding was kept (n > NULL matches no row)";
  }
  auto again = db_->Prepare(kAbove);
  again.Bind(0);
  ASSERT_TRUE(again.Step());
  EXPECT_EQ(again.Int(0), 1);  // from the first row, not where the dropped one stopped
}

TEST_F(SqliteConnection, ATemporaryStringIsCopiedWhenBoundAndKeptTextIsRead) {
  db_->Exec("CREATE TABLE words(w TEXT)");
  auto insert = db_->Prepare("INSERT INTO words VALUES (?), (?)");
  std::string kept(64, 'k');  // longer than the short-string buffer: its bytes live on the heap
  insert.Bind(kept);
  // The temporary is gone before the statement runs: bound without a copy, SQLite would read
  // freed memory (ASan fails the test) or whatever the heap put there since.
  insert.BindAt(2, std::string(64, 't'));
  std::string reuse(64, 'x');  // likely takes the freed block
  insert.Run();
  auto read = db_->Prepare("SELECT w FROM words ORDER BY w");
  ASSERT_TRUE(read.Step());
  EXPECT_EQ(read.Text(0), kept);
  ASSERT_TRUE(read.Step());
  EXPECT_EQ(read.Text(0), std::string(64, 't'));
  EXPECT_EQ(reuse.size(), 64u);
}

TEST_F(SqliteConnection, TheSameSqlOpenTwiceGetsTwoStatements) {
  auto outer = db_->Prepare(kAbove);
  outer.Bind(0);
  int pairs = 0;
  while (outer.Step()) {
    auto inner = db_->Prepare(kAbove);
    inner.Bind(outer.Int(0));
    while (inner.Step()) ++pairs;
  }
  EXPECT_EQ(pairs, 3);  // (1,2) (1,3) (2,3)
}

TEST_F(SqliteConnection, ADroppedReadEndsItsSnapshot) {
  {
    auto reading = db_->Prepare("SELECT n FROM t");
    ASSERT_TRUE(reading.Step());
  }
  // Another connection commits; a read left open would still see the old snapshot.
  sqlite::Connection writer(path_.string());
  writer.Exec("INSERT INTO t VALUES (4)");
  auto count = db_->Prepare("SELECT COUNT(*) FROM t");
  ASSERT_TRUE(count.Step());
  EXPECT_EQ(count.Int(0), 4);
}

// Descriptors this process has open on deleted files: SQLite's temporary files, such as a
// statement journal spilled to disk.
int OpenDeletedFiles() {
  int n = 0;
  for (const auto& fd : std::filesystem::directory_iterator("/proc/self/fd")) {
    std::error_code ec;
    const auto target = std::filesystem::read_symlink(fd.path(), ec).string();
    if (!ec && target.ends_with(" (deleted)")) ++n;
  }
  return n;
}

// Each turn of a group commit runs in a savepoint, whose statement journal holds the pages it
// changes; it must stay in memory, not cost two pwrites a page in a temporary file.
TEST_F(SqliteConnection, ASavepointsJournalStaysInMemory) {
  db_->Exec(
      "CREATE TABLE big(n INTEGER, pad BLOB); WITH RECURSIVE k(i) AS (SELECT 1 UNION ALL SELECT "
      "i + 1 FROM k WHERE i < 500) INSERT INTO big SELECT i, zeroblob(1000) FROM k;");
  auto journaled_files = [](sqlite::Connection& c) {
    c.Exec("BEGIN IMMEDIATE");
    for (int i = 0; i < 5; ++i)  // each savepoint changes all ~130 pages: ~0.5 MB of journal
      c.Exec("SAVEPOINT turn; UPDATE big SET n = n + 1; RELEASE turn;");
    const int open = OpenDeletedFiles();
    c.Exec("COMMIT");
    return open;
  };
  const int before = OpenDeletedFiles();
  EXPECT_EQ(journaled_files(*db_), before);
  // The control: with SQLite's default the same transaction spills its journal to a file.
  db_->Exec("PRAGMA temp_store=DEFAULT");
  EXPECT_GT(journaled_files(*db_), before);
}

// The WAL's size in frames of one page (its header aside).
std::uintmax_t WalFrames(const std::filesystem::path& db) {
  return std::filesystem::file_size(db.string() + "-wal") / (4096 + 24);
}

// Writes 600 transactions of 8 rows of a page each (about 6,000 frames with the table's inner
// pages) back to back, as the turn committer does under load, and returns the WAL's size after.
std::uintmax_t WalAfterBusyWriter(const std::filesystem::path& path, int checkpoint_pages) {
  sqlite::Connection db(path.string(), checkpoint_pages);
  db.Exec("CREATE TABLE pad(b BLOB)");
  for (int i = 0; i < 600; ++i) {
    sqlite::WriteTransaction tx(db);
    db.Exec(
        "WITH RECURSIVE k(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM k WHERE i < 8) INSERT INTO "
        "pad SELECT randomblob(3500) FROM k");
    tx.Commit();
  }
  auto rows = db.Prepare("SELECT COUNT(*) FROM pad");
  EXPECT_TRUE(rows.Step());
  EXPECT_EQ(rows.Int(0), 4800);
  return WalFrames(path);
}

// Commits do not checkpoint (SQLite's automatic checkpoint would, inside the commit that crosses
// its threshold); the checkpointer thread copies the WAL beside the writer, and a WAL copied whole
// is started over by the next write, so it does not grow with what was written. How far it grows
// meanwhile depends on when the machine runs the checkpointer's thread: about 1,000 frames on a
// quiet one, 2,835 once under the black-box suites' load. A WAL never started over holds all
// ~6,000 (the control below).
TEST_F(SqliteConnection, TheWalIsCheckpointedBesideABusyWriterAndStartedOver) {
  const auto other = path_.string() + "-busy";
  const auto frames = WalAfterBusyWriter(other, 64);
  EXPECT_LT(frames, 4000u) << "about 6,000 frames were written";
  // The control: a threshold never reached leaves every frame in the WAL. SQLite's own automatic
  // checkpoint is off, or it would have copied and restarted it past 1,000 pages.
  const auto never = path_.string() + "-never";
  EXPECT_GE(WalAfterBusyWriter(never, 1 << 30), 4800u);
  for (const auto& p : {other, never})
    for (const char* suffix : {"", "-wal", "-shm"}) std::filesystem::remove(p + suffix);
}

}  // namespace
}  // namespace agentgate::testing
