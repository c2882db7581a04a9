// The operator's overview: turns per day and their durations, spend per org, gateway calls.
#include "adapters/store_common/row_readers.hpp"
#include "adapters/store_sqlite/sqlite_store.hpp"
#include "domain/nearest_rank.hpp"
#include "ports/clock.hpp"

namespace agentgate {

using sqlite::Connection;

Result<std::vector<DailyCount>> SqliteStore::CountTurnsPerDay(std::int64_t since_ms) {
  return sqlite::WithConnection(*pool_, [&](Connection& c) -> Result<std::vector<DailyCount>> {
    auto s = c.Prepare(
        "SELECT started_at_ms / ? AS day, stop_reason, COUNT(*) FROM turns "
        "WHERE started_at_ms >= ? GROUP BY day, stop_reason ORDER BY day, stop_reason");
    return s.Bind(kMsPerDay, since_ms).All(ReadDailyCount);
  });
}

Result<DurationPercentiles> SqliteStore::TurnDurationPercentiles(std::int64_t since_ms) {
  return sqlite::WithConnection(*pool_, [&](Connection& c) -> Result<DurationPercentiles> {
    DurationPercentiles out;
    {
      auto count = c.Prepare("SELECT COUNT(*) FROM turns WHERE started_at_ms >= ?");
      count.Bind(since_ms).Step();
      out.turns = count.Int(0);
    }
    const auto rank = [&](double q) -> std::int64_t {
      auto s = c.Prepare(
          "SELECT duration_ms FROM turns WHERE started_at_ms >= ? ORDER BY duration_ms "
          "LIMIT 1 OFFSET ?");
      s.Bind(since_ms, NearestRankIndex(q, out.turns));
      return s.Step() ? s.Int(0) : 0;
    };
    if (out.turns > 0) {
      out.p50_ms = rank(0.5);
      out.p95_ms = rank(0.95);
    }
    return out;
  });
}

Result<std::vector<OrgSpend>> SqliteStore::SpendPerOrg(const std::string& month) {
  return sqlite::WithConnection(*pool_, [&](Connection& c) -> Result<std::vector<OrgSpend>> {
    auto s = c.Prepare(
        "SELECT org_id, SUM(settled_usd), SUM(reserved_usd) FROM spend_totals WHERE month = ? "
        "GROUP BY org_id ORDER BY org_id");
    return s.Bind(month).All(ReadOrgSpend);
  });
}

Result<void> SqliteStore::AddGatewayCalls(std::int64_t day,
                                          const std::vector<std::pair<int, std::int64_t>>& calls) {
  return sqlite::WithConnection(*pool_, [&](Connection& c) -> Result<void> {
    sqlite::WriteTransaction tx(c);
    for (const auto& [status, count] : calls) {
      c.Prepare(
           "INSERT INTO gateway_calls_daily(day, status, calls) VALUES (?, ?, ?) "
           "ON CONFLICT(day, status) DO UPDATE SET calls = calls + excluded.calls")
          .Bind(day, status, count)
          .Run();
    }
    tx.Commit();
    return {};
  });
}

Result<std::vector<DailyCount>> SqliteStore::GatewayCallsPerDay(std::int64_t since_day) {
  return sqlite::WithConnection(*pool_, [&](Connection& c) -> Result<std::vector<DailyCount>> {
    auto s = c.Prepare(
        "SELECT day, CAST(status AS TEXT), calls FROM gateway_calls_daily WHERE day >= ? "
        "ORDER BY day, status");
    return s.Bind(since_day).All(ReadDailyCount);
  });
}

Result<std::int64_t> SqliteStore::PurgeGatewayCalls(std::int64_t before_day) {
  return sqlite::WithConnection(*pool_, [&](Connection& c) -> Result<std::int64_t> {
    c.Prepare("DELETE FROM gateway_calls_daily WHERE day < ?").Bind(before_day).Run();
    return static_cast<std::int64_t>(c.Changes());
  });
}

}  // namespace agentgate
