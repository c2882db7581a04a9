#include "adapters/store_common/settlement_sums.hpp"
#include "adapters/store_postgres/postgres_store.hpp"

#include "crypto/crypto.hpp"
#include "domain/governance/governance.hpp"

#include <optional>
#include <set>

namespace agentgate {

using pg::Connection;
using pg::P;

Result<IdempotencyClaim> PostgresStore::ClaimIdempotencyKey(const IdempotencyScope& k,
                                                            const std::string& fingerprint,
                                                            std::int64_t now_ms,
                                                            std::int64_t stale_after_ms) {
  return pg::WithConnection(*pool_, [&](Connection& c) -> Result<IdempotencyClaim> {
    using Outcome = IdempotencyClaim::Outcome;
    pg::Transaction tx(c, "idempotency:" + k.org_id + "\n" + k.env + "\n" + k.key);
    auto r = c.Exec(
        "SELECT fingerprint, state, status, body, claimed_at_ms, expires_at_ms FROM "
        "idempotency_keys "
        "WHERE org_id = $1 AND env = $2 AND key = $3",
        {P(k.org_id), P(k.env), P(k.key)});
    if (!r.empty()) {
      const bool completed = r.Text(0, 1) == "completed";
      const bool expired =
          completed ? r.Int(0, 5) <= now_ms : r.Int(0, 4) + stale_after_ms <= now_ms;
      if (!expired) {
        if (r.Text(0, 0) != fingerprint)
          return IdempotencyClaim{Outcome::kFingerprintMismatch, 0, ""};
        if (!completed) return IdempotencyClaim{Outcome::kInUse, 0, ""};
        return IdempotencyClaim{Outcome::kCompleted, static_cast<int>(r.Int(0, 2)), r.Text(0, 3)};
      }
    }
    c.Exec(
        "INSERT INTO idempotency_keys(org_id, env, key, fingerprint, state, claimed_at_ms) "
        "VALUES ($1, $2, $3, $4, 'running', $5) ON CONFLICT (org_id, env, key) DO UPDATE SET "
        "fingerprint = excluded.fingerprint, state = 'running', status = 0, body = '', "
        "claimed_at_ms = excluded.claimed_at_ms, expires_at_ms = 0",
        {P(k.org_id), P(k.env), P(k.key), P(fingerprint), P(now_ms)});
    tx.Commit();
    return IdempotencyClaim{Outcome::kClaimed, 0, ""};
  });
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
           {P(conversation_id), P(now_ms - window_ms)});
    auto r = c.Exec(
        "SELECT COUNT(*), COALESCE(MIN(at_ms), 0) FROM conversation_calls WHERE conversation_id = "
        "$1",
        {P(conversation_id)});
    if (r.Int(0, 0) >= limit) {
      tx.Commit();  // keep the cleanup
      return CallWindowDecision{false,
                                governance::RetryAfterSeconds(r.Int(0, 1), window_ms, now_ms)};
    }
    c.Exec("INSERT INTO conversation_calls(conversation_id, at_ms) VALUES ($1, $2)",
           {P(conversation_id), P(now_ms)});
    tx.Commit();
    return CallWindowDecision{true, 0};
  });
}

Result<SpendDecision> PostgresStore::ReserveSpend(const SpendReservationRequest& r) {
  return pg::WithConnection(*pool_, [&](Connection& c) -> Result<SpendDecision> {
    // Every reservation of an org in a month is decided one at a time (both limits involve the
    // org).
    pg::Transaction tx(c, SpendLockKey(r.org_id, r.month));
    auto spent = [&](bool whole_org) {
      return whole_org
                 ? c.Exec(
                        "SELECT COALESCE(SUM(settled_usd + reserved_usd), 0) FROM spend_totals "
                        "WHERE org_id = $1 AND month = $2",
                        {P(r.org_id), P(r.month)})
                       .Double(0, 0)
                 : c.Exec(
                        "SELECT COALESCE(SUM(settled_usd + reserved_usd), 0) FROM spend_totals "
                        "WHERE org_id = $1 AND month = $2 AND agent_id = $3",
                        {P(r.org_id), P(r.month), P(r.agent_id)})
                       .Double(0, 0);
    };
    std::optional<double> org_limit;
    if (auto org = c.Exec("SELECT monthly_spend_limit_usd FROM orgs WHERE id = $1", {P(r.org_id)});
        !org.empty() && !org.IsNull(0, 0))
      org_limit = org.Double(0, 0);
    const auto grant =
        governance::GrantSpend(org_limit, r.agent_limit_usd, spent, r.amount_usd, r.wanted_usd);
    if (const auto& reached = grant.refused)
      return SpendDecision{false, "", reached->scope, reached->limit_usd, reached->spent_usd, 0};
    const std::string id = crypto::RandomHex(12);
    c.Exec(
        "INSERT INTO spend_reservations(id, org_id, agent_id, month, amount_usd, created_at_ms) "
        "VALUES ($1, $2, $3, $4, $5, $6)",
        {P(id), P(r.org_id), P(r.agent_id), P(r.month), P(grant.amount_usd), P(r.now_ms)});
    c.Exec(
        "INSERT INTO spend_totals(org_id, agent_id, month, reserved_usd) VALUES ($1, $2, $3, $4) "
        "ON CONFLICT (org_id, agent_id, month) DO UPDATE SET reserved_usd = "
        "spend_totals.reserved_usd + excluded.reserved_usd",
        {P(r.org_id), P(r.agent_id), P(r.month), P(grant.amount_usd)});
    tx.Commit();
    return SpendDecision{true, id, "", 0, 0, grant.amount_usd};
  });
}

std::string SpendLockKey(const std::string& org_id, const std::string& month) {
  return "spend:" + org_id + "\n" + month;
}

namespace {

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

}  // namespace

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

namespace {

// Deletes the reservations `where` selects and takes them off the reserved totals, under the
// spend locks of every (org, month) they belong to. Returns how many.
std::int64_t ReleaseReservations(Connection& c, const std::string& where,
                                 const std::vector<pg::Param>& params) {
  auto owners =
      c.Exec("SELECT DISTINCT org_id, month FROM spend_reservations WHERE " + where, params);
  std::set<std::string> locks;
  for (int i = 0; i < owners.size(); ++i)
    locks.insert(SpendLockKey(owners.Text(i, 0), owners.Text(i, 1)));
  pg::Transaction tx(c, std::vector<std::string>(locks.begin(), locks.end()));
  auto released = c.Exec("DELETE FROM spend_reservations WHERE " + where +
                             " RETURNING org_id, agent_id, month, amount_usd",
                         params);
  for (int i = 0; i < released.size(); ++i) {
    c.Exec(
        "UPDATE spend_totals SET reserved_usd = GREATEST(0, ROUND((reserved_usd - $1)::numeric, "
        "9)) WHERE org_id = $2 "
        "AND agent_id = $3 AND month = $4",
        {P(released.Double(i, 3)), P(released.Text(i, 0)), P(released.Text(i, 1)),
         P(released.Text(i, 2))});
  }
  tx.Commit();
  return released.size();
}

}  // namespace

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
    auto r = c.Exec(
        "SELECT agent_id, settled_usd, reserved_usd, input_tokens, output_tokens, model_calls FROM "
        "spend_totals "
        "WHERE org_id = $1 AND month = $2 ORDER BY agent_id",
        {P(org_id), P(month)});
    std::vector<UsageRow> out;
    for (int i = 0; i < r.size(); ++i) {
      out.push_back(UsageRow{r.Text(i, 0), r.Double(i, 1), r.Double(i, 2), r.Int(i, 3), r.Int(i, 4),
                             r.Int(i, 5)});
    }
    return out;
  });
}

}  // namespace agentgate
