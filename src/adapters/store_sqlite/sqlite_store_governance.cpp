#include "adapters/store_sqlite/sqlite_store.hpp"

#include "adapters/store_common/settlement_sums.hpp"

#include "crypto/crypto.hpp"
#include "domain/governance/governance.hpp"

#include <optional>

namespace agentgate {

using sqlite::Connection;

Result<IdempotencyClaim> SqliteStore::ClaimIdempotencyKey(const IdempotencyScope& k,
                                                          const std::string& fingerprint,
                                                          std::int64_t now_ms,
                                                          std::int64_t stale_after_ms) {
  return sqlite::WithConnection(*pool_, [&](Connection& c) -> Result<IdempotencyClaim> {
    sqlite::WriteTransaction tx(c);
    using Outcome = IdempotencyClaim::Outcome;
    bool take_over = true;
    {
      auto s = c.Prepare(
          "SELECT fingerprint, state, status, body, claimed_at_ms, expires_at_ms FROM "
          "idempotency_keys "
          "WHERE org_id = ? AND env = ? AND key = ?");
      s.Bind(1, k.org_id).Bind(2, k.env).Bind(3, k.key);
      if (s.Step()) {
        const bool completed = s.Text(1) == "completed";
        const bool expired = completed ? s.Int(5) <= now_ms : s.Int(4) + stale_after_ms <= now_ms;
        if (!expired) {
          if (s.Text(0) != fingerprint)
            return IdempotencyClaim{Outcome::kFingerprintMismatch, 0, ""};
          if (!completed) return IdempotencyClaim{Outcome::kInUse, 0, ""};
          return IdempotencyClaim{Outcome::kCompleted, static_cast<int>(s.Int(2)), s.Text(3)};
        }
      } else {
        take_over = false;
      }
    }
    if (take_over) {
      c.Prepare(
           "UPDATE idempotency_keys SET fingerprint = ?, state = 'running', status = 0, body = '', "
           "claimed_at_ms = ?, expires_at_ms = 0 WHERE org_id = ? AND env = ? AND key = ?")
          .Bind(1, fingerprint)
          .Bind(2, now_ms)
          .Bind(3, k.org_id)
          .Bind(4, k.env)
          .Bind(5, k.key)
          .Run();
    } else {
      c.Prepare(
           "INSERT INTO idempotency_keys(org_id, env, key, fingerprint, state, claimed_at_ms) "
           "VALUES (?, ?, ?, ?, 'running', ?)")
          .Bind(1, k.org_id)
          .Bind(2, k.env)
          .Bind(3, k.key)
          .Bind(4, fingerprint)
          .Bind(5, now_ms)
          .Run();
    }
    tx.Commit();
    return IdempotencyClaim{Outcome::kClaimed, 0, ""};
  });
}

Result<void> SqliteStore::ReleaseIdempotencyKey(const IdempotencyScope& k,
                                                std::int64_t claimed_at_ms) {
  return sqlite::WithConnection(*pool_, [&](Connection& c) -> Result<void> {
    c.Prepare(
         "DELETE FROM idempotency_keys WHERE org_id = ? AND env = ? AND key = ? AND state = "
         "'running' AND claimed_at_ms = ?")
        .Bind(1, k.org_id)
        .Bind(2, k.env)
        .Bind(3, k.key)
        .Bind(4, claimed_at_ms)
        .Run();
    return {};
  });
}

Result<std::int64_t> SqliteStore::PurgeIdempotencyKeys(std::int64_t now_ms) {
  return sqlite::WithConnection(*pool_, [&](Connection& c) -> Result<std::int64_t> {
    c.Prepare("DELETE FROM idempotency_keys WHERE state = 'completed' AND expires_at_ms <= ?")
        .Bind(1, now_ms)
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
        .Bind(1, conversation_id)
        .Bind(2, now_ms - window_ms)
        .Run();
    std::int64_t count = 0;
    std::int64_t oldest = 0;
    {
      auto s = c.Prepare(
          "SELECT COUNT(*), COALESCE(MIN(at_ms), 0) FROM conversation_calls WHERE conversation_id "
          "= ?");
      s.Bind(1, conversation_id).Step();
      count = s.Int(0);
      oldest = s.Int(1);
    }
    if (count >= limit) {
      // The oldest call leaves the window at oldest + window; round up to whole seconds.
      const std::int64_t wait_ms = oldest + window_ms - now_ms;
      const int retry_after = static_cast<int>(std::max<std::int64_t>(1, (wait_ms + 999) / 1000));
      return CallWindowDecision{false, retry_after};
    }
    c.Prepare("INSERT INTO conversation_calls(conversation_id, at_ms) VALUES (?, ?)")
        .Bind(1, conversation_id)
        .Bind(2, now_ms)
        .Run();
    tx.Commit();
    return CallWindowDecision{true, 0};
  });
}

Result<SpendDecision> SqliteStore::ReserveSpend(const SpendReservationRequest& r) {
  return sqlite::WithConnection(*pool_, [&](Connection& c) -> Result<SpendDecision> {
    sqlite::WriteTransaction tx(c);
    auto spent = [&](bool whole_org) {
      auto s = c.Prepare(
          whole_org ? "SELECT COALESCE(SUM(settled_usd + reserved_usd), 0) FROM spend_totals "
                      "WHERE org_id = ? AND month = ?"
                    : "SELECT COALESCE(SUM(settled_usd + reserved_usd), 0) FROM spend_totals "
                      "WHERE org_id = ? AND month = ? AND agent_id = ?");
      s.Bind(1, r.org_id).Bind(2, r.month);
      if (!whole_org) s.Bind(3, r.agent_id);
      s.Step();
      return s.Double(0);
    };
    std::optional<double> org_limit;
    {
      auto org = c.Prepare("SELECT monthly_spend_limit_usd FROM orgs WHERE id = ?");
      org.Bind(1, r.org_id);
      if (org.Step() && !org.IsNull(0)) org_limit = org.Double(0);
    }
    const auto grant =
        governance::GrantSpend(org_limit, r.agent_limit_usd, spent, r.amount_usd, r.wanted_usd);
    if (const auto& reached = grant.refused)
      return SpendDecision{false, "", reached->scope, reached->limit_usd, reached->spent_usd, 0};
    const std::string id = crypto::RandomHex(12);
    c.Prepare(
         "INSERT INTO spend_reservations(id, org_id, agent_id, month, amount_usd, created_at_ms) "
         "VALUES (?, ?, ?, ?, ?, ?)")
        .Bind(1, id)
        .Bind(2, r.org_id)
        .Bind(3, r.agent_id)
        .Bind(4, r.month)
        .Bind(5, grant.amount_usd)
        .Bind(6, r.now_ms)
        .Run();
    c.Prepare(
         "INSERT INTO spend_totals(org_id, agent_id, month, reserved_usd) VALUES (?, ?, ?, ?) "
         "ON CONFLICT(org_id, agent_id, month) DO UPDATE SET reserved_usd = reserved_usd + "
         "excluded.reserved_usd")
        .Bind(1, r.org_id)
        .Bind(2, r.agent_id)
        .Bind(3, r.month)
        .Bind(4, grant.amount_usd)
        .Run();
    tx.Commit();
    return SpendDecision{true, id, "", 0, 0, grant.amount_usd};
  });
}

namespace {

// Takes `amount_usd` off reservation `id`; its account, or nothing when it is gone.
std::optional<SpendAccount> TakeOffReservation(Connection& c, const std::string& id,
                                               double amount_usd) {
  // A read, then an update by key: UPDATE ... RETURNING would gather its one row in a temporary
  // table, opened and freed on every turn's commit.
  SpendAccount account;
  {
    auto found = c.Prepare("SELECT org_id, agent_id, month FROM spend_reservations WHERE id = ?");
    found.Bind(1, id);
    if (!found.Step()) return std::nullopt;
    account = {found.Text(0), found.Text(1), found.Text(2)};
  }
  c.Prepare("UPDATE spend_reservations SET amount_usd = MAX(0, amount_usd - ?) WHERE id = ?")
      .Bind(1, amount_usd)
      .Bind(2, id)
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
      .Bind(1, change.settled_usd)
      .Bind(2, change.input_tokens)
      .Bind(3, change.output_tokens)
      .Bind(4, change.calls)
      .Bind(5, change.unreserved_usd)
      .Bind(6, org_id)
      .Bind(7, agent_id)
      .Bind(8, month)
      .Run();
}

}  // namespace

bool ReservationExists(Connection& c, const std::string& id) {
  auto found = c.Prepare("SELECT 1 FROM spend_reservations WHERE id = ?");
  found.Bind(1, id);
  return found.Step();
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
    for (const auto& id : reservation_ids) {
      auto removed = c.Prepare(
          "DELETE FROM spend_reservations WHERE id = ? RETURNING org_id, agent_id, month, "
          "amount_usd");
      removed.Bind(1, id);
      if (!removed.Step()) continue;  // already settled or released
      const std::string org_id = removed.Text(0), agent_id = removed.Text(1),
                        month = removed.Text(2);
      const double amount = removed.Double(3);
      removed.Run();
      c.Prepare(
           "UPDATE spend_totals SET reserved_usd = MAX(0, ROUND(reserved_usd - ?, 9)) WHERE org_id "
           "= ? "
           "AND agent_id = ? AND month = ?")
          .Bind(1, amount)
          .Bind(2, org_id)
          .Bind(3, agent_id)
          .Bind(4, month)
          .Run();
    }
    tx.Commit();
    return {};
  });
}

Result<std::int64_t> SqliteStore::ReleaseSpendReservations(std::int64_t created_before_ms) {
  return sqlite::WithConnection(*pool_, [&](Connection& c) -> Result<std::int64_t> {
    sqlite::WriteTransaction tx(c);
    c.Prepare(
         "UPDATE spend_totals SET reserved_usd = MAX(0, reserved_usd - COALESCE((SELECT "
         "SUM(r.amount_usd) "
         "FROM spend_reservations r WHERE r.org_id = spend_totals.org_id AND r.agent_id = "
         "spend_totals.agent_id "
         "AND r.month = spend_totals.month AND r.created_at_ms < ?1), 0))")
        .Bind(1, created_before_ms)
        .Run();
    c.Prepare("DELETE FROM spend_reservations WHERE created_at_ms < ?")
        .Bind(1, created_before_ms)
        .Run();
    const std::int64_t released = c.Changes();
    tx.Commit();
    return released;
  });
}

Result<std::vector<UsageRow>> SqliteStore::GetUsage(const std::string& org_id,
                                                    const std::string& month) {
  return sqlite::WithConnection(*pool_, [&](Connection& c) -> Result<std::vector<UsageRow>> {
    auto s = c.Prepare(
        "SELECT agent_id, settled_usd, reserved_usd, input_tokens, output_tokens, model_calls "
        "FROM spend_totals WHERE org_id = ? AND month = ? ORDER BY agent_id");
    s.Bind(1, org_id).Bind(2, month);
    std::vector<UsageRow> out;
    while (s.Step())
      out.push_back(UsageRow{s.Text(0), s.Double(1), s.Double(2), s.Int(3), s.Int(4), s.Int(5)});
    return out;
  });
}

}  // namespace agentgate
