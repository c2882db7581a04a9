// Webhook endpoints and their deliveries (docs/webhooks.md): each run end's delivery claimed,
// held while it is sent, and its attempts recorded.
#include "adapters/store_common/row_readers.hpp"
#include "adapters/store_common/run_rules.hpp"
#include "adapters/store_common/webhook_claims.hpp"
#include "adapters/store_sqlite/sqlite_store.hpp"

namespace agentgate {

using sqlite::Connection;

Result<void> SqliteStore::CreateWebhook(const WebhookRecord& w) {
  return sqlite::WithConnection(*pool_, [&](Connection& c) -> Result<void> {
    c.Prepare(
         "INSERT INTO webhooks(id, org_id, env, url, events, secret, created_at_ms) VALUES (?, ?, "
         "?, ?, ?, ?, ?)")
        .Bind(w.id, w.org_id, w.env, w.url, WebhookEventsColumn(w.events),
              sqlite::AsBlob(w.sealed_secret), w.created_at_ms)
        .Run();
    return {};
  });
}

Result<std::vector<WebhookRecord>> SqliteStore::ListWebhooks(const std::string& org_id,
                                                             const std::string& env) {
  return sqlite::WithConnection(*pool_, [&](Connection& c) -> Result<std::vector<WebhookRecord>> {
    static const std::string sql = std::string("SELECT ") + kWebhookColumns +
                                   " FROM webhooks WHERE org_id = ? AND env = ? AND run_id = '' "
                                   "ORDER BY created_at_ms, id";
    return c.Prepare(sql).Bind(org_id, env).All(ReadWebhook);
  });
}

Result<bool> SqliteStore::DeleteWebhook(const std::string& org_id, const std::string& env,
                                        const std::string& webhook_id) {
  return sqlite::WithConnection(*pool_, [&](Connection& c) -> Result<bool> {
    sqlite::WriteTransaction tx(c);
    c.Prepare("DELETE FROM webhooks WHERE id = ? AND org_id = ? AND env = ? AND run_id = ''")
        .Bind(webhook_id, org_id, env)
        .Run();
    if (c.Changes() == 0) return false;
    c.Prepare("DELETE FROM webhook_deliveries WHERE webhook_id = ?").Bind(webhook_id).Run();
    tx.Commit();
    return true;
  });
}

Result<std::vector<WebhookDelivery>> SqliteStore::ListWebhookDeliveries(
    const std::string& webhook_id, int limit) {
  return sqlite::WithConnection(*pool_, [&](Connection& c) -> Result<std::vector<WebhookDelivery>> {
    static const std::string sql = std::string("SELECT ") + kWebhookDeliveryColumns +
                                   " FROM webhook_deliveries WHERE webhook_id = ? ORDER BY "
                                   "created_at_ms DESC, id DESC LIMIT ?";
    return c.Prepare(sql).Bind(webhook_id, limit).All(ReadWebhookDelivery);
  });
}

Result<std::vector<WebhookJob>> SqliteStore::ClaimWebhookDeliveries(std::int64_t now_ms,
                                                                    std::int64_t hold_until_ms,
                                                                    int limit,
                                                                    WebhookShares shares) {
  return sqlite::WithConnection(*pool_, [&](Connection& c) -> Result<std::vector<WebhookJob>> {
    {
      // Most looks find none: a read first, so they take no write lock.
      auto any = c.Prepare(
          "SELECT 1 FROM webhook_deliveries WHERE status = 'pending' AND next_attempt_at_ms <= ?1 "
          "AND held_until_ms <= ?1 LIMIT 1");
      if (!any.Bind(now_ms).Step()) return std::vector<WebhookJob>{};
    }
    sqlite::WriteTransaction tx(c);
    const auto ids = c.Prepare(kClaimableWebhookDeliveries)
                         .Bind(now_ms, shares.per_webhook, shares.per_org, limit)
                         .All([](const RowView& row) { return row.Text(0); });
    std::vector<WebhookJob> jobs;
    jobs.reserve(ids.size());
    static const std::string delivery =
        std::string("SELECT ") + kWebhookDeliveryColumns + " FROM webhook_deliveries WHERE id = ?";
    static const std::string webhook =
        std::string("SELECT ") + kWebhookColumns + " FROM webhooks WHERE id = ?";
    for (const auto& id : ids) {
      c.Prepare("UPDATE webhook_deliveries SET held_until_ms = ? WHERE id = ?")
          .Bind(hold_until_ms, id)
          .Run();
      auto claimed = c.Prepare(delivery).Bind(id).One(ReadWebhookDelivery);
      if (!claimed) continue;
      auto hook = c.Prepare(webhook).Bind(claimed->webhook_id).One(ReadWebhook);
      if (!hook) continue;
      auto ended = FindRunIn(c, claimed->run_id);
      jobs.push_back(WebhookJob{std::move(*claimed), std::move(*hook), std::move(ended)});
    }
    tx.Commit();
    return jobs;
  });
}

Result<void> SqliteStore::RecordWebhookAttempt(const WebhookDelivery& d) {
  return sqlite::WithConnection(*pool_, [&](Connection& c) -> Result<void> {
    c.Prepare(
         "UPDATE webhook_deliveries SET status = ?, attempts = ?, next_attempt_at_ms = ?, "
         "held_until_ms = 0, log = ? WHERE id = ?")
        .Bind(d.status, d.attempts, d.next_attempt_at_ms, d.attempts_json, d.id)
        .Run();
    return {};
  });
}

Result<PushConfigSaved> SqliteStore::SaveTaskPushConfig(const WebhookRecord& w, int max_per_run,
                                                        std::int64_t now_ms) {
  return sqlite::WithConnection(*pool_, [&](Connection& c) -> Result<PushConfigSaved> {
    sqlite::WriteTransaction tx(c);
    c.Prepare(
         "UPDATE webhooks SET url = ?, secret = ?, format = ?, auth_scheme = ? WHERE run_id = ? "
         "AND config_id = ?")
        .Bind(w.url, sqlite::AsBlob(w.sealed_secret), w.format, w.auth_scheme, w.run_id,
              w.config_id)
        .Run();
    PushConfigSaved saved = PushConfigSaved::kReplaced;
    if (c.Changes() == 0) {
      auto count = c.Prepare("SELECT count(*) FROM webhooks WHERE run_id = ?");
      count.Bind(w.run_id).Step();
      if (count.Int(0) >= max_per_run) return PushConfigSaved::kFull;
      c.Prepare(
           "INSERT INTO webhooks(id, org_id, env, url, events, secret, created_at_ms, run_id, "
           "config_id, format, auth_scheme) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)")
          .Bind(w.id, w.org_id, w.env, w.url, WebhookEventsColumn(w.events),
                sqlite::AsBlob(w.sealed_secret), w.created_at_ms, w.run_id, w.config_id, w.format,
                w.auth_scheme)
          .Run();
      saved = PushConfigSaved::kCreated;
    }
    // A run already paused or ended: where it stands, to this config.
    auto run = c.Prepare("SELECT status, expires_at_ms FROM runs WHERE id = ?");
    if (run.Bind(w.run_id).Step()) {
      if (auto catch_up = TaskPushCatchUp(run.Text(0), run.Int(1))) {
        c.Prepare(kEnqueueTaskWebhooks)
            .Bind(w.run_id, catch_up->middle, catch_up->type, now_ms, w.id)
            .Run();
      }
    }
    tx.Commit();
    return saved;
  });
}

Result<std::vector<WebhookRecord>> SqliteStore::ListTaskPushConfigs(const std::string& run_id) {
  return sqlite::WithConnection(*pool_, [&](Connection& c) -> Result<std::vector<WebhookRecord>> {
    static const std::string sql = std::string("SELECT ") + kWebhookColumns +
                                   " FROM webhooks WHERE run_id = ? ORDER BY created_at_ms, id";
    return c.Prepare(sql).Bind(run_id).All(ReadWebhook);
  });
}

Result<bool> SqliteStore::DeleteTaskPushConfig(const std::string& run_id,
                                               const std::string& config_id) {
  return sqlite::WithConnection(*pool_, [&](Connection& c) -> Result<bool> {
    sqlite::WriteTransaction tx(c);
    c.Prepare(
         "DELETE FROM webhook_deliveries WHERE webhook_id IN (SELECT id FROM webhooks WHERE "
         "run_id = ? AND config_id = ?)")
        .Bind(run_id, config_id)
        .Run();
    c.Prepare("DELETE FROM webhooks WHERE run_id = ? AND config_id = ? AND run_id <> ''")
        .Bind(run_id, config_id)
        .Run();
    if (c.Changes() == 0) return false;
    tx.Commit();
    return true;
  });
}

}  // namespace agentgate
