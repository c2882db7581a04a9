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
    first.Bind(1, 1);
    ASSERT_TRUE(first.Step());
    EXPECT_EQ(first.Int(0), 2);  // dropped mid-result
  }
  {
    auto unbound = db_->Prepare(kAbove);
    EXPECT_FALSE(unbound.Step()) << "the previous binding was kept (n > NULL matches no row)";
  }
  auto again = db_->Prepare(kAbove);
  again.Bind(1, 0);
  ASSERT_TRUE(again.Step());
  EXPECT_EQ(again.Int(0), 1);  // from the first row, not where the dropped one stopped
}

TEST_F(SqliteConnection, TheSameSqlOpenTwiceGetsTwoStatements) {
  auto outer = db_->Prepare(kAbove);
  outer.Bind(1, 0);
  int pairs = 0;
  while (outer.Step()) {
    auto inner = db_->Prepare(kAbove);
    inner.Bind(1, outer.Int(0));
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

}  // namespace
}  // namespace agentgate::testing
