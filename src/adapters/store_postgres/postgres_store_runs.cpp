// Runs and their events (docs/runs.md): the queue, claimed with FOR UPDATE SKIP LOCKED so several
// servers start each run once.
#include "adapters/store_common/row_readers.hpp"
#include "adapters/store_common/run_rules.hpp"
#include "adapters/store_common/run_write.hpp"
#include "adapters/store_common/webhook_claims.hpp"
#include "adapters/store_postgres/postgres_store.hpp"

#include <algorithm>
#include <set>

namespace agentgate {

using pg::Connection;
using pg::P;

namespace {

// Events in one statement, each column's values as one array.
void InsertEvents(Connection& c, const std::string& run_id, const std::vector<RunEvent>& events) {
  if (events.empty()) return;
  std::vector<pg::Param> seqs, types, data;
  for (const auto& e : events) {
    seqs.push_back(P(e.seq));
    types.push_back(P(e.type));
    data.push_back(P(e.data));
  }
  c.Exec(
      "INSERT INTO run_events(run_id, seq, type, data) SELECT $1, * FROM unnest($2::bigint[], "
      "$3::text[], $4::text[])",
      {P(run_id), pg::ArrayOf(seqs), pg::ArrayOf(types), pg::ArrayOf(data)});
}

const std::string& SelectRun() {
  static const std::string sql = std::string("SELECT ") + kRunColumns + " FROM runs WHERE id = $1";
  return sql;
}

const char* Bool(bool value) {
  return value ? "true" : "false";
}

// The runs' rows on PostgreSQL (adapters/store_common/run_write decides what they change). A row
// read to change it is locked FOR UPDATE; queued runs are counted under their organization's lock
// (WriteRuns), so the queue bound holds across servers.
class PostgresRunRows final : public RunRowWriter {
 public:
  explicit PostgresRunRows(Connection& c) : c_(c) {}

  std::int64_t WaitingRunsOf(const std::string& org_id) override {
    return c_.Exec(kCountWaitingRuns, {P(org_id)}).Int(0, 0);
  }
  bool CompleteIdempotencyKey(const IdempotencyCompletion& done) override {
    return agentgate::CompleteIdempotencyKey(c_, done);
  }
  void InsertRun(const RunRecord& run) override {
    c_.Exec(
        "INSERT INTO runs(id, org_id, env, agent_id, token_id, status, conversation_id, "
        "creates_conversation, request, created_at_ms, started_at_ms, server_id, notify) VALUES "
        "($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13) ON CONFLICT (id) DO NOTHING",
        {P(run.id), P(run.org_id), P(run.env), P(run.agent_id), P(run.token_id),
         P(std::string(RunStatusName(run.status))), P(run.conversation_id),
         P(std::string(Bool(run.creates_conversation))), P(run.request_json), P(run.created_at_ms),
         P(run.started_at_ms), P(run.server_id), P(std::string(Bool(run.notify)))});
    if (TakesPlaceAsQueued(run)) {
      c_.Exec(
          "INSERT INTO conversation_turn_queue(conversation_id, expires_at_ms, server_id, run_id) "
          "SELECT $1, $2, '', $3 WHERE NOT EXISTS (SELECT 1 FROM conversation_turn_queue WHERE "
          "run_id = $3)",
          {P(run.conversation_id), P(kQueuedPlaceExpiry), P(run.id)});
    }
  }
  void InsertEndedRun(const RunRecord& run, const std::string& folded_events) override {
    c_.Exec(
        kInsertEndedRun,
        {P(run.id), P(run.org_id), P(run.env), P(run.agent_id), P(run.token_id),
         P(std::string(RunStatusName(run.status))), P(run.conversation_id),
         P(std::string(Bool(run.creates_conversation))), P(run.created_at_ms), P(run.started_at_ms),
         P(run.ended_at_ms), P(run.server_id), P(std::string(Bool(run.notify))), P(run.result_json),
         P(run.error_json), P(folded_events)});
  }
  void InsertEvents(const std::string& run_id, const std::vector<RunEvent>& events) override {
    agentgate::InsertEvents(c_, run_id, events);
  }
  std::optional<RunStatus> StatusForUpdate(const std::string& run_id) override {
    const auto row = c_.Exec("SELECT status FROM runs WHERE id = $1 FOR UPDATE", {P(run_id)});
    if (row.empty()) return std::nullopt;
    return ParseRunStatus(row.Text(0, 0));
  }
  std::int64_t LastEventSeq(const std::string& run_id) override {
    return c_.Exec("SELECT COALESCE(MAX(seq), 0) FROM run_events WHERE run_id = $1", {P(run_id)})
        .Int(0, 0);
  }
  void UpdateEnd(const RunRecord& run, const std::string& folded_events) override {
    c_.Exec(
        "UPDATE runs SET status = $1, result = $2, error = $3, ended_at_ms = $4, request = '', "
        "paused = '', events = $5 WHERE id = $6",
        {P(std::string(RunStatusName(run.status))), P(run.result_json), P(run.error_json),
         P(run.ended_at_ms), P(folded_events), P(run.id)});
    c_.Exec("DELETE FROM conversation_turn_queue WHERE run_id = $1", {P(run.id)});
  }
  void AskCancel(const std::string& run_id) override {
    c_.Exec("UPDATE runs SET cancel_requested = TRUE WHERE id = $1", {P(run_id)});
  }
  void EnqueueEndWebhooks(const RunRecord& run, const std::string& type) override {
    if (run.notify) {
      c_.Exec(kEnqueueRunWebhooks, {P(run.id), P(type), P(run.ended_at_ms), P(run.org_id),
                                    P(run.env), P("%," + type + ",%")});
    }
    if (!run.conversation_id.empty()) {
      c_.Exec(kEnqueueTaskWebhooks,
              {P(run.id), P(std::string("_")), P(type), P(run.ended_at_ms), P(std::string())});
    }
  }

 private:
  Connection& c_;
};

}  // namespace

void InsertEndedRunIn(Connection& c, const RunWrite& write) {
  PostgresRunRows rows(c);
  InsertEndedRun(rows, write);
}

// The organizations of queued runs are locked at BEGIN, in one sorted order. A refused write wrote
// nothing (each checks before it writes), so a batch needs no savepoints; a store failure fails
// the whole batch.
std::vector<Result<bool>> PostgresStore::WriteRuns(const std::vector<const RunWrite*>& writes) {
  std::set<std::string> locks;
  for (const RunWrite* write : writes) {
    if (write->kind == RunWrite::Kind::kCreate && write->run.status == RunStatus::kQueued)
      locks.insert("runs:" + write->run.org_id);
  }
  const std::vector<std::string> sorted(locks.begin(), locks.end());
  std::vector<Result<bool>> results;
  auto batch = pg::WithConnection(*pool_, [&](Connection& c) -> Result<void> {
    results.clear();
    pg::Transaction tx(c, sorted);
    PostgresRunRows rows(c);
    for (const RunWrite* write : writes) results.push_back(WriteRun(rows, *write));
    tx.Commit();
    return {};
  });
  if (!batch) results.assign(writes.size(), batch.error());
  return results;
}

Result<std::optional<RunRecord>> PostgresStore::GetRun(const std::string& run_id) {
  return pg::WithConnection(*pool_, [&](Connection& c) -> Result<std::optional<RunRecord>> {
    return c.Exec(SelectRun(), {P(run_id)}).One(ReadRun);
  });
}

Result<std::int64_t> PostgresStore::CountWaitingRuns(const std::string& org_id) {
  return pg::WithConnection(*pool_, [&](Connection& c) -> Result<std::int64_t> {
    return PostgresRunRows(c).WaitingRunsOf(org_id);
  });
}

Result<std::vector<RunRecord>> PostgresStore::ListRuns(const std::string& org_id,
                                                       const std::string& env, int limit) {
  return pg::WithConnection(*pool_, [&](Connection& c) -> Result<std::vector<RunRecord>> {
    static const std::string sql = std::string("SELECT ") + kRunColumns +
                                   " FROM runs WHERE org_id = $1 AND env = $2 ORDER BY "
                                   "created_at_ms DESC, id DESC LIMIT $3";
    return c.Exec(sql, {P(org_id), P(env), P(limit)}).All(ReadRun);
  });
}

Result<std::vector<RunRecord>> PostgresStore::ListAgentRuns(const AgentRunsQuery& q) {
  return pg::WithConnection(*pool_, [&](Connection& c) -> Result<std::vector<RunRecord>> {
    static const std::string sql = AgentRunsSql('$', false);
    return c
        .Exec(sql, {P(q.org_id), P(q.env), P(q.agent_id), P(q.conversation_id), P(q.outcomes),
                    P(q.changed_after_ms), P(q.before_changed_ms), P(q.before_id), P(q.limit)})
        .All(ReadRun);
  });
}

Result<std::int64_t> PostgresStore::CountAgentRuns(const AgentRunsQuery& q) {
  return pg::WithConnection(*pool_, [&](Connection& c) -> Result<std::int64_t> {
    static const std::string sql = AgentRunsSql('$', true);
    return c
        .Exec(sql, {P(q.org_id), P(q.env), P(q.agent_id), P(q.conversation_id), P(q.outcomes),
                    P(q.changed_after_ms)})
        .Int(0, 0);
  });
}

// run_state::Start for each claimed run, as one conditional write (status = 'queued'). Servers
// claiming at once rank the same runs; SKIP LOCKED gives each run to one of them, so each server
// may start one batch past an organization's share (docs/runs.md, "Fair shares").
Result<std::vector<RunRecord>> PostgresStore::ClaimRuns(const std::string& server_id,
                                                        std::int64_t now_ms, int limit,
                                                        int max_running_per_org) {
  return pg::WithConnection(*pool_, [&](Connection& c) -> Result<std::vector<RunRecord>> {
    // The request goes with the claim and leaves the row: only the server running it reads it. A
    // paused run decided in the background keeps the start it had.
    static const std::string sql =
        std::string(kFairQueuedRuns) +
        ", picked AS (SELECT runs.id, runs.request FROM runs WHERE runs.id IN (SELECT id FROM "
        "fair) "
        "AND runs.status = 'queued' FOR UPDATE SKIP LOCKED) "
        "UPDATE runs r SET status = 'running', server_id = $4, started_at_ms = CASE WHEN "
        "r.started_at_ms > 0 THEN r.started_at_ms ELSE $3 END, request = '', background = TRUE "
        "FROM picked WHERE r.id = picked.id RETURNING r.id, r.org_id, r.env, r.agent_id, "
        "r.token_id, r.status, r.conversation_id, r.creates_conversation, picked.request, "
        "r.created_at_ms, r.started_at_ms, r.ended_at_ms, r.server_id, r.cancel_requested, "
        "r.result, r.error, r.notify, r.paused, r.expires_at_ms";
    auto claimed =
        c.Exec(sql, {P(max_running_per_org), P(limit), P(now_ms), P(server_id)}).All(ReadRun);
    std::sort(claimed.begin(), claimed.end(), [](const RunRecord& a, const RunRecord& b) {
      return std::tie(a.created_at_ms, a.id) < std::tie(b.created_at_ms, b.id);
    });
    return claimed;
  });
}

Result<std::vector<RunEvent>> PostgresStore::ListRunEvents(const std::string& run_id,
                                                           std::int64_t after_seq, int limit) {
  return pg::WithConnection(*pool_, [&](Connection& c) -> Result<std::vector<RunEvent>> {
    const auto row =
        c.Exec("SELECT events, result, error, conversation_id, agent_id FROM runs WHERE id = $1",
               {P(run_id)})
            .One([](const RowView& r) {
              return FoldedEventsRow{r.Text(0), r.Text(1), r.Text(2), r.Text(3), r.Text(4)};
            });
    static const std::string sql = std::string("SELECT ") + kRunEventColumns +
                                   " FROM run_events WHERE run_id = $1 AND seq > $2 ORDER BY seq "
                                   "LIMIT $3";
    return ReadRunEvents(run_id, row, after_seq, limit, [&](std::int64_t after, int most) {
      return c.Exec(sql, {P(run_id), P(after), P(most)}).All(ReadRunEvent);
    });
  });
}

Result<std::optional<RunRecord>> PostgresStore::CancelRun(const std::string& run_id,
                                                          std::int64_t now_ms,
                                                          const RunEvent& canceled) {
  return pg::WithConnection(*pool_, [&](Connection& c) -> Result<std::optional<RunRecord>> {
    pg::Transaction tx(c);
    auto run = c.Exec(SelectRun() + " FOR UPDATE", {P(run_id)}).One(ReadRun);
    if (!run) return run;
    PostgresRunRows rows(c);
    CancelLockedRun(rows, *run, now_ms, canceled);
    tx.Commit();
    return run;
  });
}

// run_state::Resume as one conditional write (paused, and not expired at now_ms).
Result<std::optional<RunRecord>> PostgresStore::ClaimPausedRun(const std::string& run_id,
                                                               const std::string& server_id,
                                                               std::int64_t now_ms) {
  return pg::WithConnection(*pool_, [&](Connection& c) -> Result<std::optional<RunRecord>> {
    static const std::string sql = std::string(
                                       "UPDATE runs SET status = 'running', server_id = $2 WHERE "
                                       "id = $1 AND status = 'requires_action' AND expires_at_ms "
                                       "> $3 RETURNING ") +
                                   kRunColumns;
    return c.Exec(sql, {P(run_id), P(server_id), P(now_ms)}).One(ReadRun);
  });
}

Result<std::optional<RunRecord>> PostgresStore::QueueDecidedRun(const std::string& run_id,
                                                                const std::string& request_json,
                                                                std::int64_t now_ms) {
  return pg::WithConnection(*pool_, [&](Connection& c) -> Result<std::optional<RunRecord>> {
    static const std::string sql = std::string(kRequeueDecidedRun) + " RETURNING " + kRunColumns;
    return c.Exec(sql, {P(request_json), P(run_id), P(now_ms)}).One(ReadRun);
  });
}

Result<std::int64_t> PostgresStore::ExpirePausedRuns(std::int64_t now_ms, int limit,
                                                     const RunEvent& expired) {
  return pg::WithConnection(*pool_, [&](Connection& c) -> Result<std::int64_t> {
    pg::Transaction tx(c);
    static const std::string read = std::string("SELECT ") + kRunColumns +
                                    " FROM runs WHERE status = 'requires_action' AND "
                                    "expires_at_ms <= $1 ORDER BY expires_at_ms LIMIT $2 FOR "
                                    "UPDATE SKIP LOCKED";
    auto runs = c.Exec(read, {P(now_ms), P(static_cast<std::int64_t>(limit))}).All(ReadRun);
    PostgresRunRows rows(c);
    const std::int64_t ended = ExpireLockedRuns(rows, runs, now_ms, expired);
    tx.Commit();
    return ended;
  });
}

Result<std::vector<std::string>> PostgresStore::RunsToCancel(const std::string& server_id) {
  return pg::WithConnection(*pool_, [&](Connection& c) -> Result<std::vector<std::string>> {
    return c
        .Exec(
            "SELECT id FROM runs WHERE server_id = $1 AND status = 'running' AND cancel_requested",
            {P(server_id)})
        .All([](const RowView& row) { return row.Text(0); });
  });
}

Result<bool> PostgresStore::ConversationBusy(const std::string& conversation_id,
                                             std::int64_t now_ms) {
  return pg::WithConnection(*pool_, [&](Connection& c) -> Result<bool> {
    return c.Exec(
                "SELECT EXISTS (SELECT 1 FROM runs WHERE conversation_id = $1 AND status IN "
                "('queued', 'running')) OR EXISTS (SELECT 1 FROM conversation_turn_queue WHERE "
                "conversation_id = $1 AND expires_at_ms > $2)",
                {P(conversation_id), P(now_ms)})
               .Text(0, 0) == "t";
  });
}

Result<std::int64_t> PostgresStore::PurgeRuns(std::int64_t ended_before_ms, int limit) {
  return pg::WithConnection(*pool_, [&](Connection& c) -> Result<std::int64_t> {
    const std::int64_t runs =
        c.Exec(
             "WITH gone AS (SELECT id FROM runs WHERE ended_at_ms > 0 AND ended_at_ms < $1 ORDER "
             "BY "
             "ended_at_ms LIMIT $2), e AS (DELETE FROM run_events WHERE run_id IN (SELECT id FROM "
             "gone)), r AS (DELETE FROM runs WHERE id IN (SELECT id FROM gone) RETURNING 1), "
             // Its push configs, and what they still had to send.
             "w AS (DELETE FROM webhooks WHERE run_id IN (SELECT id FROM gone) RETURNING id), "
             "d AS (DELETE FROM webhook_deliveries WHERE webhook_id IN (SELECT id FROM w)) "
             "SELECT count(*) FROM r",
             {P(ended_before_ms), P(limit)})
            .Int(0, 0);
    c.Exec(
        "DELETE FROM webhook_deliveries WHERE id IN (SELECT id FROM webhook_deliveries WHERE "
        "status <> 'pending' AND created_at_ms < $1 ORDER BY created_at_ms LIMIT $2)",
        {P(ended_before_ms), P(limit)});
    return runs;
  });
}

Result<void> PostgresStore::CreateWebhook(const WebhookRecord& w) {
  return pg::WithConnection(*pool_, [&](Connection& c) -> Result<void> {
    c.Exec(
        "INSERT INTO webhooks(id, org_id, env, url, events, secret, created_at_ms) VALUES ($1, $2, "
        "$3, $4, $5, $6, $7)",
        {P(w.id), P(w.org_id), P(w.env), P(w.url), P(WebhookEventsColumn(w.events)),
         pg::Bytes(w.sealed_secret), P(w.created_at_ms)});
    return {};
  });
}

Result<std::vector<WebhookRecord>> PostgresStore::ListWebhooks(const std::string& org_id,
                                                               const std::string& env) {
  return pg::WithConnection(*pool_, [&](Connection& c) -> Result<std::vector<WebhookRecord>> {
    static const std::string sql = std::string("SELECT ") + kWebhookColumns +
                                   " FROM webhooks WHERE org_id = $1 AND env = $2 AND run_id = '' "
                                   "ORDER BY created_at_ms, id";
    return c.Exec(sql, {P(org_id), P(env)}).All(ReadWebhook);
  });
}

Result<bool> PostgresStore::DeleteWebhook(const std::string& org_id, const std::string& env,
                                          const std::string& webhook_id) {
  return pg::WithConnection(*pool_, [&](Connection& c) -> Result<bool> {
    return c.Exec(
                "WITH gone AS (DELETE FROM webhooks WHERE id = $1 AND org_id = $2 AND env = $3 "
                "AND run_id = '' RETURNING id), d AS (DELETE FROM webhook_deliveries WHERE "
                "webhook_id IN "
                "(SELECT id FROM gone)) SELECT count(*) FROM gone",
                {P(webhook_id), P(org_id), P(env)})
               .Int(0, 0) > 0;
  });
}

Result<std::vector<WebhookDelivery>> PostgresStore::ListWebhookDeliveries(
    const std::string& webhook_id, int limit) {
  return pg::WithConnection(*pool_, [&](Connection& c) -> Result<std::vector<WebhookDelivery>> {
    static const std::string sql = std::string("SELECT ") + kWebhookDeliveryColumns +
                                   " FROM webhook_deliveries WHERE webhook_id = $1 ORDER BY "
                                   "created_at_ms DESC, id DESC LIMIT $2";
    return c.Exec(sql, {P(webhook_id), P(limit)}).All(ReadWebhookDelivery);
  });
}

Result<std::vector<WebhookJob>> PostgresStore::ClaimWebhookDeliveries(std::int64_t now_ms,
                                                                      std::int64_t hold_until_ms,
                                                                      int limit,
                                                                      WebhookShares shares) {
  return pg::WithConnection(*pool_, [&](Connection& c) -> Result<std::vector<WebhookJob>> {
    {
      // Most looks find none: no lock for them.
      static const std::string any =
          "SELECT 1 FROM webhook_deliveries WHERE status = 'pending' AND next_attempt_at_ms <= $1 "
          "AND held_until_ms <= $1 LIMIT 1";
      if (c.Exec(any, {P(now_ms)}).empty()) return std::vector<WebhookJob>{};
    }
    // The claims of every server, one at a time: each counts what the others hold.
    pg::Transaction tx(c, "webhook-claims");
    std::vector<pg::Param> ids;
    for (auto& id : c.Exec(kClaimableWebhookDeliveries,
                           {P(now_ms), P(shares.per_webhook), P(shares.per_org), P(limit)})
                        .All([](const RowView& row) { return row.Text(0); }))
      ids.push_back(P(id));
    std::vector<WebhookJob> jobs;
    if (ids.empty()) return jobs;
    static const std::string hold = std::string(
                                        "UPDATE webhook_deliveries SET held_until_ms = $1 "
                                        "WHERE id = ANY($2::text[]) RETURNING ") +
                                    kWebhookDeliveryColumns;
    static const std::string webhook =
        std::string("SELECT ") + kWebhookColumns + " FROM webhooks WHERE id = $1";
    static const std::string run =
        std::string("SELECT ") + kRunColumns + " FROM runs WHERE id = $1";
    auto held = c.Exec(hold, {P(hold_until_ms), pg::ArrayOf(ids)}).All(ReadWebhookDelivery);
    // Tried in the order they fell due.
    std::sort(held.begin(), held.end(), [](const WebhookDelivery& a, const WebhookDelivery& b) {
      return a.next_attempt_at_ms != b.next_attempt_at_ms
                 ? a.next_attempt_at_ms < b.next_attempt_at_ms
                 : a.id < b.id;
    });
    jobs.reserve(held.size());
    for (auto& delivery : held) {
      auto hook = c.Exec(webhook, {P(delivery.webhook_id)}).One(ReadWebhook);
      if (!hook) continue;
      auto ended = c.Exec(run, {P(delivery.run_id)}).One(ReadRun);
      jobs.push_back(WebhookJob{std::move(delivery), std::move(*hook), std::move(ended)});
    }
    tx.Commit();
    return jobs;
  });
}

Result<PushConfigSaved> PostgresStore::SaveTaskPushConfig(const WebhookRecord& w, int max_per_run,
                                                          std::int64_t now_ms) {
  return pg::WithConnection(*pool_, [&](Connection& c) -> Result<PushConfigSaved> {
    pg::Transaction tx(c);
    // The run's row locked first: its end (or another config) waits for this one, or this one
    // sees it ended.
    auto run =
        c.Exec("SELECT status, expires_at_ms FROM runs WHERE id = $1 FOR UPDATE", {P(w.run_id)});
    PushConfigSaved saved = PushConfigSaved::kReplaced;
    if (c.Exec("UPDATE webhooks SET url = $1, secret = $2, format = $3, auth_scheme = $4 WHERE "
               "run_id = $5 AND config_id = $6 RETURNING id",
               {P(w.url), pg::Bytes(w.sealed_secret), P(w.format), P(w.auth_scheme), P(w.run_id),
                P(w.config_id)})
            .empty()) {
      if (c.Exec("SELECT count(*) FROM webhooks WHERE run_id = $1", {P(w.run_id)}).Int(0, 0) >=
          max_per_run)
        return PushConfigSaved::kFull;
      c.Exec(
          "INSERT INTO webhooks(id, org_id, env, url, events, secret, created_at_ms, run_id, "
          "config_id, format, auth_scheme) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11)",
          {P(w.id), P(w.org_id), P(w.env), P(w.url), P(WebhookEventsColumn(w.events)),
           pg::Bytes(w.sealed_secret), P(w.created_at_ms), P(w.run_id), P(w.config_id), P(w.format),
           P(w.auth_scheme)});
      saved = PushConfigSaved::kCreated;
    }
    if (!run.empty()) {
      if (auto catch_up = TaskPushCatchUp(run.Text(0, 0), run.Int(0, 1))) {
        c.Exec(kEnqueueTaskWebhooks,
               {P(w.run_id), P(catch_up->middle), P(catch_up->type), P(now_ms), P(w.id)});
      }
    }
    tx.Commit();
    return saved;
  });
}

Result<std::vector<WebhookRecord>> PostgresStore::ListTaskPushConfigs(const std::string& run_id) {
  return pg::WithConnection(*pool_, [&](Connection& c) -> Result<std::vector<WebhookRecord>> {
    static const std::string sql = std::string("SELECT ") + kWebhookColumns +
                                   " FROM webhooks WHERE run_id = $1 ORDER BY created_at_ms, id";
    return c.Exec(sql, {P(run_id)}).All(ReadWebhook);
  });
}

Result<bool> PostgresStore::DeleteTaskPushConfig(const std::string& run_id,
                                                 const std::string& config_id) {
  return pg::WithConnection(*pool_, [&](Connection& c) -> Result<bool> {
    return c.Exec(
                "WITH gone AS (DELETE FROM webhooks WHERE run_id = $1 AND config_id = $2 AND "
                "run_id <> '' RETURNING id), d AS (DELETE FROM webhook_deliveries WHERE "
                "webhook_id IN (SELECT id FROM gone)) SELECT count(*) FROM gone",
                {P(run_id), P(config_id)})
               .Int(0, 0) > 0;
  });
}

Result<void> PostgresStore::RecordWebhookAttempt(const WebhookDelivery& d) {
  return pg::WithConnection(*pool_, [&](Connection& c) -> Result<void> {
    c.Exec(
        "UPDATE webhook_deliveries SET status = $1, attempts = $2, next_attempt_at_ms = $3, "
        "held_until_ms = 0, log = $4 WHERE id = $5",
        {P(d.status), P(static_cast<std::int64_t>(d.attempts)), P(d.next_attempt_at_ms),
         P(d.attempts_json), P(d.id)});
    return {};
  });
}

void InterruptRunsOf(Connection& c, const pg::Param& servers, std::int64_t now_ms) {
  static const std::string sql = std::string("SELECT ") + kRunColumns +
                                 " FROM runs WHERE status = 'running' AND server_id = "
                                 "ANY($1::text[]) FOR UPDATE";
  auto runs = c.Exec(sql, {servers}).All(ReadRun);
  PostgresRunRows rows(c);
  InterruptLockedRuns(rows, runs, now_ms);
}

}  // namespace agentgate
