#include "adapters/store_common/row_readers.hpp"
#include "adapters/store_common/spend_rules.hpp"
#include "adapters/store_postgres/postgres_store.hpp"

#include "domain/governance/decisions.hpp"

#include <optional>
#include <set>

namespace agentgate {

using pg::Connection;
using pg::P;

Result<IdempotencyClaim> PostgresStore::ClaimIdempotencyKey(const IdempotencyScope& k,
                                                            const std::string& fingerprint,
                                                            std::int64_t now_ms,
                                                            std::int64_t stale_after_ms,
                                                            const std::string& server_id) {
  return pg::WithConnection(*pool_, [&](Connection& c) -> Result<IdempotencyClaim> {
    pg::Transaction tx(c, "idempotency:" + k.org_id + "\n" + k.env + "\n" + k.key);
    static const std::string read =
        std::string("SELECT ") + kStoredKeyColumns +
        " FROM idempotency_keys WHERE org_id = $1 AND env = $2 AND key = $3";
    const auto stored = c.Exec(read, {P(k.org_id), P(k.env), P(k.key)}).One(ReadStoredKey);
    auto claim = governance::JudgeIdempotencyClaim(stored, fingerprint, now_ms, stale_after_ms);
    if (claim.outcome != IdempotencyClaim::Outcome::kClaimed) return claim;
    c.Exec(
        "INSERT INTO idempotency_keys(org_id, env, key, fingerprint, state, claimed_at_ms, "
        "server_id) VALUES ($1, $2, $3, $4, 'running', $5, $6) ON CONFLICT (org_id, env, key) DO "
        "UPDATE SET fingerprint = excluded.fingerprint, state = 'running', status = 0, body = '', "
        "claimed_at_ms = excluded.claimed_at_ms, expires_at_ms = 0, server_id = "
        "excluded.server_id",
        {P(k.org_id), P(k.env), P(k.key), P(fingerprint), P(now_ms), P(server_id)});
    tx.Commit();
    return claim;
  });
}

bool CompleteIdempotencyKey(Connection& c, const IdempotencyCompletion& done) {
  return c.Exec(
              "UPDATE idempotency_keys SET state = 'completed', status = $1, body = $2, "
              "expires_at_ms = $3 WHERE org_id = $4 AND env = $5 AND key = $6 AND state = "
              "'running' AND claimed_at_ms = $7",
              {P(done.status), P(done.body), P(done.expires_at_ms), P(done.scope.org_id),
               P(done.scope.env), P(done.scope.key), P(done.claimed_at_ms)})
             .Affected() > 0;
}

Result<void> PostgresStore::ReleaseIdempotencyKey(const IdempotencyScope& k,
                                                  std::int64_t claimed_at_ms) {
  return pg::WithConnection(*pool_, [&](Connection& c) -> Result<void> {
    c.Exec(
        "DELETE FROM idempotency_keys WHERE org_id = $1 AND env = $2 AND key = $3 AND state = "
        "'running' AND claimed_at_ms = $4",
        {P(k.org_id), P(k.env), P(k.key), P(claimed_at_ms)});
    return {};
  });
}

Result<std::int64_t> PostgresStore::PurgeIdempotencyKeys(std::int64_t now_ms) {
  return pg::WithConnection(*pool_, [&](Connection& c) -> Result<std::int64_t> {
    return c
        .Exec("DELETE FROM idempotency_keys WHERE state = 'completed' AND expires_at_ms <= $1",
              {P(now_ms)})
        .Affected();
  });
}

Result<CallWindowDecision> PostgresStore::RecordConversationCall(const std::string& conversation_id,
                                                                 std::int64_t now_ms,
                                                                 std::int64_t window_ms,
                                                                 int limit) {
  return pg::WithConnection(*pool_, [&](Connection& c) -> Result<CallWindowDecision> {
    pg::Transaction tx(c, "window:" + conversation_id);
    c.Exec("DELETE FROM conversation_calls WHERE conversation_id = $1 AND at_ms <= $2",
           {P(conversation_id), P(governance::WindowCutoff(now_ms, window_ms))});
    const auto window = c.Exec(
        "SELECT COUNT(*), COALESCE(MIN(at_ms), 0) FROM conversation_calls WHERE conversation_id = "
        "$1",
        {P(conversation_id)});
    const auto decision =
        governance::JudgeCallWindow(window.Int(0, 0), window.Int(0, 1), window_ms, limit, now_ms);
    if (decision.allowed) {
      c.Exec("INSERT INTO conversation_calls(conversation_id, at_ms) VALUES ($1, $2)",
             {P(conversation_id), P(now_ms)});
    }
    tx.Commit();  // a refused call keeps the clean-up too
    return decision;
  });
}

std::string SpendLockKey(const std::string& org_id, const std::string& month) {
  return "spend:" + org_id + "\n" + month;
}

namespace {

// The spend rows of one transaction holding the (org, month)'s spend lock.
class PostgresSpendRows final : public SpendRows {
 public:
  explicit PostgresSpendRows(Connection& c) : c_(c) {}

  std::optional<double> OrgLimit(const std::string& org_id) override {
    return c_.Exec("SELECT monthly_spend_limit_usd FROM orgs WHERE id = $1", {P(org_id)})
        .One([](const RowView& row) { return row.OptionalDouble(0); })
        .value_or(std::nullopt);
  }
  double Spent(const std::string& org_id, const std::string& month,
               const std::string* agent_id) override {
    return agent_id == nullptr
               ? c_.Exec(
                       "SELECT COALESCE(SUM(settled_usd + reserved_usd), 0) FROM spend_totals "
                       "WHERE org_id = $1 AND month = $2",
                       {P(org_id), P(month)})
                     .Double(0, 0)
               : c_.Exec(
                       "SELECT COALESCE(SUM(settled_usd + reserved_usd), 0) FROM spend_totals "
                       "WHERE org_id = $1 AND month = $2 AND agent_id = $3",
                       {P(org_id), P(month), P(*agent_id)})
                     .Double(0, 0);
  }
  void InsertReservation(const std::string& id, const SpendReservationRequest& r,
                         double amount_usd) override {
    c_.Exec(
        "INSERT INTO spend_reservations(id, org_id, agent_id, month, amount_usd, created_at_ms, "
        "server_id) VALUES ($1, $2, $3, $4, $5, $6, $7)",
        {P(id), P(r.org_id), P(r.agent_id), P(r.month), P(amount_usd), P(r.now_ms),
         P(r.server_id)});
  }
  void AddReserved(const SpendAccount& account, double amount_usd) override {
    const auto& [org_id, agent_id, month] = account;
    c_.Exec(
        "INSERT INTO spend_totals(org_id, agent_id, month, reserved_usd) VALUES ($1, $2, $3, $4) "
        "ON CONFLICT (org_id, agent_id, month) DO UPDATE SET reserved_usd = "
        "spend_totals.reserved_usd + excluded.reserved_usd",
        {P(org_id), P(agent_id), P(month), P(amount_usd)});
  }

 private:
  Connection& c_;
};

// Takes `amount_usd` off reservation `id`; its account, or nothing when it is gone.
std::optional<SpendAccount> TakeOffReservation(Connection& c, const std::string& id,
                                               double amount_usd) {
  auto taken = c.Exec(
      "UPDATE spend_reservations SET amount_usd = GREATEST(0, amount_usd - $1) WHERE id = $2 "
      "RETURNING org_id, agent_id, month",
      {P(amount_usd), P(id)});
  if (taken.empty()) return std::nullopt;
  return SpendAccount{taken.Text(0, 0), taken.Text(0, 1), taken.Text(0, 2)};
}

// One update of an account's totals (one round trip). Reserved totals are rounded to a billionth
// of a dollar, so the sums and differences of many parts leave 0, not a rounding residue, once
// everything is settled or given back.
void ChangeTotals(Connection& c, const SpendAccount& account, const AccountChange& change) {
  const auto& [org_id, agent_id, month] = account;
  c.Exec(
      "UPDATE spend_totals SET settled_usd = settled_usd + $1, input_tokens = input_tokens + $2, "
      "output_tokens = output_tokens + $3, model_calls = model_calls + $4, reserved_usd = CASE "
      "WHEN $5::double precision IS NULL THEN reserved_usd ELSE GREATEST(0, ROUND((reserved_usd - "
      "$5)::numeric, 9)) END WHERE org_id = $6 AND agent_id = $7 AND month = $8",
      {P(change.settled_usd), P(change.input_tokens), P(change.output_tokens), P(change.calls),
       P(change.unreserved_usd), P(org_id), P(agent_id), P(month)});
}

// Deletes the reservations `where` selects and takes what was left of them off their accounts,
// under the spend locks of every (org, month) they belong to. Returns how many.
std::int64_t ReleaseReservations(Connection& c, const std::string& where,
                                 const std::vector<pg::Param>& params) {
  auto owners =
      c.Exec("SELECT DISTINCT org_id, month FROM spend_reservations WHERE " + where, params);
  std::set<std::string> locks;
  for (int i = 0; i < owners.size(); ++i)
    locks.insert(SpendLockKey(owners.Text(i, 0), owners.Text(i, 1)));
  pg::Transaction tx(c, std::vector<std::string>(locks.begin(), locks.end()));
  auto gone = c.Exec("DELETE FROM spend_reservations WHERE " + where +
                         " RETURNING org_id, agent_id, month, amount_usd",
                     params);
  ReleasedReservations released;
  for (int i = 0; i < gone.size(); ++i)
    released.emplace_back(SpendAccount{gone.Text(i, 0), gone.Text(i, 1), gone.Text(i, 2)},
                          gone.Double(i, 3));
  Unreserve(released, [&](const SpendAccount& account, const AccountChange& change) {
    ChangeTotals(c, account, change);
  });
  tx.Commit();
  return static_cast<std::int64_t>(released.size());
}

}  // namespace

Result<SpendDecision> PostgresStore::ReserveSpend(const SpendReservationRequest& r) {
  return pg::WithConnection(*pool_, [&](Connection& c) -> Result<SpendDecision> {
    // Every reservation of an org in a month is decided one at a time (both limits involve the
    // org).
    pg::Transaction tx(c, SpendLockKey(r.org_id, r.month));
    PostgresSpendRows rows(c);
    const SpendDecision decision = ReserveSpendIn(rows, r);
    if (decision.reserved) tx.Commit();
    return decision;
  });
}

std::set<std::string> LiveReservations(Connection& c, const std::vector<std::string>& ids) {
  std::set<std::string> live;
  if (ids.empty()) return live;
  std::vector<pg::Param> array;
  array.reserve(ids.size());
  for (const auto& id : ids) array.push_back(P(id));
  auto rows =
      c.Exec("SELECT id FROM spend_reservations WHERE id = ANY($1::text[])", {pg::ArrayOf(array)});
  for (int i = 0; i < rows.size(); ++i) live.insert(rows.Text(i, 0));
  return live;
}

void SettleSpendIn(Connection& c, const std::vector<const SpendSettlement*>& settlements) {
  SettleBatch(
      settlements,
      [&](const std::string& id, double usd) { return TakeOffReservation(c, id, usd); },
      [&](const SpendAccount& account, const AccountChange& change) {
        ChangeTotals(c, account, change);
      });
}

Result<void> PostgresStore::ReleaseSpend(const std::vector<std::string>& reservation_ids) {
  return pg::WithConnection(*pool_, [&](Connection& c) -> Result<void> {
    for (const auto& id : reservation_ids) ReleaseReservations(c, "id = $1", {P(id)});
    return {};
  });
}

Result<void> PostgresStore::ReturnSpend(const std::string& reservation_id, double amount_usd) {
  return pg::WithConnection(*pool_, [&](Connection& c) -> Result<void> {
    // Under its (org, month)'s spend lock, as commits settle, so the two never deadlock.
    auto owner =
        c.Exec("SELECT org_id, month FROM spend_reservations WHERE id = $1", {P(reservation_id)});
    if (owner.empty()) return {};
    pg::Transaction tx(c, SpendLockKey(owner.Text(0, 0), owner.Text(0, 1)));
    if (auto account = TakeOffReservation(c, reservation_id, amount_usd))
      ChangeTotals(c, *account, Unreserving(amount_usd));
    tx.Commit();
    return {};
  });
}

Result<std::int64_t> PostgresStore::ReleaseSpendReservations(std::int64_t created_before_ms) {
  return pg::WithConnection(*pool_, [&](Connection& c) -> Result<std::int64_t> {
    return ReleaseReservations(c, "created_at_ms < $1", {P(created_before_ms)});
  });
}

Result<std::vector<UsageRow>> PostgresStore::GetUsage(const std::string& org_id,
                                                      const std::string& month) {
  return pg::WithConnection(*pool_, [&](Connection& c) -> Result<std::vector<UsageRow>> {
    static const std::string sql = std::string("SELECT ") + kUsageColumns +
                                   " FROM spend_totals WHERE org_id = $1 AND month = $2 ORDER BY "
                                   "agent_id";
    return c.Exec(sql, {P(org_id), P(month)}).All(ReadUsage);
  });
}

Result<bool> PostgresStore::RenewServerLease(const std::string& server_id, std::int64_t now_ms,
                                             std::int64_t until_ms) {
  return pg::WithConnection(*pool_, [&](Connection& c) -> Result<bool> {
    // A server whose lease is being released waits for that on its row, then finds it gone.
    const bool live =
        c.Exec("UPDATE servers SET lease_until_ms = $1 WHERE id = $2 AND lease_until_ms >= $3",
               {P(until_ms), P(server_id), P(now_ms)})
            .Affected() > 0;
    if (!live) {
      c.Exec(
          "INSERT INTO servers(id, started_at_ms, lease_until_ms) VALUES ($1, $2, $3) ON CONFLICT "
          "(id) DO UPDATE SET lease_until_ms = excluded.lease_until_ms",
          {P(server_id), P(now_ms), P(until_ms)});
    }
    return live;
  });
}

namespace {

// Frees what servers `ids` held (their leases lapsed), then their leases, unless renewed since.
std::int64_t ReleaseServers(Connection& c, const std::vector<std::string>& ids,
                            std::int64_t lapsed_before_ms, std::int64_t now_ms) {
  if (ids.empty()) return 0;
  std::vector<pg::Param> list;
  for (const auto& id : ids) list.push_back(P(id));
  const pg::Param servers = pg::ArrayOf(list);
  {
    pg::Transaction tx(c);
    InterruptRunsOf(c, servers, now_ms);
    c.Exec("DELETE FROM conversation_turn_queue WHERE server_id = ANY($1::text[])", {servers});
    c.Exec("DELETE FROM idempotency_keys WHERE state = 'running' AND server_id = ANY($1::text[])",
           {servers});
    tx.Commit();
  }
  ReleaseReservations(c, "server_id = ANY($1::text[])", {servers});
  return c
      .Exec("DELETE FROM servers WHERE id = ANY($1::text[]) AND lease_until_ms < $2",
            {servers, P(lapsed_before_ms)})
      .Affected();
}

}  // namespace

Result<std::int64_t> PostgresStore::ReleaseLapsedServers(std::int64_t now_ms) {
  return pg::WithConnection(*pool_, [&](Connection& c) -> Result<std::int64_t> {
    const auto lapsed = c.Exec("SELECT id FROM servers WHERE lease_until_ms < $1", {P(now_ms)})
                            .All([](const RowView& row) { return row.Text(0); });
    return ReleaseServers(c, lapsed, now_ms, now_ms);
  });
}

Result<void> PostgresStore::EndServerLease(const std::string& server_id, std::int64_t now_ms) {
  return pg::WithConnection(*pool_, [&](Connection& c) -> Result<void> {
    // Ended before any time (-1): released as lapsed.
    c.Exec("UPDATE servers SET lease_until_ms = -1 WHERE id = $1", {P(server_id)});
    ReleaseServers(c, {server_id}, 0, now_ms);
    return {};
  });
}

}  // namespace agentgate
