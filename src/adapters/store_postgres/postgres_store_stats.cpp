// The operator's overview: turns per day and their durations, spend per org, gateway calls.
#include "adapters/store_common/row_readers.hpp"
#include "adapters/store_postgres/postgres_store.hpp"
#include "ports/clock.hpp"

namespace agentgate {

using pg::Connection;
using pg::P;

Result<std::vector<DailyCount>> PostgresStore::CountTurnsPerDay(std::int64_t since_ms) {
  return pg::WithConnection(*pool_, [&](Connection& c) -> Result<std::vector<DailyCount>> {
    return c
        .Exec(
            "SELECT started_at_ms / $1 AS day, stop_reason, COUNT(*) FROM turns "
            "WHERE started_at_ms >= $2 GROUP BY day, stop_reason ORDER BY day, stop_reason",
            {P(kMsPerDay), P(since_ms)})
        .All(ReadDailyCount);
  });
}

Result<DurationPercentiles> PostgresStore::TurnDurationPercentiles(std::int64_t since_ms) {
  return pg::WithConnection(*pool_, [&](Connection& c) -> Result<DurationPercentiles> {
    // percentile_disc is the nearest rank, as on SQLite.
    auto r = c.Exec(
        "SELECT COUNT(*), COALESCE(percentile_disc(0.5) WITHIN GROUP (ORDER BY duration_ms), 0), "
        "COALESCE(percentile_disc(0.95) WITHIN GROUP (ORDER BY duration_ms), 0) FROM turns "
        "WHERE started_at_ms >= $1",
        {P(since_ms)});
    return DurationPercentiles{r.Int(0, 0), r.Int(0, 1), r.Int(0, 2)};
  });
}

Result<std::vector<OrgSpend>> PostgresStore::SpendPerOrg(const std::string& month) {
  return pg::WithConnection(*pool_, [&](Connection& c) -> Result<std::vector<OrgSpend>> {
    auto r = c.Exec(
        "SELECT org_id, SUM(settled_usd), SUM(reserved_usd) FROM spend_totals WHERE month = $1 "
        "GROUP BY org_id ORDER BY org_id",
        {P(month)});
    return r.All(ReadOrgSpend);
  });
}

Result<void> PostgresStore::AddGatewayCalls(
    std::int64_t day, const std::vector<std::pair<int, std::int64_t>>& calls) {
  return pg::WithConnection(*pool_, [&](Connection& c) -> Result<void> {
    pg::Transaction tx(c);
    for (const auto& [status, count] : calls) {
      c.Exec(
          "INSERT INTO gateway_calls_daily(day, status, calls) VALUES ($1, $2, $3) "
          "ON CONFLICT(day, status) DO UPDATE SET calls = gateway_calls_daily.calls + "
          "excluded.calls",
          {P(day), P(status), P(count)});
    }
    tx.Commit();
    return {};
  });
}

Result<std::vector<DailyCount>> PostgresStore::GatewayCallsPerDay(std::int64_t since_day) {
  return pg::WithConnection(*pool_, [&](Connection& c) -> Result<std::vector<DailyCount>> {
    return c
        .Exec(
            "SELECT day, status::text, calls FROM gateway_calls_daily WHERE day >= $1 ORDER BY "
            "day, status",
            {P(since_day)})
        .All(ReadDailyCount);
  });
}

Result<std::int64_t> PostgresStore::PurgeGatewayCalls(std::int64_t before_day) {
  return pg::WithConnection(*pool_, [&](Connection& c) -> Result<std::int64_t> {
    return c.Exec("DELETE FROM gateway_calls_daily WHERE day < $1", {P(before_day)}).Affected();
  });
}

}  // namespace agentgate
