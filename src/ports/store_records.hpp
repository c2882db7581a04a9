#pragma once
// Plain records the stores read and write. Times are milliseconds since the Unix epoch (UTC).

#include "domain/governance/decisions.hpp"
#include "domain/runs/run_events.hpp"

#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace agentgate {

struct OrgRecord {
  std::string id;
  std::string name;
  std::optional<double> monthly_spend_limit_usd;
  std::int64_t created_at_ms = 0;
};

struct TokenRecord {
  std::string id;
  std::string org_id;
  std::string name;
  std::string secret_hash;                // SHA-256 of the secret, raw bytes
  std::vector<std::string> environments;  // empty = every environment of the org
  std::int64_t created_at_ms = 0;
  bool revoked = false;
};

// An OAuth client of the built-in authorization server (docs/mcp.md, OAuth): a machine client
// (Agentforce's MCP client, a connector) that trades its secret for access tokens acting as the
// API token it is bound to, in one environment, so its grants are the token's.
struct OAuthClientRecord {
  std::string id;  // the client_id: "agc_<hex>"
  std::string org_id;
  std::string env;
  std::string token_id;
  std::string name;
  std::string secret_hash;  // SHA-256 of the secret, raw bytes; empty when listed
  std::int64_t created_at_ms = 0;
};

// A signing key of the authorization server's access tokens (ES256, crypto/jws). The current key
// signs; a retired one still verifies the tokens it signed until they expire, then is purged.
struct SigningKeyRecord {
  std::string kid;
  std::string sealed_private;  // the private scalar, sealed under the master key (crypto::Seal)
  std::string public_point;    // 65 bytes, uncompressed
  std::int64_t created_at_ms = 0;
  std::int64_t retired_at_ms = 0;  // 0: current
};

struct AgentVersionRecord {
  std::string org_id;
  std::string agent_id;
  int version = 0;
  std::string config_json;
  std::int64_t created_at_ms = 0;
};

struct InstanceRecord {
  std::string org_id;
  std::string agent_id;
  std::string instance_id;
  std::string instructions;
};

struct DeploymentRecord {
  std::string agent_id;
  std::string env;
  int version = 0;
  bool a2a_discoverable = false;  // its A2A card is read anonymously (docs/a2a.md)
};

struct GrantRecord {
  std::string token_id;
  std::string agent_id;
  std::vector<std::string> permissions;
};

// What a token may do on a whole environment (the metadata gateway's permissions).
struct EnvironmentGrantRecord {
  std::string token_id;
  std::string env;
  std::vector<std::string> permissions;
};

struct ToolSecretRecord {
  std::string org_id;
  std::string name;
  std::string sealed;  // AES-256-GCM under the master key; never stored in the clear
  std::int64_t updated_at_ms = 0;
};

struct CrmCredentialRecord {
  std::string org_id;
  std::string env;
  std::string sealed;  // AES-256-GCM under the master key; never stored in the clear
  std::int64_t updated_at_ms = 0;
  std::int64_t version = 0;  // assigned by the store: every write makes the next one
};

// What an operator sees of an environment's CRM credentials (never the secrets).
struct CrmCredentialStatus {
  std::int64_t set_at_ms = 0;  // when the operator last put them
  std::int64_t version = 0;
  std::optional<std::int64_t> last_refresh_at_ms;  // none since they were put
  std::string last_refresh_error;                  // "" when that refresh worked
};

struct ConversationRecord {
  std::string id;
  std::string org_id;
  std::string env;
  std::string agent_id;
  std::string instance_id;  // empty for agents that are not per-instance
  std::int64_t created_at_ms = 0;
  // A JSON object's text, as the Conversations API set it ("" for none). A conversation created
  // there is bound to no agent (agent_id "") until its first response (docs/openai.md).
  std::string metadata_json = {};
};

struct MessageRecord {
  std::int64_t seq = 0;  // assigned by the store, 1-based, in append order
  std::string role;      // "user" | "assistant"
  std::string content;
  std::int64_t created_at_ms = 0;
  std::string turn_id =
      {};  // the turn that wrote it ("" for messages from before turns were named)
};

// A page of a conversation's items (ConversationStore::ConversationItems).
struct ItemPage {
  std::optional<std::int64_t> after_seq;
  int limit = 20;
  bool descending = false;
};

// One agent turn as the operator sees it: what was sent, tool calls, stop reason, usage, time.
struct TurnRecord {
  std::string id;
  std::string conversation_id;  // empty for stateless turns
  std::string org_id;
  std::string env;
  std::string agent_id;
  int version = 0;
  std::int64_t started_at_ms = 0;
  std::int64_t duration_ms = 0;
  std::string stop_reason;  // empty for a normal finish
  bool blocked = false;
  int model_calls = 0;
  std::int64_t input_tokens = 0;
  std::int64_t output_tokens = 0;
  double cost_usd = 0;
  std::string transcript_json;  // messages and tool calls; withheld text is never in it
};

// What a Responses API call asked, echoed when its response is read back: `asked_json` is the
// response's echo of the request (domain/openai/response_shape), bounded as the request is.
struct ResponseAsk {
  std::string response_id;
  std::string org_id;
  std::string env;
  std::string asked_json;
  std::int64_t created_at_ms = 0;
};

struct IdempotencyScope {
  std::string org_id;
  std::string env;
  std::string key;
};

// A running claim's completion: the answer replayed for the key. `claimed_at_ms` names the claim
// (the time it was taken); a claim another server has since taken over is not completed.
struct IdempotencyCompletion {
  IdempotencyScope scope;
  std::int64_t claimed_at_ms = 0;
  int status = 200;
  std::string body;
  std::int64_t expires_at_ms = 0;
};

// One model call's real cost, replacing the part `reserved_usd` of reservation `reservation_id`
// that was set aside for it (of the settlement's org, agent and month).
struct SpendSettlement {
  std::string reservation_id;
  double cost_usd = 0;
  std::int64_t input_tokens = 0;
  std::int64_t output_tokens = 0;
  std::string org_id;
  std::string agent_id;
  std::string month;
  double reserved_usd = 0;
};

struct MemoryScope {
  std::string org_id;
  std::string env;
  std::string agent_id;
  std::string group_key;  // "" = the agent's default group
};

// A fact the model saved with `remember`; it is stored with its turn.
struct RememberedFact {
  MemoryScope scope;
  std::string fact;
  std::int64_t created_at_ms = 0;
};

// Everything a finished turn writes, in one transaction: its messages (stateful turns), its
// record, the settlement of its model calls' spend, and the answer to its Idempotency-Key; for a
// first stateful call the conversation itself (with that call in its call window), and the facts
// the turn remembered. A turn is wholly committed, with its answer replayable, or not there at
// all; it can never be committed and then run again, and a turn that is not committed has spent
// nothing, created no conversation and remembered nothing.
// A conversation's running summary (history strategy summarize): the gist of its messages
// 1..through_seq; through_seq 0 while none was made.
struct ConversationSummary {
  std::string text;
  std::int64_t through_seq = 0;
};

// A run someone may watch, leave or stop (docs/runs.md): a background run from queued to its end.
struct RunRecord {
  std::string id;
  std::string org_id;
  std::string env;
  std::string agent_id;
  std::string token_id;  // whose call queued it: the run runs as that caller
  RunStatus status = RunStatus::kQueued;
  std::string conversation_id{};      // "" for a stateless run
  bool creates_conversation = false;  // its turn's commit creates conversation_id
  std::string request_json{};         // the turn's request while queued; "" once started
  std::int64_t created_at_ms = 0;
  std::int64_t started_at_ms = 0;  // 0 while queued
  std::int64_t ended_at_ms = 0;    // 0 until it ends
  std::string server_id{};         // the server running it
  bool cancel_requested = false;
  std::string result_json{};  // completed: the plain call's 200 body
  std::string error_json{};   // failed or canceled: {status, code, message}
  bool notify = false;        // its end is delivered to its environment's webhooks
  // requires_action: where its turn paused (domain/runs/paused_turn), and when it expires
  std::string paused_json{};
  std::int64_t expires_at_ms = 0;
};

// Which of an agent's runs a page lists (Store::ListAgentRuns).
struct AgentRunsQuery {
  std::string org_id;
  std::string env;
  std::string agent_id;
  std::string conversation_id;  // "": any
  // The outcomes listed, as ",completed,stopped," ("": any): a run's status, but a completed run
  // whose turn stopped short or whose reply was blocked is "stopped".
  std::string outcomes;
  std::int64_t changed_after_ms = 0;  // its latest change after this (0: any)
  // The page starts after this run, the previous page's last (0: from the latest).
  std::int64_t before_changed_ms = 0;
  std::string before_id;
  int limit = 50;
};

// A turn that paused for approval (docs/daemon.md, Tool approvals): its commit writes the run as
// requires_action, a new run for a plain call, else the running run it is.
struct RunPause {
  RunRecord run;  // status requires_action, paused_json, expires_at_ms set
  // Written as a new row: a plain call's run, or a streamed run not written yet (which its
  // recorder may write meanwhile: then it is paused as a running run is).
  bool create = false;
  // Written with a new plain call's run: its run.started and run.requires_action, so a follower
  // of the run reads why it waits, as a streamed run's does.
  std::vector<RunEvent> events{};
};

// One write to a run's record, made in the store's group commit beside turns and other runs'
// writes (runtime/turn_committer.hpp). A write that is refused has written nothing.
struct RunWrite {
  enum class Kind {
    kCreate,  // `run` queued (unless its organization has `max_queued`: false), or running on its
              // server with its `events` so far; `answer` completes the call's key with it
              // (kConflict when taken over). A running run already there (its turn's pause wrote
              // it first) is left as it is and gets the events.
    kAppend,  // `events` added to run `run.id`
    kFinish,  // `run` ends as it says, `events` (its terminal one last) with it; false when it was
              // not running (canceled, or interrupted, meanwhile)
    kCreateEnded,  // `run` written once, as it ended, with its `events`: a short streamed run
                   // never written before (docs/runs.md)
  };
  Kind kind = Kind::kAppend;
  RunRecord run{};
  std::vector<RunEvent> events{};
  int max_queued = 0;
  std::optional<IdempotencyCompletion> answer{};
};

// A queue ticket an interrupting call superseded, and the server whose turn holds it.
struct SupersededTicket {
  std::int64_t ticket = 0;
  std::string server_id;  // "" for a queued run's place (its run_id)
  std::string run_id;     // a background run's place
};

struct TurnCommit {
  TurnRecord turn;
  std::vector<MessageRecord> messages;  // appended to turn.conversation_id, seq assigned in order
  std::vector<SpendSettlement> settlements;
  std::optional<IdempotencyCompletion> idempotency;
  std::optional<ConversationRecord> new_conversation;  // its id is turn.conversation_id
  std::vector<RememberedFact> facts;
  std::optional<ConversationSummary> summary;  // replaces turn.conversation_id's summary
  std::optional<std::int64_t> queue_ticket{};  // the conversation place the turn held
  std::optional<RunPause> pause{};             // the turn paused for approval
  // The turn's run, never written before (a short streamed run, docs/runs.md), written as it
  // ended with the turn (a RunWrite::kCreateEnded): one write for both, refused with the turn.
  std::optional<RunWrite> ended_run{};
};

// A webhook endpoint of an environment (docs/webhooks.md).
struct WebhookRecord {
  std::string id;
  std::string org_id;
  std::string env;
  std::string url;
  std::vector<std::string> events;  // which run ends it is sent
  std::string sealed_secret;        // the signing secret, sealed under the master key
  std::int64_t created_at_ms = 0;
  // An A2A task's push notification config (docs/a2a.md, "Push notifications") is a webhook of
  // one run: sent that run's pauses and end, in A2A's payload, authenticated its way.
  std::string run_id = {};       // "" for an environment's webhook
  std::string config_id = {};    // the caller's name for it, unique per run
  std::string format = {};       // "" Standard Webhooks; kA2aPush or kA2aLegacyPush
  std::string auth_scheme = {};  // its `authentication.scheme` (the credentials are sealed)
};

inline constexpr std::string_view kA2aPush = "a2a";            // a StreamResponse, A2A 1.0
inline constexpr std::string_view kA2aLegacyPush = "a2a-0.3";  // the Task itself, A2A 0.3

// How saving a task's push config went (Store::SaveTaskPushConfig).
enum class PushConfigSaved { kCreated, kReplaced, kFull };

// One run end on its way to one webhook: sent until answered 2xx, or until its retries are spent.
// Its id is the `webhook-id` of every attempt, so a receiver dedupes retries.
struct WebhookDelivery {
  std::string id;
  std::string webhook_id;
  std::string run_id;
  std::string type;    // run.completed, run.failed, run.canceled or run.requires_action
  std::string status;  // pending, delivered or failed
  int attempts = 0;
  std::int64_t next_attempt_at_ms = 0;
  std::int64_t created_at_ms = 0;
  std::string attempts_json = "[]";  // [{at, status, ms, error}], one per attempt
};

// How many deliveries may be in flight at once ([webhooks] max_in_flight_per_*): so that one
// slow endpoint, or one tenant's many, holds back nobody else's.
struct WebhookShares {
  int per_webhook = 4;
  int per_org = 16;
};

// A delivery claimed for an attempt, with what the attempt needs.
struct WebhookJob {
  WebhookDelivery delivery;
  WebhookRecord webhook;
  std::optional<RunRecord> run;  // none once purged
};

struct SpendReservationRequest {
  std::string org_id;
  std::string agent_id;
  std::string month;      // YYYY-MM (UTC)
  double amount_usd = 0;  // at least this much: one model call's worst case
  // The org's limit is read in the reservation's own transaction, so a limit the operator just
  // changed holds at once on every server; the agent's comes with its (immutable) version.
  std::optional<double> agent_limit_usd;
  std::int64_t now_ms = 0;
  // And up to this much while the limits leave room (governance::GrantSpend): a server's lease,
  // from which it reserves later calls without a store trip (runtime/spend_ledger).
  double wanted_usd = 0;
  std::string server_id{};  // whose lease: released with the server's liveness lease
};

struct SpendDecision {
  bool reserved = false;
  std::string reservation_id;  // when reserved
  // When refused: which limit, and what was spent (settled + reserved) against it.
  std::string scope;  // "organization" | "agent"
  double limit_usd = 0;
  double spent_usd = 0;
  double amount_usd = 0;  // when reserved: how much
};

struct UsageRow {
  std::string agent_id;
  double spent_usd = 0;
  double reserved_usd = 0;
  std::int64_t input_tokens = 0;
  std::int64_t output_tokens = 0;
  std::int64_t model_calls = 0;
};

struct MemoryEntry {
  std::int64_t id = 0;
  std::string fact;
  std::int64_t created_at_ms = 0;
  MemoryScope scope;  // filled by ListMemoryPage (the operator's view)
};

// Which facts an operator lists or deletes: an org's, optionally of one agent, env and group.
struct MemoryFilter {
  std::string org_id;
  std::optional<std::string> agent_id;
  std::optional<std::string> env;
  std::optional<std::string> group_key;  // "" = the agent's default group
};

// A count for one UTC day (days since the Unix epoch) and one key (a stop reason, a status).
struct DailyCount {
  std::int64_t day = 0;
  std::string key;
  std::int64_t count = 0;
};

struct DurationPercentiles {
  std::int64_t turns = 0;
  std::int64_t p50_ms = 0;
  std::int64_t p95_ms = 0;
};

struct OrgSpend {
  std::string org_id;
  double settled_usd = 0;
  double reserved_usd = 0;
};

// Which conversations an operator lists: an org's, optionally of one agent and env, created in
// [since_ms, until_ms), newest first, the page before `before` (created_at_ms, id).
struct ConversationFilter {
  std::string org_id;
  std::optional<std::string> agent_id;
  std::optional<std::string> env;
  std::int64_t since_ms = 0;
  std::int64_t until_ms = std::numeric_limits<std::int64_t>::max();
  std::optional<std::pair<std::int64_t, std::string>> before;
};

struct ConversationListing {
  ConversationRecord conversation;
  std::int64_t turns = 0;
  std::int64_t last_turn_at_ms = 0;  // 0 before its first turn commits
  double cost_usd = 0;
};

}  // namespace agentgate
