#include "adapters/store_common/row_readers.hpp"
#include "adapters/store_common/spend_rules.hpp"
#include "adapters/store_sqlite/sqlite_store.hpp"

#include "domain/governance/decisions.hpp"

#include <optional>

namespace agentgate {

using sqlite::Connection;

Result<IdempotencyClaim> SqliteStore::ClaimIdempotencyKey(const IdempotencyScope& k,
                                                          const std::string& fingerprint,
                                                          std::int64_t now_ms,
                                                          std::int64_t stale_after_ms,
                                                          const std::string& server_id) {
  return sqlite::WithConnection(*pool_, [&](Connection& c) -> Result<IdempotencyClaim> {
    sqlite::WriteTransaction tx(c);
    static const std::string read =
        std::string("SELECT ") + kStoredKeyColumns +
        " FROM idempotency_keys WHERE org_id = ? AND env = ? AND key = ?";
    const auto stored = c.Prepare(read).Bind(k.org_id, k.env, k.key).One(ReadStoredKey);
    auto claim = governance::JudgeIdempotencyClaim(stored, fingerprint, now_ms, stale_after_ms);
    if (claim.outcome != IdempotencyClaim::Outcome::kClaimed) return claim;
    c.Prepare(
         "INSERT INTO idempotency_keys(org_id, env, key, fingerprint, state, claimed_at_ms, "
         "server_id) VALUES (?, ?, ?, ?, 'running', ?, ?) ON CONFLICT(org_id, env, key) DO UPDATE "
         "SET fingerprint = excluded.fingerprint, state = 'running', status = 0, body = '', "
         "claimed_at_ms = excluded.claimed_at_ms, expires_at_ms = 0, server_id = "
         "excluded.server_id")
        .Bind(k.org_id, k.env, k.key, fingerprint, now_ms, server_id)
        .Run();
    tx.Commit();
    return claim;
  });
}

bool CompleteIdempotencyKey(Connection& c, const IdempotencyCompletion& done) {
  c.Prepare(
       "UPDATE idempotency_keys SET state = 'completed', status = ?, body = ?, expires_at_ms = ? "
       "WHERE org_id = ? AND env = ? AND key = ? AND state = 'running' AND claimed_at_ms = ?")
      .Bind(done.status, done.body, done.expires_at_ms, done.scope.org_id, done.scope.env,
            done.scope.key, done.claimed_at_ms)
      .Run();
  return c.Changes() > 0;
}

Result<void> SqliteStore::ReleaseIdempotencyKey(const IdempotencyScope& k,
                                                std::int64_t claimed_at_ms) {
  return sqlite::WithConnection(*pool_, [&](Connection& c) -> Result<void> {
    c.Prepare(
         "DELETE FROM idempotency_keys WHERE org_id = ? AND env = ? AND key = ? AND state = "
         "'running' AND claimed_at_ms = ?")
        .Bind(k.org_id, k.env, k.key, claimed_at_ms)
        .Run();
    return {};
  });
}

Result<std::int64_t> SqliteStore::PurgeIdempotencyKeys(std::int64_t now_ms) {
  return sqlite::WithConnection(*pool_, [&](Connection& c) -> Result<std::int64_t> {
    c.Prepare("DELETE FROM idempotency_keys WHERE state = 'completed' AND expires_at_ms <= ?")
        .Bind(now_ms)
        .Run();
    return c.Changes();
  });
}

Result<CallWindowDecision> SqliteStore::RecordConversationCall(const std::string& conversation_id,
                                                               std::int64_t now_ms,
                                                               std::int64_t window_ms, int limit) {
  return sqlite::WithConnection(*pool_, [&](Connection& c) -> Result<CallWindowDecision> {
    sqlite::WriteTransaction tx(c);
    c.Prepare("DELETE FROM conversation_calls WHERE conversation_id = ? AND at_ms <= ?")
        .Bind(conversation_id, governance::WindowCutoff(now_ms, window_ms))
        .Run();
    auto window = c.Prepare(
        "SELECT COUNT(*), COALESCE(MIN(at_ms), 0) FROM conversation_calls WHERE conversation_id "
        "= ?");
    window.Bind(conversation_id).Step();
    const auto decision =
        governance::JudgeCallWindow(window.Int(0), window.Int(1), window_ms, limit, now_ms);
    if (decision.allowed) {
      c.Prepare("INSERT INTO conversation_calls(conversation_id, at_ms) VALUES (?, ?)")
          .Bind(conversation_id, now_ms)
          .Run();
    }
    tx.Commit();  // a refused call keeps the clean-up too
    return decision;
  });
}

namespace {

// The spend rows of one write transaction.
class SqliteSpendRows final : public SpendRows {
 public:
  explicit SqliteSpendRows(Connection& c) : c_(c) {}

  std::optional<double> OrgLimit(const std::string& org_id) override {
    return c_.Prepare("SELECT monthly_spend_limit_usd FROM orgs WHERE id = ?")
        .Bind(org_id)
        .One([](const RowView& row) { return row.OptionalDouble(0); })
        .value_or(std::nullopt);
  }
  double Spent(const std::string& org_id, const std::string& month,
               const std::string* agent_id) override {
    auto s = c_.Prepare(agent_id == nullptr
                            ? "SELECT COALESCE(SUM(settled_usd + reserved_usd), 0) FROM "
                              "spend_totals WHERE org_id = ? AND month = ?"
                            : "SELECT COALESCE(SUM(settled_usd + reserved_usd), 0) FROM "
                              "spend_totals WHERE org_id = ? AND month = ? AND agent_id = ?");
    s.Bind(org_id, month);
    if (agent_id != nullptr) s.BindAt(3, *agent_id);
    s.Step();
    return s.Double(0);
  }
  void InsertReservation(const std::string& id, const SpendReservationRequest& r,
                         double amount_usd) override {
    c_.Prepare(
          "INSERT INTO spend_reservations(id, org_id, agent_id, month, amount_usd, created_at_ms, "
          "server_id) VALUES (?, ?, ?, ?, ?, ?, ?)")
        .Bind(id, r.org_id, r.agent_id, r.month, amount_usd, r.now_ms, r.server_id)
        .Run();
  }
  void AddReserved(const SpendAccount& account, double amount_usd) override {
    const auto& [org_id, agent_id, month] = account;
    c_.Prepare(
          "INSERT INTO spend_totals(org_id, agent_id, month, reserved_usd) VALUES (?, ?, ?, ?) "
          "ON CONFLICT(org_id, agent_id, month) DO UPDATE SET reserved_usd = reserved_usd + "
          "excluded.reserved_usd")
        .Bind(org_id, agent_id, month, amount_usd)
        .Run();
  }

 private:
  Connection& c_;
};

// Takes `amount_usd` off reservation `id`; its account, or nothing when it is gone.
std::optional<SpendAccount> TakeOffReservation(Connection& c, const std::string& id,
                                               double amount_usd) {
  // A read, then an update by key: UPDATE ... RETURNING would gather its one row in a temporary
  // table, opened and freed on every turn's commit.
  std::optional<SpendAccount> account;
  {
    auto found = c.Prepare("SELECT org_id, agent_id, month FROM spend_reservations WHERE id = ?");
    found.Bind(id);
    if (!found.Step()) return std::nullopt;
    account = SpendAccount{found.Text(0), found.Text(1), found.Text(2)};
  }
  c.Prepare("UPDATE spend_reservations SET amount_usd = MAX(0, amount_usd - ?) WHERE id = ?")
      .Bind(amount_usd, id)
      .Run();
  return account;
}

// One update of an account's totals. Reserved totals are rounded to a billionth of a dollar, so
// the sums and differences of many parts leave 0, not a rounding residue, once everything is
// settled or given back.
void ChangeTotals(Connection& c, const SpendAccount& account, const AccountChange& change) {
  const auto& [org_id, agent_id, month] = account;
  c.Prepare(
       "UPDATE spend_totals SET settled_usd = settled_usd + ?1, input_tokens = input_tokens + ?2, "
       "output_tokens = output_tokens + ?3, model_calls = model_calls + ?4, reserved_usd = CASE "
       "WHEN ?5 IS NULL THEN reserved_usd ELSE MAX(0, ROUND(reserved_usd - ?5, 9)) END WHERE "
       "org_id = ?6 AND agent_id = ?7 AND month = ?8")
      .Bind(change.settled_usd, change.input_tokens, change.output_tokens, change.calls,
            change.unreserved_usd, org_id, agent_id, month)
      .Run();
}

// Deletes the reservations `where` selects (its one parameter bound to `value`) and takes what
// was left of them off their accounts; how many.
template <class Value>
std::int64_t ReleaseReservations(Connection& c, const std::string& where, const Value& value) {
  ReleasedReservations released;
  {
    auto gone = c.Prepare("DELETE FROM spend_reservations WHERE " + where +
                          " RETURNING org_id, agent_id, month, amount_usd");
    gone.Bind(value);
    while (gone.Step())
      released.emplace_back(SpendAccount{gone.Text(0), gone.Text(1), gone.Text(2)}, gone.Double(3));
  }
  Unreserve(released, [&](const SpendAccount& account, const AccountChange& change) {
    ChangeTotals(c, account, change);
  });
  return static_cast<std::int64_t>(released.size());
}

}  // namespace

Result<SpendDecision> SqliteStore::ReserveSpend(const SpendReservationRequest& r) {
  return sqlite::WithConnection(*pool_, [&](Connection& c) -> Result<SpendDecision> {
    sqlite::WriteTransaction tx(c);
    SqliteSpendRows rows(c);
    const SpendDecision decision = ReserveSpendIn(rows, r);
    if (decision.reserved) tx.Commit();
    return decision;
  });
}

bool ReservationExists(Connection& c, const std::string& id) {
  return c.Prepare("SELECT 1 FROM spend_reservations WHERE id = ?").Bind(id).Step();
}

void SettleSpendIn(Connection& c, const std::vector<const SpendSettlement*>& settlements) {
  SettleBatch(
      settlements,
      [&](const std::string& id, double usd) { return TakeOffReservation(c, id, usd); },
      [&](const SpendAccount& account, const AccountChange& change) {
        ChangeTotals(c, account, change);
      });
}

Result<void> SqliteStore::ReturnSpend(const std::string& reservation_id, double amount_usd) {
  return sqlite::WithConnection(*pool_, [&](Connection& c) -> Result<void> {
    sqlite::WriteTransaction tx(c);
    if (auto account = TakeOffReservation(c, reservation_id, amount_usd))
      ChangeTotals(c, *account, Unreserving(amount_usd));
    tx.Commit();
    return {};
  });
}

Result<void> SqliteStore::ReleaseSpend(const std::vector<std::string>& reservation_ids) {
  return sqlite::WithConnection(*pool_, [&](Connection& c) -> Result<void> {
    sqlite::WriteTransaction tx(c);
    for (const auto& id : reservation_ids) ReleaseReservations(c, "id = ?", id);
    tx.Commit();
    return {};
  });
}

Result<std::int64_t> SqliteStore::ReleaseSpendReservations(std::int64_t created_before_ms) {
  return sqlite::WithConnection(*pool_, [&](Connection& c) -> Result<std::int64_t> {
    sqlite::WriteTransaction tx(c);
    const std::int64_t released = ReleaseReservations(c, "created_at_ms < ?", created_before_ms);
    tx.Commit();
    return released;
  });
}

Result<std::vector<UsageRow>> SqliteStore::GetUsage(const std::string& org_id,
                                                    const std::string& month) {
  return sqlite::WithConnection(*pool_, [&](Connection& c) -> Result<std::vector<UsageRow>> {
    static const std::string sql = std::string("SELECT ") + kUsageColumns +
                                   " FROM spend_totals WHERE org_id = ? AND month = ? ORDER BY "
                                   "agent_id";
    return c.Prepare(sql).Bind(org_id, month).All(ReadUsage);
  });
}

Result<bool> SqliteStore::RenewServerLease(const std::string& server_id, std::int64_t now_ms,
                                           std::int64_t until_ms) {
  return sqlite::WithConnection(*pool_, [&](Connection& c) -> Result<bool> {
    sqlite::WriteTransaction tx(c);
    c.Prepare("UPDATE servers SET lease_until_ms = ? WHERE id = ? AND lease_until_ms >= ?")
        .Bind(until_ms, server_id, now_ms)
        .Run();
    const bool live = c.Changes() > 0;
    if (!live) {
      c.Prepare(
           "INSERT INTO servers(id, started_at_ms, lease_until_ms) VALUES (?, ?, ?) ON "
           "CONFLICT(id) DO UPDATE SET lease_until_ms = excluded.lease_until_ms")
          .Bind(server_id, now_ms, until_ms)
          .Run();
    }
    tx.Commit();
    return live;
  });
}

namespace {

// Inside a write transaction: frees what the servers whose lease ended before `lapsed_before_ms`
// held (their runs end at `now_ms`), then their leases.
std::int64_t ReleaseLapsed(Connection& c, std::int64_t lapsed_before_ms, std::int64_t now_ms) {
  constexpr const char* kLapsed = "server_id IN (SELECT id FROM servers WHERE lease_until_ms < ?)";
  InterruptRunsOfLapsedServers(c, lapsed_before_ms, now_ms);
  c.Prepare(std::string("DELETE FROM conversation_turn_queue WHERE ") + kLapsed)
      .Bind(lapsed_before_ms)
      .Run();
  c.Prepare(std::string("DELETE FROM idempotency_keys WHERE state = 'running' AND ") + kLapsed)
      .Bind(lapsed_before_ms)
      .Run();
  ReleaseReservations(c, kLapsed, lapsed_before_ms);
  c.Prepare("DELETE FROM servers WHERE lease_until_ms < ?").Bind(lapsed_before_ms).Run();
  return c.Changes();
}

}  // namespace

Result<std::int64_t> SqliteStore::ReleaseLapsedServers(std::int64_t now_ms) {
  return sqlite::WithConnection(*pool_, [&](Connection& c) -> Result<std::int64_t> {
    {
      // Most passes find none: a read first, so they take no write lock.
      auto any = c.Prepare("SELECT 1 FROM servers WHERE lease_until_ms < ? LIMIT 1");
      if (!any.Bind(now_ms).Step()) return std::int64_t{0};
    }
    sqlite::WriteTransaction tx(c);
    const std::int64_t released = ReleaseLapsed(c, now_ms, now_ms);
    tx.Commit();
    return released;
  });
}

Result<void> SqliteStore::EndServerLease(const std::string& server_id, std::int64_t now_ms) {
  return sqlite::WithConnection(*pool_, [&](Connection& c) -> Result<void> {
    sqlite::WriteTransaction tx(c);
    // Ended before any time (-1): released as lapsed, and no live server's lease is.
    c.Prepare("UPDATE servers SET lease_until_ms = -1 WHERE id = ?").Bind(server_id).Run();
    ReleaseLapsed(c, 0, now_ms);
    tx.Commit();
    return {};
  });
}

}  // namespace agentgate
