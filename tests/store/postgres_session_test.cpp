// PostgreSQL session handling below the store interface, against a real server.
#include "adapters/store_postgres/pg_db.hpp"
#include "store/store_backends.hpp"

#include <gtest/gtest.h>

namespace agentgate::testing {
namespace {

TEST(PostgresTransaction, ALockThatCannotBeTakenLeavesNoTransactionOpen) {
  if (!PostgresBackend::Available())
    GTEST_SKIP() << "no PostgreSQL: set AGENTGATE_TEST_POSTGRES_URL (make test does)";
  pg::Connection holder(PostgresBackend::Url());
  pg::Connection waiter(PostgresBackend::Url());
  pg::Transaction held(holder, "session-test:key");
  waiter.Exec("SET lock_timeout = '50ms'");
  EXPECT_THROW(pg::Transaction(waiter, "session-test:key"), pg::PgError);
  // Left inside the aborted transaction, every later statement on this pooled connection fails.
  EXPECT_EQ(waiter.Exec("SELECT 1").Int(0, 0), 1);
  EXPECT_NO_THROW(pg::Transaction(waiter, "session-test:other").Commit());
}

}  // namespace
}  // namespace agentgate::testing
