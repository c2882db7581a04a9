#include "adapters/store_sqlite/sqlite_store.hpp"

#include <array>
#include <string_view>

namespace agentgate {
namespace {

// Append-only: a released migration is never edited; a change is a new entry.
constexpr std::array<std::string_view, 33> kMigrations = {
    R"sql(
CREATE TABLE orgs (
  id TEXT PRIMARY KEY,
  name TEXT NOT NULL,
  monthly_spend_limit_usd REAL,
  created_at_ms INTEGER NOT NULL
);
CREATE TABLE environments (
  org_id TEXT NOT NULL REFERENCES orgs(id),
  name TEXT NOT NULL,
  PRIMARY KEY (org_id, name)
);
CREATE TABLE api_tokens (
  id TEXT PRIMARY KEY,
  org_id TEXT NOT NULL REFERENCES orgs(id),
  name TEXT NOT NULL,
  secret_hash BLOB NOT NULL,
  environments TEXT NOT NULL,          -- comma-separated; empty = all
  created_at_ms INTEGER NOT NULL,
  revoked INTEGER NOT NULL DEFAULT 0
);
CREATE TABLE grants (
  org_id TEXT NOT NULL,
  token_id TEXT NOT NULL REFERENCES api_tokens(id),
  agent_id TEXT NOT NULL,
  permissions TEXT NOT NULL,           -- comma-separated
  PRIMARY KEY (token_id, agent_id)
);
CREATE TABLE agents (
  org_id TEXT NOT NULL REFERENCES orgs(id),
  id TEXT NOT NULL,
  latest_version INTEGER NOT NULL,
  PRIMARY KEY (org_id, id)
);
CREATE TABLE agent_versions (
  org_id TEXT NOT NULL,
  agent_id TEXT NOT NULL,
  version INTEGER NOT NULL,
  config TEXT NOT NULL,
  created_at_ms INTEGER NOT NULL,
  PRIMARY KEY (org_id, agent_id, version),
  FOREIGN KEY (org_id, agent_id) REFERENCES agents(org_id, id)
);
CREATE TABLE deployments (
  org_id TEXT NOT NULL,
  agent_id TEXT NOT NULL,
  env TEXT NOT NULL,
  version INTEGER NOT NULL,
  PRIMARY KEY (org_id, agent_id, env),
  FOREIGN KEY (org_id, agent_id, version) REFERENCES agent_versions(org_id, agent_id, version)
);
CREATE TABLE agent_instances (
  org_id TEXT NOT NULL,
  agent_id TEXT NOT NULL,
  instance_id TEXT NOT NULL,
  instructions TEXT NOT NULL,
  PRIMARY KEY (org_id, agent_id, instance_id),
  FOREIGN KEY (org_id, agent_id) REFERENCES agents(org_id, id)
);
CREATE TABLE crm_credentials (
  org_id TEXT NOT NULL,
  env TEXT NOT NULL,
  sealed BLOB NOT NULL,
  updated_at_ms INTEGER NOT NULL,
  PRIMARY KEY (org_id, env),
  FOREIGN KEY (org_id, env) REFERENCES environments(org_id, name)
);
CREATE TABLE conversations (
  id TEXT PRIMARY KEY,
  org_id TEXT NOT NULL,
  env TEXT NOT NULL,
  agent_id TEXT NOT NULL,
  instance_id TEXT NOT NULL,
  created_at_ms INTEGER NOT NULL
);
CREATE TABLE messages (
  conversation_id TEXT NOT NULL REFERENCES conversations(id),
  seq INTEGER NOT NULL,
  role TEXT NOT NULL,
  content TEXT NOT NULL,
  created_at_ms INTEGER NOT NULL,
  PRIMARY KEY (conversation_id, seq)
);
CREATE TABLE memories (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  org_id TEXT NOT NULL,
  env TEXT NOT NULL,
  agent_id TEXT NOT NULL,
  group_key TEXT NOT NULL,
  fact TEXT NOT NULL,
  created_at_ms INTEGER NOT NULL
);
CREATE INDEX memories_scope ON memories(org_id, env, agent_id, group_key, id);
CREATE TABLE idempotency_keys (
  org_id TEXT NOT NULL,
  env TEXT NOT NULL,
  key TEXT NOT NULL,
  fingerprint TEXT NOT NULL,
  state TEXT NOT NULL,                 -- running | completed
  status INTEGER NOT NULL DEFAULT 0,
  body TEXT NOT NULL DEFAULT '',
  claimed_at_ms INTEGER NOT NULL,
  expires_at_ms INTEGER NOT NULL DEFAULT 0,
  PRIMARY KEY (org_id, env, key)
);
CREATE TABLE conversation_calls (
  conversation_id TEXT NOT NULL,
  at_ms INTEGER NOT NULL
);
CREATE INDEX conversation_calls_by_conversation ON conversation_calls(conversation_id, at_ms);
CREATE TABLE spend_totals (
  org_id TEXT NOT NULL,
  agent_id TEXT NOT NULL,
  month TEXT NOT NULL,
  settled_usd REAL NOT NULL DEFAULT 0,
  reserved_usd REAL NOT NULL DEFAULT 0,
  input_tokens INTEGER NOT NULL DEFAULT 0,
  output_tokens INTEGER NOT NULL DEFAULT 0,
  model_calls INTEGER NOT NULL DEFAULT 0,
  PRIMARY KEY (org_id, agent_id, month)
);
CREATE TABLE spend_reservations (
  id TEXT PRIMARY KEY,
  org_id TEXT NOT NULL,
  agent_id TEXT NOT NULL,
  month TEXT NOT NULL,
  amount_usd REAL NOT NULL,
  created_at_ms INTEGER NOT NULL
);
)sql",
    R"sql(
CREATE TABLE turns (
  id TEXT PRIMARY KEY,
  conversation_id TEXT NOT NULL,
  org_id TEXT NOT NULL,
  env TEXT NOT NULL,
  agent_id TEXT NOT NULL,
  version INTEGER NOT NULL,
  started_at_ms INTEGER NOT NULL,
  duration_ms INTEGER NOT NULL,
  stop_reason TEXT NOT NULL,
  blocked INTEGER NOT NULL,
  model_calls INTEGER NOT NULL,
  input_tokens INTEGER NOT NULL,
  output_tokens INTEGER NOT NULL,
  cost_usd REAL NOT NULL,
  transcript TEXT NOT NULL
);
CREATE INDEX turns_by_conversation ON turns(conversation_id, started_at_ms);
)sql",
    R"sql(
CREATE TABLE crm_refresh_claims (
  org_id TEXT NOT NULL,
  env TEXT NOT NULL,
  holder TEXT NOT NULL,
  expires_at_ms INTEGER NOT NULL,
  PRIMARY KEY (org_id, env)
);
)sql",
    R"sql(
CREATE TABLE conversation_turn_queue (
  ticket INTEGER PRIMARY KEY AUTOINCREMENT,
  conversation_id TEXT NOT NULL,
  expires_at_ms INTEGER NOT NULL
);
CREATE INDEX conversation_turn_queue_by_conversation ON conversation_turn_queue(conversation_id, ticket);
)sql",
    R"sql(
ALTER TABLE crm_credentials ADD COLUMN version INTEGER NOT NULL DEFAULT 1;
)sql",
    R"sql(
CREATE TABLE tool_secrets (
  org_id TEXT NOT NULL REFERENCES orgs(id),
  name TEXT NOT NULL,
  sealed BLOB NOT NULL,
  updated_at_ms INTEGER NOT NULL,
  PRIMARY KEY (org_id, name)
);
)sql",
    R"sql(
-- Memory recall: an FTS5 index over the facts, kept by triggers. Each fact is indexed with a token
-- naming its (org, env, agent, group) scope, so a search reads only its scope's postings.
ALTER TABLE memories ADD COLUMN scope_token TEXT GENERATED ALWAYS AS
  (lower(hex(org_id || char(31) || env || char(31) || agent_id || char(31) || group_key))) VIRTUAL;
CREATE VIRTUAL TABLE memories_fts USING fts5(scope_token, fact, content='memories',
  content_rowid='id', tokenize='porter unicode61 remove_diacritics 2');
CREATE TRIGGER memories_fts_insert AFTER INSERT ON memories BEGIN
  INSERT INTO memories_fts(rowid, scope_token, fact) VALUES (new.id, new.scope_token, new.fact);
END;
CREATE TRIGGER memories_fts_delete AFTER DELETE ON memories BEGIN
  INSERT INTO memories_fts(memories_fts, rowid, scope_token, fact)
    VALUES ('delete', old.id, old.scope_token, old.fact);
END;
INSERT INTO memories_fts(memories_fts) VALUES ('rebuild');
)sql",
    R"sql(
-- History strategy summarize: a conversation's running summary of its messages 1..through_seq.
ALTER TABLE conversations ADD COLUMN summary TEXT NOT NULL DEFAULT '';
ALTER TABLE conversations ADD COLUMN summary_through_seq INTEGER NOT NULL DEFAULT 0;
)sql",
    R"sql(
-- What the operator console browses: an org's conversations and turns by time.
CREATE INDEX conversations_by_org ON conversations(org_id, created_at_ms, id);
CREATE INDEX turns_by_org ON turns(org_id, started_at_ms);
)sql",
    R"sql(
-- The overview: turns by time across orgs, and gateway calls per day and status.
CREATE INDEX turns_by_time ON turns(started_at_ms);
CREATE TABLE gateway_calls_daily (
  day INTEGER NOT NULL,
  status INTEGER NOT NULL,
  calls INTEGER NOT NULL,
  PRIMARY KEY (day, status)
);
)sql",
    R"sql(
-- What the console shows of CRM credentials: when the operator set them, and how the last OAuth
-- refresh went (NULL: none since; '': it worked; else why it failed).
ALTER TABLE crm_credentials ADD COLUMN set_at_ms INTEGER NOT NULL DEFAULT 0;
UPDATE crm_credentials SET set_at_ms = updated_at_ms;
ALTER TABLE crm_credentials ADD COLUMN last_refresh_at_ms INTEGER;
ALTER TABLE crm_credentials ADD COLUMN last_refresh_error TEXT;
)sql",
    R"sql(
-- Retention: a conversation's UTC day of last use (its creation, then each turn that adds to it),
-- moved at most once a day, so idle conversations are found by an index; facts by their age.
ALTER TABLE conversations ADD COLUMN active_day INTEGER NOT NULL DEFAULT 0;
UPDATE conversations SET active_day = COALESCE((SELECT MAX(created_at_ms) FROM messages
  WHERE conversation_id = conversations.id), created_at_ms) / 86400000;
CREATE INDEX conversations_by_active_day ON conversations(active_day);
CREATE INDEX memories_by_time ON memories(created_at_ms);
)sql",
    R"sql(
-- A turn's commit writes every b-tree page it changes to the WAL. turns_by_org served no query,
-- and a stateless turn (conversation '') has no place in turns_by_conversation: two pages fewer.
DROP INDEX turns_by_org;
DROP INDEX turns_by_conversation;
CREATE INDEX turns_by_conversation ON turns(conversation_id, started_at_ms)
  WHERE conversation_id <> '';
)sql",
    R"sql(
-- Each server's liveness lease, and the server each queue ticket, running Idempotency-Key claim
-- and spend reservation belongs to: a server whose lease lapsed has them released.
CREATE TABLE servers (
  id TEXT PRIMARY KEY,
  started_at_ms INTEGER NOT NULL,
  lease_until_ms INTEGER NOT NULL
);
CREATE INDEX servers_by_lease ON servers(lease_until_ms);
ALTER TABLE conversation_turn_queue ADD COLUMN server_id TEXT NOT NULL DEFAULT '';
CREATE INDEX conversation_turn_queue_by_server ON conversation_turn_queue(server_id);
ALTER TABLE idempotency_keys ADD COLUMN server_id TEXT NOT NULL DEFAULT '';
CREATE INDEX idempotency_keys_running_by_server ON idempotency_keys(server_id)
  WHERE state = 'running';
ALTER TABLE spend_reservations ADD COLUMN server_id TEXT NOT NULL DEFAULT '';
CREATE INDEX spend_reservations_by_server ON spend_reservations(server_id);
)sql",
    R"sql(
-- Runs (docs/runs.md): background runs queued, claimed and ended here, with their events.
CREATE TABLE runs (
  id TEXT PRIMARY KEY,
  org_id TEXT NOT NULL,
  env TEXT NOT NULL,
  agent_id TEXT NOT NULL,
  token_id TEXT NOT NULL,
  status TEXT NOT NULL,
  conversation_id TEXT NOT NULL DEFAULT '',
  creates_conversation INTEGER NOT NULL DEFAULT 0,
  request TEXT NOT NULL DEFAULT '',
  created_at_ms INTEGER NOT NULL,
  started_at_ms INTEGER NOT NULL DEFAULT 0,
  ended_at_ms INTEGER NOT NULL DEFAULT 0,
  server_id TEXT NOT NULL DEFAULT '',
  cancel_requested INTEGER NOT NULL DEFAULT 0,
  result TEXT NOT NULL DEFAULT '',
  error TEXT NOT NULL DEFAULT ''
);
CREATE INDEX runs_queued ON runs(created_at_ms, id) WHERE status = 'queued';
CREATE INDEX runs_queued_by_org ON runs(org_id) WHERE status = 'queued';
CREATE INDEX runs_running_by_server ON runs(server_id) WHERE status = 'running';
CREATE INDEX runs_active_by_conversation ON runs(conversation_id)
  WHERE status IN ('queued', 'running');
CREATE INDEX runs_by_end ON runs(ended_at_ms) WHERE ended_at_ms > 0;
CREATE TABLE run_events (
  run_id TEXT NOT NULL,
  seq INTEGER NOT NULL,
  type TEXT NOT NULL,
  data TEXT NOT NULL,
  PRIMARY KEY (run_id, seq)
);
)sql",
    R"sql(
-- Webhooks (docs/webhooks.md): endpoints per environment, and each run end's deliveries to them.
ALTER TABLE runs ADD COLUMN notify INTEGER NOT NULL DEFAULT 0;
CREATE TABLE webhooks (
  id TEXT PRIMARY KEY,
  org_id TEXT NOT NULL,
  env TEXT NOT NULL,
  url TEXT NOT NULL,
  events TEXT NOT NULL,
  secret BLOB NOT NULL,
  created_at_ms INTEGER NOT NULL
);
CREATE INDEX webhooks_by_env ON webhooks(org_id, env);
CREATE INDEX runs_by_env ON runs(org_id, env, created_at_ms);
CREATE TABLE webhook_deliveries (
  id TEXT PRIMARY KEY,
  webhook_id TEXT NOT NULL,
  run_id TEXT NOT NULL,
  type TEXT NOT NULL,
  status TEXT NOT NULL,
  attempts INTEGER NOT NULL,
  next_attempt_at_ms INTEGER NOT NULL,
  held_until_ms INTEGER NOT NULL,
  created_at_ms INTEGER NOT NULL,
  log TEXT NOT NULL
);
CREATE INDEX webhook_deliveries_due ON webhook_deliveries(next_attempt_at_ms)
  WHERE status = 'pending';
CREATE INDEX webhook_deliveries_by_webhook ON webhook_deliveries(webhook_id, created_at_ms);
CREATE INDEX webhook_deliveries_done ON webhook_deliveries(created_at_ms)
  WHERE status <> 'pending';
)sql",
    R"sql(
-- Tool approvals (docs/daemon.md): a run paused for a person's decision keeps where its turn stopped.
ALTER TABLE runs ADD COLUMN paused TEXT NOT NULL DEFAULT '';
ALTER TABLE runs ADD COLUMN expires_at_ms INTEGER NOT NULL DEFAULT 0;
CREATE INDEX runs_paused_by_expiry ON runs(expires_at_ms) WHERE status = 'requires_action';
)sql",
    R"sql(
-- A short streamed run written once, at its end, keeps its events in its row (docs/runs.md).
ALTER TABLE runs ADD COLUMN events TEXT NOT NULL DEFAULT '';
)sql",
    R"sql(
-- Retention walks runs in the order they were written (rowid): an index on their end cost each
-- quick streamed run's commit a fifth of its row (docs/performance.md).
DROP INDEX runs_by_end;
)sql",
    R"sql(
-- A quick stateless streamed run is kept in its turn's row (docs/runs.md, "Where a run is
-- kept"): a row of its own, its indexes and its pages were a tenth of such a turn's cost.
ALTER TABLE turns ADD COLUMN run_created_at_ms INTEGER NOT NULL DEFAULT 0;
ALTER TABLE turns ADD COLUMN run TEXT NOT NULL DEFAULT '';
ALTER TABLE turns ADD COLUMN run_result TEXT NOT NULL DEFAULT '';
ALTER TABLE turns ADD COLUMN run_events TEXT NOT NULL DEFAULT '';
CREATE INDEX turns_runs_by_env ON turns(org_id, env, run_created_at_ms)
  WHERE run_created_at_ms > 0;
)sql",
    R"sql(
-- A run that has ended keeps nothing of what it held while paused (its system prompt with the
-- call's host context, its request, its tool results): docs/runs.md.
UPDATE runs SET paused = '', request = '' WHERE status IN ('completed', 'failed', 'canceled');
)sql",
    R"sql(
-- The metadata gateway needs a grant on the environment (docs/gateway.md). Every live token keeps
-- the access it had, write on every environment of its organization; tokens made later have none.
CREATE TABLE environment_grants (
  org_id TEXT NOT NULL,
  env TEXT NOT NULL,
  token_id TEXT NOT NULL REFERENCES api_tokens(id),
  permissions TEXT NOT NULL,           -- comma-separated
  PRIMARY KEY (token_id, env)
);
CREATE INDEX environment_grants_by_env ON environment_grants(org_id, env, token_id);
INSERT INTO environment_grants(org_id, env, token_id, permissions)
  SELECT t.org_id, e.name, t.id, 'metadata_write' FROM api_tokens t
  JOIN environments e ON e.org_id = t.org_id WHERE t.revoked = 0;
)sql",
    R"sql(
-- Every run has one home, its `runs` row (docs/runs.md): those kept in their turns' rows were
-- moved out first (MoveRunsOutOfTurns), and the turn's run columns go.
DROP INDEX turns_runs_by_env;
ALTER TABLE turns DROP COLUMN run_created_at_ms;
ALTER TABLE turns DROP COLUMN run;
ALTER TABLE turns DROP COLUMN run_result;
ALTER TABLE turns DROP COLUMN run_events;
)sql",
    R"sql(
-- A webhook claim counts the deliveries in flight (held) per webhook and per organization, and
-- an organization's queue bound counts its paused runs with its queued ones (docs/runs.md).
CREATE INDEX IF NOT EXISTS webhook_deliveries_held ON webhook_deliveries(held_until_ms)
  WHERE status = 'pending';
CREATE INDEX IF NOT EXISTS runs_waiting_by_org ON runs(org_id)
  WHERE status IN ('queued', 'requires_action');
)sql",
    R"sql(
-- Each message names the turn that wrote it: a Responses call continuing from a response checks
-- that the conversation's last reply is that response's (docs/openai.md). Older messages name none.
ALTER TABLE messages ADD COLUMN turn_id TEXT NOT NULL DEFAULT '';
)sql",
    R"sql(
-- OAuth clients of the built-in authorization server (docs/mcp.md): each bound to an API token
-- in one environment; the secret kept as its SHA-256.
CREATE TABLE IF NOT EXISTS oauth_clients (
  id TEXT PRIMARY KEY,
  org_id TEXT NOT NULL,
  env TEXT NOT NULL,
  token_id TEXT NOT NULL,
  name TEXT NOT NULL,
  secret_hash BLOB NOT NULL,
  created_at_ms INTEGER NOT NULL
);
CREATE INDEX IF NOT EXISTS oauth_clients_by_env ON oauth_clients(org_id, env, created_at_ms);
)sql",
    R"sql(
-- The authorization server's signing keys (docs/mcp.md, OAuth): the private part sealed under the
-- master key; retired_at_ms 0 for the current one. Retired keys are purged once their tokens
-- have expired.
CREATE TABLE IF NOT EXISTS oauth_signing_keys (
  kid TEXT PRIMARY KEY,
  sealed_private BLOB NOT NULL,
  public_point BLOB NOT NULL,
  created_at_ms INTEGER NOT NULL,
  retired_at_ms INTEGER NOT NULL DEFAULT 0
);
)sql",
    R"sql(
-- A queue ticket whose turn a newer call interrupted ("if_busy": "interrupt", docs/daemon.md):
-- its turn may no longer commit, and its server ends it superseded.
ALTER TABLE conversation_turn_queue ADD COLUMN superseded INTEGER NOT NULL DEFAULT 0;
-- A background run's place, taken as it is queued (docs/runs.md): its run's id, and no server
-- until the run's turn starts.
ALTER TABLE conversation_turn_queue ADD COLUMN run_id TEXT NOT NULL DEFAULT '';
CREATE INDEX conversation_turn_queue_by_run ON conversation_turn_queue(run_id) WHERE run_id <> '';
)sql",
    R"sql(
-- A run claimed from the queue is a background run: what [runs] max_running_per_org counts
-- (docs/runs.md, "Fair shares"). Runs running as this migration runs count from their next claim.
ALTER TABLE runs ADD COLUMN background INTEGER NOT NULL DEFAULT 0;
CREATE INDEX runs_background_running_by_org ON runs(org_id) WHERE status = 'running' AND background = 1;
-- Each organization's queued runs, oldest first: what a fair claim reads.
CREATE INDEX runs_queued_by_org_age ON runs(org_id, created_at_ms, id) WHERE status = 'queued';
)sql",
    R"sql(
-- A conversation's metadata, as the Conversations API keeps it (docs/openai.md): a JSON object's
-- text, '' for none.
ALTER TABLE conversations ADD COLUMN metadata TEXT NOT NULL DEFAULT '';
)sql",
    R"sql(
-- What a Responses API call asked, echoed when its response is read back (docs/openai.md); kept
-- as long as turns are.
CREATE TABLE IF NOT EXISTS response_asks (
  response_id TEXT PRIMARY KEY,
  org_id TEXT NOT NULL,
  env TEXT NOT NULL,
  asked_json TEXT NOT NULL,
  created_at_ms INTEGER NOT NULL
);
CREATE INDEX IF NOT EXISTS response_asks_by_age ON response_asks(created_at_ms);
)sql",
    // An agent deployed in an environment may be marked discoverable: its A2A card is read
    // anonymously (docs/a2a.md). An agent's runs of a conversation are listed as its A2A tasks;
    // a stateless run (the hot path's) writes no page of this index.
    R"sql(
ALTER TABLE deployments ADD COLUMN a2a_discoverable INTEGER NOT NULL DEFAULT 0;
CREATE INDEX IF NOT EXISTS runs_by_agent ON runs(org_id, env, agent_id) WHERE conversation_id != '';
)sql",
    // An A2A task's push configs are webhooks of one run (docs/a2a.md, "Push notifications").
    R"sql(
ALTER TABLE webhooks ADD COLUMN run_id TEXT NOT NULL DEFAULT '';
ALTER TABLE webhooks ADD COLUMN config_id TEXT NOT NULL DEFAULT '';
ALTER TABLE webhooks ADD COLUMN format TEXT NOT NULL DEFAULT '';
ALTER TABLE webhooks ADD COLUMN auth_scheme TEXT NOT NULL DEFAULT '';
CREATE UNIQUE INDEX webhooks_by_run ON webhooks(run_id, config_id) WHERE run_id <> '';
)sql"};

// Code a migration runs before its SQL (by its version, 1-based): what SQL alone cannot decode.
struct MigrationCode {
  std::size_t version;
  void (*run)(sqlite::Connection&);
};
constexpr std::array<MigrationCode, 1> kMigrationCode = {{{23, MoveRunsOutOfTurns}}};

}  // namespace

void MigrateSqlite(sqlite::Connection& c) {
  sqlite::WriteTransaction tx(c);
  c.Exec("CREATE TABLE IF NOT EXISTS schema_migrations (version INTEGER PRIMARY KEY)");
  std::size_t applied = 0;
  {
    auto current = c.Prepare("SELECT COALESCE(MAX(version), 0) FROM schema_migrations");
    current.Step();
    applied = static_cast<std::size_t>(current.Int(0));
  }
  for (std::size_t v = applied; v < kMigrations.size(); ++v) {
    for (const auto& code : kMigrationCode) {
      if (code.version == v + 1) code.run(c);
    }
    c.Exec(kMigrations[v]);
    c.Prepare("INSERT INTO schema_migrations(version) VALUES (?)")
        .Bind(static_cast<std::int64_t>(v + 1))
        .Run();
  }
  tx.Commit();
}

}  // namespace agentgate
