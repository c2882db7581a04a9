#pragma once
// The store interface. Every call is one transaction with the same meaning on every backend
// (SQLite embedded, PostgreSQL shared); calls block, so callers run them on the blocking pool
// through StoreRunner, never on an I/O thread.

#include "domain/error.hpp"
#include "ports/store_records.hpp"

#include <limits>
#include <optional>
#include <string>
#include <vector>

namespace agentgate {

// Organizations, environments, tokens, grants, agents and CRM credentials: what the operator sets
// up.
class TenantStore {
 public:
  static constexpr int kMaxListedEnvironments = 1000;
  static constexpr int kMaxListedDeployments = 10000;
  virtual ~TenantStore() = default;

  virtual Result<void> CreateOrg(const OrgRecord& org) = 0;  // kConflict if the id exists
  virtual Result<std::optional<OrgRecord>> GetOrg(const std::string& org_id) = 0;
  virtual Result<bool> SetOrgSpendLimit(const std::string& org_id,
                                        std::optional<double> limit_usd) = 0;
  virtual Result<std::int64_t> CountOrgs() = 0;
  // What an operator browses. Orgs by id, the page after `after_id` ("" = the first page).
  virtual Result<std::vector<OrgRecord>> ListOrgs(const std::string& after_id, int limit) = 0;
  // By name, at most kMaxListedEnvironments.
  virtual Result<std::vector<std::string>> ListEnvironments(const std::string& org_id) = 0;
  // Newest first, revoked ones included, at most `limit`; secret hashes are left empty.
  virtual Result<std::vector<TokenRecord>> ListTokens(const std::string& org_id, int limit) = 0;
  // Each agent's latest version, by agent id, at most `limit`.
  virtual Result<std::vector<AgentVersionRecord>> ListAgents(const std::string& org_id,
                                                             int limit) = 0;
  // Newest first, at most `limit`.
  virtual Result<std::vector<AgentVersionRecord>> ListAgentVersions(const std::string& org_id,
                                                                    const std::string& agent_id,
                                                                    int limit) = 0;
  // Every deployment of the org, by agent then environment.
  virtual Result<std::vector<DeploymentRecord>> ListDeployments(const std::string& org_id) = 0;
  // One agent's grants and instances, by token id and instance id, at most `limit`.
  virtual Result<std::vector<GrantRecord>> ListGrants(const std::string& org_id,
                                                      const std::string& agent_id, int limit) = 0;
  virtual Result<std::vector<InstanceRecord>> ListInstances(const std::string& org_id,
                                                            const std::string& agent_id,
                                                            int limit) = 0;

  virtual Result<void> CreateEnvironment(const std::string& org_id, const std::string& env) = 0;
  virtual Result<bool> HasEnvironment(const std::string& org_id, const std::string& env) = 0;

  virtual Result<void> CreateToken(const TokenRecord& token) = 0;
  virtual Result<std::optional<TokenRecord>> GetToken(const std::string& token_id) = 0;
  virtual Result<bool> RevokeToken(const std::string& org_id, const std::string& token_id) = 0;

  // OAuth clients (docs/mcp.md, OAuth). A revoked client is deleted: nothing of it is kept.
  virtual Result<void> CreateOAuthClient(const OAuthClientRecord& client) = 0;
  virtual Result<std::optional<OAuthClientRecord>> GetOAuthClient(const std::string& client_id) = 0;
  // An environment's, newest first, at most `limit`; secret hashes are left empty.
  virtual Result<std::vector<OAuthClientRecord>> ListOAuthClients(const std::string& org_id,
                                                                  const std::string& env,
                                                                  int limit) = 0;
  // Whether the environment had it.
  virtual Result<bool> DeleteOAuthClient(const std::string& org_id, const std::string& env,
                                         const std::string& client_id) = 0;

  // The authorization server's signing keys, newest first.
  virtual Result<std::vector<SigningKeyRecord>> ListSigningKeys() = 0;
  // Adds `key` as the current key, retiring the current ones at its creation time, in one
  // transaction; with `only_if_none`, adds nothing (false) when a current key exists (a first
  // use racing another server's).
  virtual Result<bool> AddSigningKey(const SigningKeyRecord& key, bool only_if_none) = 0;
  // Deletes the keys retired before `before_ms`; how many.
  virtual Result<std::int64_t> PurgeSigningKeys(std::int64_t retired_before_ms) = 0;
  // Deletes one key at once, current or retired (an operator's revocation); whether it was kept.
  virtual Result<bool> DeleteSigningKey(const std::string& kid) = 0;

  // An empty permission list removes the grant.
  virtual Result<void> PutGrant(const std::string& org_id, const std::string& token_id,
                                const std::string& agent_id,
                                const std::vector<std::string>& permissions) = 0;
  virtual Result<std::vector<std::string>> GetGrant(const std::string& token_id,
                                                    const std::string& agent_id) = 0;
  // A token's permissions on an environment (metadata_read, metadata_write: docs/gateway.md); an
  // empty list removes the grant.
  virtual Result<void> PutEnvironmentGrant(const std::string& org_id, const std::string& env,
                                           const std::string& token_id,
                                           const std::vector<std::string>& permissions) = 0;
  virtual Result<std::vector<std::string>> GetEnvironmentGrant(const std::string& token_id,
                                                               const std::string& env) = 0;
  // An environment's grants, by token id, at most `limit`.
  virtual Result<std::vector<EnvironmentGrantRecord>> ListEnvironmentGrants(
      const std::string& org_id, const std::string& env, int limit) = 0;

  // Creates the agent with version 1; kConflict if the id exists in the org.
  virtual Result<void> CreateAgent(const AgentVersionRecord& first_version) = 0;
  // Appends the next version; nullopt if the agent does not exist.
  virtual Result<std::optional<int>> AddAgentVersion(const std::string& org_id,
                                                     const std::string& agent_id,
                                                     const std::string& config_json,
                                                     std::int64_t now_ms) = 0;
  virtual Result<std::optional<AgentVersionRecord>> GetAgentVersion(const std::string& org_id,
                                                                    const std::string& agent_id,
                                                                    int version) = 0;
  // kNotFound if the version does not exist.
  virtual Result<void> SetDeployment(const std::string& org_id, const std::string& agent_id,
                                     const std::string& env, int version) = 0;
  virtual Result<std::optional<int>> GetDeployment(const std::string& org_id,
                                                   const std::string& agent_id,
                                                   const std::string& env) = 0;
  // Whether the deployment's A2A card is read anonymously (docs/a2a.md); kept across redeploys.
  // Setting it answers false when the agent is not deployed there; reading it, false too.
  virtual Result<bool> SetA2aDiscoverable(const std::string& org_id, const std::string& agent_id,
                                          const std::string& env, bool discoverable) = 0;
  virtual Result<bool> IsA2aDiscoverable(const std::string& org_id, const std::string& agent_id,
                                         const std::string& env) = 0;
  virtual Result<void> CreateInstance(
      const InstanceRecord& instance) = 0;  // kConflict if it exists
  virtual Result<std::optional<InstanceRecord>> GetInstance(const std::string& org_id,
                                                            const std::string& agent_id,
                                                            const std::string& instance_id) = 0;

  // Every version some environment runs (start-up checks them against the configured prices).
  virtual Result<std::vector<AgentVersionRecord>> ListDeployedVersions() = 0;
  // The version `env` runs of each agent `token_id` has a chat grant on (what an MCP client may
  // call), by agent id.
  virtual Result<std::vector<AgentVersionRecord>> ListChatAgents(const std::string& org_id,
                                                                 const std::string& env,
                                                                 const std::string& token_id) = 0;

  // The operator's credentials replace whatever is stored; returns the new version. A server's
  // cached session belongs to one version, so a replacement takes effect on every server's next
  // call.
  virtual Result<std::int64_t> PutCrmCredential(const CrmCredentialRecord& credential) = 0;
  // A refreshed session (and a rotated refresh token) written back only if the stored version is
  // still `expected_version`: a refresh never overwrites credentials the operator replaced while
  // it ran. The new version, or nullopt when the version had moved (nothing written).
  virtual Result<std::optional<std::int64_t>> SaveRefreshedCrmCredential(
      const CrmCredentialRecord& credential, std::int64_t expected_version) = 0;
  virtual Result<std::optional<CrmCredentialRecord>> GetCrmCredential(const std::string& org_id,
                                                                      const std::string& env) = 0;
  // Only the version: what a gateway call checks its cached session against.
  virtual Result<std::optional<std::int64_t>> GetCrmCredentialVersion(const std::string& org_id,
                                                                      const std::string& env) = 0;
  // Any CRM credential or tool secret: such a store cannot be served without the master key.
  virtual Result<bool> HasAnySealedSecret() = 0;

  // Secrets an org's tool headers name ({"secret": NAME}), sealed by the caller. Put inserts or
  // replaces; Delete is false when there was none.
  virtual Result<void> PutToolSecret(const ToolSecretRecord& secret) = 0;
  virtual Result<std::optional<ToolSecretRecord>> GetToolSecret(const std::string& org_id,
                                                                const std::string& name) = 0;
  virtual Result<bool> DeleteToolSecret(const std::string& org_id, const std::string& name) = 0;
  // Names and update times, by name; `sealed` is left empty.
  virtual Result<std::vector<ToolSecretRecord>> ListToolSecrets(const std::string& org_id) = 0;
  // Serialises OAuth refreshes of one credential across servers (rotated refresh tokens are
  // single-use): true when `holder` holds the claim now (it was free, expired, or already its own).
  virtual Result<bool> ClaimCrmRefresh(const std::string& org_id, const std::string& env,
                                       const std::string& holder, std::int64_t now_ms,
                                       std::int64_t ttl_ms) = 0;
  virtual Result<void> ReleaseCrmRefresh(const std::string& org_id, const std::string& env,
                                         const std::string& holder) = 0;
  // How a refresh at `at_ms` went ("" = it worked), kept for the operator until the next one or
  // until new credentials are put.
  virtual Result<void> RecordCrmRefresh(const std::string& org_id, const std::string& env,
                                        std::int64_t at_ms, const std::string& error) = 0;
  virtual Result<std::optional<CrmCredentialStatus>> GetCrmCredentialStatus(
      const std::string& org_id, const std::string& env) = 0;
};

// Conversations and long-term memory.
class ConversationStore {
 public:
  virtual ~ConversationStore() = default;

  virtual Result<void> CreateConversation(const ConversationRecord& conversation) = 0;
  virtual Result<std::optional<ConversationRecord>> GetConversation(const std::string& id) = 0;
  virtual Result<std::vector<MessageRecord>> LoadMessages(const std::string& conversation_id) = 0;
  // The conversation's newest messages, oldest first: read from the tail until their contents
  // total more than `max_bytes` (the message that crosses it included) or `max_messages` are
  // read, so a turn's cost does not grow with the conversation's length.
  virtual Result<std::vector<MessageRecord>> LoadRecentMessages(const std::string& conversation_id,
                                                                std::size_t max_bytes,
                                                                std::size_t max_messages) = 0;
  // The turn that wrote the conversation's last message ("" with no messages, or one from before
  // messages named their turn): whether a response is the conversation's latest (docs/openai.md).
  virtual Result<std::string> LastMessageTurn(const std::string& conversation_id) = 0;
  // The messages a turn wrote to its conversation, oldest first (a stored response read back:
  // docs/openai.md). Read along the conversation's key: a read of one response, not of a turn.
  virtual Result<std::vector<MessageRecord>> TurnMessages(const std::string& conversation_id,
                                                          const std::string& turn_id) = 0;
  // The Conversations API (docs/openai.md, "Conversations"): a conversation's messages are its
  // items. One page of them, in the order asked: after seq `page.after_seq` (ascending: above
  // it; descending: below it), from the first or the newest without one; at most `page.limit`.
  virtual Result<std::vector<MessageRecord>> ConversationItems(const std::string& conversation_id,
                                                               const ItemPage& page) = 0;
  // The three below refuse with kConversationBusy, writing nothing, while a turn is queued or
  // running on the conversation (as ConversationBusy says at `now_ms`): a turn's history is not
  // changed under it. Appends `items` in order (returned with their seq) and marks the
  // conversation active; kConversationNotFound for none.
  virtual Result<std::vector<MessageRecord>> AppendConversationItems(
      const std::string& conversation_id, const std::vector<MessageRecord>& items,
      std::int64_t now_ms) = 0;
  // Deletes message `seq`; false when there was none.
  virtual Result<bool> DeleteConversationItem(const std::string& conversation_id, std::int64_t seq,
                                              std::int64_t now_ms) = 0;
  // Deletes the conversation with all of its, as PurgeIdleConversations does; false for none.
  virtual Result<bool> DeleteConversation(const std::string& conversation_id,
                                          std::int64_t now_ms) = 0;
  virtual Result<void> SetConversationMetadata(const std::string& conversation_id,
                                               const std::string& metadata_json) = 0;
  // Binds a conversation bound to no agent to `agent_id` (and `instance_id`); one already bound
  // stays as it is (read it again to see to which: of two first responses, one binds it).
  virtual Result<void> BindConversation(const std::string& conversation_id,
                                        const std::string& agent_id,
                                        const std::string& instance_id) = 0;
  // What a Responses API call asked that its turn does not keep (docs/openai.md, "The
  // response"): its echo, read back with the response. Kept as long as turns are (PurgeTurns).
  virtual Result<void> PutResponseAsk(const ResponseAsk& ask) = 0;
  virtual Result<std::optional<ResponseAsk>> GetResponseAsk(const std::string& response_id) = 0;
  // The summary the conversation's turns made so far (empty with through_seq 0 when none).
  virtual Result<ConversationSummary> LoadConversationSummary(
      const std::string& conversation_id) = 0;

  // Turn order on one conversation across servers: a ticket in arrival order, held by server
  // `server_id`; a turn runs when no live ticket of another server is older than its own (a
  // server orders its own turns in memory, so its own tickets, even one it failed to delete, never
  // hold it up). Tickets expire at `expires_at_ms`, and go with their server's lease.
  virtual Result<std::int64_t> EnqueueTurn(const std::string& conversation_id,
                                           std::int64_t expires_at_ms,
                                           const std::string& server_id) = 0;
  virtual Result<bool> IsTurnAtHead(const std::string& conversation_id, std::int64_t ticket,
                                    std::int64_t now_ms, const std::string& server_id) = 0;
  virtual Result<void> DequeueTurn(std::int64_t ticket) = 0;
  // "if_busy": "interrupt" (docs/daemon.md): every live ticket on the conversation older than
  // `ticket` is marked superseded, so its turn can no longer commit; each with its server, which
  // ends the turn. A ticket its turn's commit took first is not among them.
  virtual Result<std::vector<SupersededTicket>> SupersedeTurns(const std::string& conversation_id,
                                                               std::int64_t ticket,
                                                               std::int64_t now_ms) = 0;
  // The tickets of `server_id` that a call on another server superseded.
  virtual Result<std::vector<std::int64_t>> SupersededTickets(const std::string& server_id) = 0;
  // A background run's place in its conversation's line, taken as it was queued (none for a run
  // that took none); its turn takes it over with TakeRunPlace (its server, and its cap as expiry).
  virtual Result<std::optional<std::int64_t>> RunPlace(const std::string& run_id) = 0;
  virtual Result<std::optional<std::int64_t>> TakeRunPlace(const std::string& run_id,
                                                           const std::string& server_id,
                                                           std::int64_t expires_at_ms) = 0;

  // Commits each turn all or nothing (see TurnCommit), several in one store transaction (group
  // commit): a result per turn, in order. kConflict, with nothing of that turn written, when its
  // idempotency claim is no longer the one named, one of its spend reservations was released, or
  // its queue ticket is gone (after the turn cap, or once its server's lease lapsed).
  virtual std::vector<Result<void>> CommitTurns(const std::vector<const TurnCommit*>& commits) = 0;
  Result<void> CommitTurn(const TurnCommit& commit) { return CommitTurns({&commit}).front(); }
  virtual Result<std::vector<TurnRecord>> ListTurns(const std::string& conversation_id) = 0;
  // Newest first, at most `limit`, with each one's turn count, last turn and cost.
  virtual Result<std::vector<ConversationListing>> ListConversations(
      const ConversationFilter& filter, int limit) = 0;
  virtual Result<std::optional<TurnRecord>> GetTurn(const std::string& turn_id) = 0;
  // Deletes at most `limit` turns (with their transcripts) started before `before_ms`, oldest
  // first, and as many response asks made before it; returns how many turns. A conversation's
  // messages are not touched.
  virtual Result<std::int64_t> PurgeTurns(std::int64_t before_ms, int limit) = 0;
  // Deletes at most `limit` conversations idle since before UTC day `before_day` (a conversation's
  // day is that of its last turn, or its creation) that have no queue ticket live at `now_ms`,
  // with all of theirs: messages, summary, turns and transcripts, call window, queue tickets.
  // Returns how many.
  virtual Result<std::int64_t> PurgeIdleConversations(std::int64_t before_day, std::int64_t now_ms,
                                                      int limit) = 0;

  virtual Result<void> AddMemory(const MemoryScope& scope, const std::string& fact,
                                 std::int64_t now_ms) = 0;
  // The newest `limit` entries, oldest first.
  virtual Result<std::vector<MemoryEntry>> ListMemories(const MemoryScope& scope, int limit) = 0;
  // The scope's facts holding any of `terms` (words, domain/agent/memory_recall), best first by
  // the store's full-text rank (SQLite FTS5 bm25, PostgreSQL ts_rank), newer first on a tie.
  // Only the rarest terms are searched, as PlanRecall decides from the engine's term counts.
  virtual Result<std::vector<MemoryEntry>> RecallMemories(const MemoryScope& scope,
                                                          const std::vector<std::string>& terms,
                                                          int limit) = 0;
  // The operator's view: the filter's facts with ids below `before_id`, newest first.
  virtual Result<std::vector<MemoryEntry>> ListMemoryPage(const MemoryFilter& filter,
                                                          std::int64_t before_id, int limit) = 0;
  // Deletes the filter's facts (only fact `id`, when given); returns how many.
  virtual Result<std::int64_t> DeleteMemories(const MemoryFilter& filter,
                                              std::optional<std::int64_t> id) = 0;
  // Deletes at most `limit` facts saved before `before_ms`, oldest first; returns how many.
  virtual Result<std::int64_t> PurgeMemories(std::int64_t before_ms, int limit) = 0;
};

// Idempotency keys, the per-conversation call window and monthly spend: exact under concurrency
// because each decision is one conditional write.
class GovernanceStore {
 public:
  virtual ~GovernanceStore() = default;

  // Claims `scope` for a request with `fingerprint`, held by server `server_id`. A running claim
  // older than `stale_after_ms` is taken over; one of a server whose lease lapsed is gone sooner.
  virtual Result<IdempotencyClaim> ClaimIdempotencyKey(const IdempotencyScope& scope,
                                                       const std::string& fingerprint,
                                                       std::int64_t now_ms,
                                                       std::int64_t stale_after_ms,
                                                       const std::string& server_id) = 0;
  // Frees the running claim taken at `claimed_at_ms` (completed keys are completed by CommitTurn;
  // a completed key, or a claim taken over since, is left as it is).
  virtual Result<void> ReleaseIdempotencyKey(const IdempotencyScope& scope,
                                             std::int64_t claimed_at_ms) = 0;
  virtual Result<std::int64_t> PurgeIdempotencyKeys(
      std::int64_t now_ms) = 0;  // returns rows removed

  // Sliding window: records the call if fewer than `limit` calls fall in (now - window, now].
  virtual Result<CallWindowDecision> RecordConversationCall(const std::string& conversation_id,
                                                            std::int64_t now_ms,
                                                            std::int64_t window_ms, int limit) = 0;

  // Reserves against both monthly limits at once (governance::GrantSpend: at least amount_usd, up
  // to wanted_usd), or refuses naming the limit reached. A commit's settlements take their parts
  // off the reservation, which lives until released.
  virtual Result<SpendDecision> ReserveSpend(const SpendReservationRequest& request) = 0;
  // Gives `amount_usd` of a reservation back (what its server will not use); none left is a no-op.
  virtual Result<void> ReturnSpend(const std::string& reservation_id, double amount_usd) = 0;
  // Deletes reservations, freeing what is left of them, at once.
  virtual Result<void> ReleaseSpend(const std::vector<std::string>& reservation_ids) = 0;
  // Reservations of turns that died mid-call (canceled, or their server stopped) are released
  // once older than `created_before_ms`; returns how many.
  virtual Result<std::int64_t> ReleaseSpendReservations(std::int64_t created_before_ms) = 0;
  virtual Result<std::vector<UsageRow>> GetUsage(const std::string& org_id,
                                                 const std::string& month) = 0;

  // The operator's overview. Turns started since `since_ms`, per UTC day and stop reason ("" =
  // complete), and their durations' p50 and p95 (nearest rank).
  virtual Result<std::vector<DailyCount>> CountTurnsPerDay(std::int64_t since_ms) = 0;
  virtual Result<DurationPercentiles> TurnDurationPercentiles(std::int64_t since_ms) = 0;
  // Every org's spend in `month`, by org id.
  virtual Result<std::vector<OrgSpend>> SpendPerOrg(const std::string& month) = 0;
  // Gateway calls per UTC day and HTTP status: servers add what they answered; kept until purged.
  virtual Result<void> AddGatewayCalls(std::int64_t day,
                                       const std::vector<std::pair<int, std::int64_t>>& calls) = 0;
  virtual Result<std::vector<DailyCount>> GatewayCallsPerDay(std::int64_t since_day) = 0;
  virtual Result<std::int64_t> PurgeGatewayCalls(std::int64_t before_day) = 0;

  // Each server's liveness lease. What a server holds in the store names it (queue tickets,
  // running Idempotency-Key claims, spend reservations); once its lease lapsed, any server's
  // ReleaseLapsedServers frees all of it. Renew starts or extends the lease until `until_ms`:
  // false when the server held no live lease (its first, or it had lapsed).
  virtual Result<bool> RenewServerLease(const std::string& server_id, std::int64_t now_ms,
                                        std::int64_t until_ms) = 0;
  // Releases what the servers whose lease ended before `now_ms` held, and their leases; how many.
  // Their running runs end failed (`interrupted`), never re-run.
  virtual Result<std::int64_t> ReleaseLapsedServers(std::int64_t now_ms) = 0;
  // A server that stops at `now_ms`: what it holds is released now, not when its lease would
  // lapse.
  virtual Result<void> EndServerLease(const std::string& server_id, std::int64_t now_ms) = 0;
};

// Runs and their events (docs/runs.md): the store is the runs' queue, each decision one
// conditional write, so a run starts once however many servers claim.
class RunStore {
 public:
  virtual ~RunStore() = default;

  // Run writes in one transaction, each as RunWrite says, a result each (a store failure fails
  // them all). The group commit batches them; the three below are one write alone.
  virtual std::vector<Result<bool>> WriteRuns(const std::vector<const RunWrite*>& writes) = 0;
  // Queues `run` unless its organization has `max_queued` queued already (false, nothing
  // written). A run created running (a streamed turn) starts on `run.server_id` at once, with no
  // bound. With `answer`, the call's Idempotency-Key is completed with it in the same
  // transaction (kConflict, nothing written, when the claim was taken over).
  Result<bool> CreateRun(const RunRecord& run, int max_queued,
                         const std::optional<IdempotencyCompletion>& answer) {
    const RunWrite write{RunWrite::Kind::kCreate, run, {}, max_queued, answer};
    return WriteRuns({&write}).front();
  }
  // Adds events (numbered by the run's recorder) to a run.
  Result<void> AppendRunEvents(const std::string& run_id, const std::vector<RunEvent>& events) {
    RunWrite write{RunWrite::Kind::kAppend, RunRecord{}, events, 0, std::nullopt};
    write.run.id = run_id;
    auto written = WriteRuns({&write}).front();
    if (!written) return written.error();
    return {};
  }
  // Ends a running run as `run.status` with its result or error and its last events (the terminal
  // one among them); false when it was not running (canceled, or interrupted, meanwhile).
  Result<bool> FinishRun(const RunRecord& run, const std::vector<RunEvent>& last_events) {
    const RunWrite write{RunWrite::Kind::kFinish, run, last_events, 0, std::nullopt};
    return WriteRuns({&write}).front();
  }
  virtual Result<std::optional<RunRecord>> GetRun(const std::string& run_id) = 0;
  // An organization's runs waiting: queued, or paused for a decision (what [runs]
  // max_queued_per_org bounds).
  virtual Result<std::int64_t> CountWaitingRuns(const std::string& org_id) = 0;
  // A page of one agent's runs of a conversation (A2A's ListTasks, docs/a2a.md: every task has a
  // context), the latest change first (its end, else its start, else its creation; then the id,
  // descending), and how many match in all.
  virtual Result<std::vector<RunRecord>> ListAgentRuns(const AgentRunsQuery& query) = 0;
  virtual Result<std::int64_t> CountAgentRuns(const AgentRunsQuery& query) = 0;
  // An environment's latest runs, newest first (the console's list).
  virtual Result<std::vector<RunRecord>> ListRuns(const std::string& org_id, const std::string& env,
                                                  int limit) = 0;
  // Starts up to `limit` queued runs on `server_id`, each once across servers, organizations in
  // turn (each one's oldest first, then each one's second, ...), none of an organization that has
  // `max_running_per_org` background runs running across servers (docs/runs.md, "Fair shares").
  virtual Result<std::vector<RunRecord>> ClaimRuns(
      const std::string& server_id, std::int64_t now_ms, int limit,
      int max_running_per_org = std::numeric_limits<int>::max()) = 0;
  // The run's events numbered above `after_seq`, in order, at most `limit`.
  virtual Result<std::vector<RunEvent>> ListRunEvents(const std::string& run_id,
                                                      std::int64_t after_seq, int limit) = 0;
  // A queued or paused run ends canceled at once (its terminal event `canceled` written); a
  // running one is marked for its server to cancel; an ended one is left as it is. The run as it
  // then stands.
  virtual Result<std::optional<RunRecord>> CancelRun(const std::string& run_id, std::int64_t now_ms,
                                                     const RunEvent& canceled) = 0;
  // A paused run (requires_action, not expired at `now_ms`) claimed to go on, on `server_id`, now
  // running: none when it is not paused (decided already, expired, ended), so a decision is taken
  // once across servers.
  virtual Result<std::optional<RunRecord>> ClaimPausedRun(const std::string& run_id,
                                                          const std::string& server_id,
                                                          std::int64_t now_ms) = 0;
  // A paused run (requires_action, not expired at `now_ms`) decided to go on in the background:
  // queued again with `request_json` (DecidedRunJson) for whichever server claims it. None when
  // it is not paused, so a decision is taken once across servers.
  virtual Result<std::optional<RunRecord>> QueueDecidedRun(const std::string& run_id,
                                                           const std::string& request_json,
                                                           std::int64_t now_ms) = 0;
  // At most `limit` paused runs whose expiry passed end failed (`expired` is their terminal event,
  // its data their error; webhooks as any end); how many.
  virtual Result<std::int64_t> ExpirePausedRuns(std::int64_t now_ms, int limit,
                                                const RunEvent& expired) = 0;
  // The running runs of `server_id` whose cancel was asked for.
  virtual Result<std::vector<std::string>> RunsToCancel(const std::string& server_id) = 0;
  // Whether a turn is queued or running on the conversation: a queued or running run, or a live
  // queue ticket.
  virtual Result<bool> ConversationBusy(const std::string& conversation_id,
                                        std::int64_t now_ms) = 0;
  // Deletes at most `limit` runs that ended before `ended_before_ms`, with their events and their
  // push configs (and those configs' deliveries), and at most `limit` webhook deliveries made
  // before then that are no longer pending.
  virtual Result<std::int64_t> PurgeRuns(std::int64_t ended_before_ms, int limit) = 0;

  // Webhooks (docs/webhooks.md). Every run end of a run that notifies (RunRecord::notify) adds a
  // pending delivery per webhook of its environment that wants its type, in the end's
  // transaction, so a delivery is never lost to a restart.
  virtual Result<void> CreateWebhook(const WebhookRecord& webhook) = 0;
  virtual Result<std::vector<WebhookRecord>> ListWebhooks(const std::string& org_id,
                                                          const std::string& env) = 0;
  // With its deliveries; false when there was none.
  virtual Result<bool> DeleteWebhook(const std::string& org_id, const std::string& env,
                                     const std::string& webhook_id) = 0;
  // The webhook's latest deliveries, newest first.
  virtual Result<std::vector<WebhookDelivery>> ListWebhookDeliveries(const std::string& webhook_id,
                                                                     int limit) = 0;
  // Up to `limit` pending deliveries due at `now_ms`, the longest due first, each held for
  // `hold_until_ms` (no other claim takes it meanwhile: an attempt that dies is retried after it).
  // Held deliveries are in flight: no claim leaves a webhook more than `shares.per_webhook` of
  // them, nor an organization more than `shares.per_org`, counting those any server holds.
  virtual Result<std::vector<WebhookJob>> ClaimWebhookDeliveries(std::int64_t now_ms,
                                                                 std::int64_t hold_until_ms,
                                                                 int limit,
                                                                 WebhookShares shares) = 0;
  // An attempt's outcome: `delivery` carries the new status, attempts, next attempt and log.
  virtual Result<void> RecordWebhookAttempt(const WebhookDelivery& delivery) = 0;

  // An A2A task's push configs (docs/a2a.md): webhooks of one run (WebhookRecord::run_id), sent
  // its pauses and its end, kept as long as the run is. Saving replaces the run's config of the
  // same config_id (its webhook id is the same), else adds one unless the run has `max_per_run`
  // (kFull). A run already paused or ended when a config is added gets that config's delivery
  // of where it stands, so no end is missed by a config saved as its run ended.
  virtual Result<PushConfigSaved> SaveTaskPushConfig(const WebhookRecord& config, int max_per_run,
                                                     std::int64_t now_ms) = 0;
  virtual Result<std::vector<WebhookRecord>> ListTaskPushConfigs(const std::string& run_id) = 0;
  // With its deliveries; false when there was none.
  virtual Result<bool> DeleteTaskPushConfig(const std::string& run_id,
                                            const std::string& config_id) = 0;
};

// A group commit's writes (runtime/turn_committer): a result per turn, then one per run write.
struct BatchResults {
  std::vector<Result<void>> turns;
  std::vector<Result<bool>> runs;
};

class Store : public TenantStore,
              public ConversationStore,
              public GovernanceStore,
              public RunStore {
 public:
  virtual Result<void> Ping() = 0;  // reachable and answering
  // The turns' commits (CommitTurns), then the runs' writes (WriteRuns), each with its own rules.
  // An engine may write both in one transaction (a commit costs about as much as a turn's rows);
  // by default each kind has its own.
  virtual BatchResults CommitBatch(const std::vector<const TurnCommit*>& turns,
                                   const std::vector<const RunWrite*>& runs) {
    BatchResults results;
    if (!turns.empty()) results.turns = CommitTurns(turns);
    if (!runs.empty()) results.runs = WriteRuns(runs);
    return results;
  }
};

}  // namespace agentgate
