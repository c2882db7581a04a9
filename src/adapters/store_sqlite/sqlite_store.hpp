#pragma once
// The embedded store: one SQLite file in WAL mode. Several agentgate processes may share the
// file; every read-then-write decision runs in a BEGIN IMMEDIATE transaction.

#include "adapters/store_sqlite/sqlite_db.hpp"
#include "ports/store.hpp"

#include <memory>
#include <string>

namespace agentgate {

class SqliteStore final : public Store {
 public:
  // `path` is the file (the part after "sqlite:"); its folder is created. Migrations run here.
  static Result<std::unique_ptr<SqliteStore>> Open(const std::string& path,
                                                   std::size_t connections);

  Result<void> Ping() override;

  // TenantStore
  Result<void> CreateOrg(const OrgRecord& org) override;
  Result<std::optional<OrgRecord>> GetOrg(const std::string& org_id) override;
  Result<bool> SetOrgSpendLimit(const std::string& org_id,
                                std::optional<double> limit_usd) override;
  Result<std::int64_t> CountOrgs() override;
  Result<std::vector<OrgRecord>> ListOrgs(const std::string& after_id, int limit) override;
  Result<std::vector<std::string>> ListEnvironments(const std::string& org_id) override;
  Result<std::vector<TokenRecord>> ListTokens(const std::string& org_id, int limit) override;
  Result<std::vector<AgentVersionRecord>> ListAgents(const std::string& org_id, int limit) override;
  Result<std::vector<AgentVersionRecord>> ListAgentVersions(const std::string& org_id,
                                                            const std::string& agent_id,
                                                            int limit) override;
  Result<std::vector<DeploymentRecord>> ListDeployments(const std::string& org_id) override;
  Result<std::vector<GrantRecord>> ListGrants(const std::string& org_id,
                                              const std::string& agent_id, int limit) override;
  Result<std::vector<InstanceRecord>> ListInstances(const std::string& org_id,
                                                    const std::string& agent_id,
                                                    int limit) override;
  Result<void> CreateEnvironment(const std::string& org_id, const std::string& env) override;
  Result<bool> HasEnvironment(const std::string& org_id, const std::string& env) override;
  Result<void> CreateToken(const TokenRecord& token) override;
  Result<std::optional<TokenRecord>> GetToken(const std::string& token_id) override;
  Result<bool> RevokeToken(const std::string& org_id, const std::string& token_id) override;
  Result<void> CreateOAuthClient(const OAuthClientRecord& client) override;
  Result<std::optional<OAuthClientRecord>> GetOAuthClient(const std::string& client_id) override;
  Result<std::vector<OAuthClientRecord>> ListOAuthClients(const std::string& org_id,
                                                          const std::string& env,
                                                          int limit) override;
  Result<bool> DeleteOAuthClient(const std::string& org_id, const std::string& env,
                                 const std::string& client_id) override;
  Result<std::vector<SigningKeyRecord>> ListSigningKeys() override;
  Result<bool> AddSigningKey(const SigningKeyRecord& key, bool only_if_none) override;
  Result<std::int64_t> PurgeSigningKeys(std::int64_t retired_before_ms) override;
  Result<bool> DeleteSigningKey(const std::string& kid) override;
  Result<void> PutGrant(const std::string& org_id, const std::string& token_id,
                        const std::string& agent_id,
                        const std::vector<std::string>& permissions) override;
  Result<std::vector<std::string>> GetGrant(const std::string& token_id,
                                            const std::string& agent_id) override;
  Result<void> PutEnvironmentGrant(const std::string& org_id, const std::string& env,
                                   const std::string& token_id,
                                   const std::vector<std::string>& permissions) override;
  Result<std::vector<std::string>> GetEnvironmentGrant(const std::string& token_id,
                                                       const std::string& env) override;
  Result<std::vector<EnvironmentGrantRecord>> ListEnvironmentGrants(const std::string& org_id,
                                                                    const std::string& env,
                                                                    int limit) override;
  Result<void> CreateAgent(const AgentVersionRecord& first_version) override;
  Result<std::optional<int>> AddAgentVersion(const std::string& org_id, const std::string& agent_id,
                                             const std::string& config_json,
                                             std::int64_t now_ms) override;
  Result<std::optional<AgentVersionRecord>> GetAgentVersion(const std::string& org_id,
                                                            const std::string& agent_id,
                                                            int version) override;
  Result<void> SetDeployment(const std::string& org_id, const std::string& agent_id,
                             const std::string& env, int version) override;
  Result<std::optional<int>> GetDeployment(const std::string& org_id, const std::string& agent_id,
                                           const std::string& env) override;
  Result<bool> SetA2aDiscoverable(const std::string& org_id, const std::string& agent_id,
                                  const std::string& env, bool discoverable) override;
  Result<bool> IsA2aDiscoverable(const std::string& org_id, const std::string& agent_id,
                                 const std::string& env) override;
  Result<void> CreateInstance(const InstanceRecord& instance) override;
  Result<std::optional<InstanceRecord>> GetInstance(const std::string& org_id,
                                                    const std::string& agent_id,
                                                    const std::string& instance_id) override;
  Result<std::vector<AgentVersionRecord>> ListDeployedVersions() override;
  Result<std::vector<AgentVersionRecord>> ListChatAgents(const std::string& org_id,
                                                         const std::string& env,
                                                         const std::string& token_id) override;
  Result<std::int64_t> PutCrmCredential(const CrmCredentialRecord& credential) override;
  Result<std::optional<std::int64_t>> SaveRefreshedCrmCredential(
      const CrmCredentialRecord& credential, std::int64_t expected_version) override;
  Result<std::optional<std::int64_t>> GetCrmCredentialVersion(const std::string& org_id,
                                                              const std::string& env) override;
  Result<std::optional<CrmCredentialRecord>> GetCrmCredential(const std::string& org_id,
                                                              const std::string& env) override;
  Result<bool> ClaimCrmRefresh(const std::string& org_id, const std::string& env,
                               const std::string& holder, std::int64_t now_ms,
                               std::int64_t ttl_ms) override;
  Result<void> ReleaseCrmRefresh(const std::string& org_id, const std::string& env,
                                 const std::string& holder) override;
  Result<void> RecordCrmRefresh(const std::string& org_id, const std::string& env,
                                std::int64_t at_ms, const std::string& error) override;
  Result<std::optional<CrmCredentialStatus>> GetCrmCredentialStatus(
      const std::string& org_id, const std::string& env) override;
  Result<bool> HasAnySealedSecret() override;
  Result<void> PutToolSecret(const ToolSecretRecord& secret) override;
  Result<std::optional<ToolSecretRecord>> GetToolSecret(const std::string& org_id,
                                                        const std::string& name) override;
  Result<bool> DeleteToolSecret(const std::string& org_id, const std::string& name) override;
  Result<std::vector<ToolSecretRecord>> ListToolSecrets(const std::string& org_id) override;

  // ConversationStore
  Result<void> CreateConversation(const ConversationRecord& conversation) override;
  Result<std::optional<ConversationRecord>> GetConversation(const std::string& id) override;
  Result<std::vector<MessageRecord>> LoadMessages(const std::string& conversation_id) override;
  Result<std::vector<MessageRecord>> LoadRecentMessages(const std::string& conversation_id,
                                                        std::size_t max_bytes,
                                                        std::size_t max_messages) override;
  Result<ConversationSummary> LoadConversationSummary(const std::string& conversation_id) override;
  Result<std::string> LastMessageTurn(const std::string& conversation_id) override;
  Result<std::vector<MessageRecord>> TurnMessages(const std::string& conversation_id,
                                                  const std::string& turn_id) override;
  Result<std::vector<MessageRecord>> ConversationItems(const std::string& conversation_id,
                                                       const ItemPage& page) override;
  Result<std::vector<MessageRecord>> AppendConversationItems(
      const std::string& conversation_id, const std::vector<MessageRecord>& items,
      std::int64_t now_ms) override;
  Result<bool> DeleteConversationItem(const std::string& conversation_id, std::int64_t seq,
                                      std::int64_t now_ms) override;
  Result<bool> DeleteConversation(const std::string& conversation_id, std::int64_t now_ms) override;
  Result<void> SetConversationMetadata(const std::string& conversation_id,
                                       const std::string& metadata_json) override;
  Result<void> PutResponseAsk(const ResponseAsk& ask) override;
  Result<std::optional<ResponseAsk>> GetResponseAsk(const std::string& response_id) override;
  Result<void> BindConversation(const std::string& conversation_id, const std::string& agent_id,
                                const std::string& instance_id) override;
  Result<std::int64_t> EnqueueTurn(const std::string& conversation_id, std::int64_t expires_at_ms,
                                   const std::string& server_id) override;
  Result<bool> IsTurnAtHead(const std::string& conversation_id, std::int64_t ticket,
                            std::int64_t now_ms, const std::string& server_id) override;
  Result<void> DequeueTurn(std::int64_t ticket) override;
  Result<std::vector<SupersededTicket>> SupersedeTurns(const std::string& conversation_id,
                                                       std::int64_t ticket,
                                                       std::int64_t now_ms) override;
  Result<std::vector<std::int64_t>> SupersededTickets(const std::string& server_id) override;
  Result<std::optional<std::int64_t>> RunPlace(const std::string& run_id) override;
  Result<std::optional<std::int64_t>> TakeRunPlace(const std::string& run_id,
                                                   const std::string& server_id,
                                                   std::int64_t expires_at_ms) override;
  std::vector<Result<void>> CommitTurns(const std::vector<const TurnCommit*>& commits) override;
  Result<std::vector<TurnRecord>> ListTurns(const std::string& conversation_id) override;
  Result<std::vector<ConversationListing>> ListConversations(const ConversationFilter& filter,
                                                             int limit) override;
  Result<std::optional<TurnRecord>> GetTurn(const std::string& turn_id) override;
  Result<std::int64_t> PurgeTurns(std::int64_t before_ms, int limit) override;
  Result<std::int64_t> PurgeIdleConversations(std::int64_t before_day, std::int64_t now_ms,
                                              int limit) override;
  Result<std::int64_t> PurgeMemories(std::int64_t before_ms, int limit) override;
  Result<void> AddMemory(const MemoryScope& scope, const std::string& fact,
                         std::int64_t now_ms) override;
  Result<std::vector<MemoryEntry>> ListMemories(const MemoryScope& scope, int limit) override;
  Result<std::vector<MemoryEntry>> RecallMemories(const MemoryScope& scope,
                                                  const std::vector<std::string>& terms,
                                                  int limit) override;
  Result<std::vector<MemoryEntry>> ListMemoryPage(const MemoryFilter& filter,
                                                  std::int64_t before_id, int limit) override;
  Result<std::int64_t> DeleteMemories(const MemoryFilter& filter,
                                      std::optional<std::int64_t> id) override;

  // GovernanceStore
  Result<IdempotencyClaim> ClaimIdempotencyKey(const IdempotencyScope& scope,
                                               const std::string& fingerprint, std::int64_t now_ms,
                                               std::int64_t stale_after_ms,
                                               const std::string& server_id) override;
  Result<void> ReleaseIdempotencyKey(const IdempotencyScope& scope,
                                     std::int64_t claimed_at_ms) override;
  Result<std::int64_t> PurgeIdempotencyKeys(std::int64_t now_ms) override;
  Result<CallWindowDecision> RecordConversationCall(const std::string& conversation_id,
                                                    std::int64_t now_ms, std::int64_t window_ms,
                                                    int limit) override;
  Result<SpendDecision> ReserveSpend(const SpendReservationRequest& request) override;
  Result<std::int64_t> ReleaseSpendReservations(std::int64_t created_before_ms) override;
  Result<void> ReturnSpend(const std::string& reservation_id, double amount_usd) override;
  Result<void> ReleaseSpend(const std::vector<std::string>& reservation_ids) override;
  Result<std::vector<UsageRow>> GetUsage(const std::string& org_id,
                                         const std::string& month) override;
  Result<std::vector<DailyCount>> CountTurnsPerDay(std::int64_t since_ms) override;
  Result<DurationPercentiles> TurnDurationPercentiles(std::int64_t since_ms) override;
  Result<std::vector<OrgSpend>> SpendPerOrg(const std::string& month) override;
  Result<void> AddGatewayCalls(std::int64_t day,
                               const std::vector<std::pair<int, std::int64_t>>& calls) override;
  Result<std::vector<DailyCount>> GatewayCallsPerDay(std::int64_t since_day) override;
  Result<std::int64_t> PurgeGatewayCalls(std::int64_t before_day) override;
  Result<bool> RenewServerLease(const std::string& server_id, std::int64_t now_ms,
                                std::int64_t until_ms) override;
  Result<std::int64_t> ReleaseLapsedServers(std::int64_t now_ms) override;
  Result<void> EndServerLease(const std::string& server_id, std::int64_t now_ms) override;

  // RunStore
  std::vector<Result<bool>> WriteRuns(const std::vector<const RunWrite*>& writes) override;
  // One transaction for both.
  BatchResults CommitBatch(const std::vector<const TurnCommit*>& turns,
                           const std::vector<const RunWrite*>& runs) override;
  Result<std::optional<RunRecord>> GetRun(const std::string& run_id) override;
  Result<std::int64_t> CountWaitingRuns(const std::string& org_id) override;
  Result<std::vector<RunRecord>> ListAgentRuns(const AgentRunsQuery& query) override;
  Result<std::int64_t> CountAgentRuns(const AgentRunsQuery& query) override;
  Result<std::vector<RunRecord>> ListRuns(const std::string& org_id, const std::string& env,
                                          int limit) override;
  Result<std::vector<RunRecord>> ClaimRuns(const std::string& server_id, std::int64_t now_ms,
                                           int limit, int max_running_per_org) override;
  Result<std::vector<RunEvent>> ListRunEvents(const std::string& run_id, std::int64_t after_seq,
                                              int limit) override;
  Result<std::optional<RunRecord>> CancelRun(const std::string& run_id, std::int64_t now_ms,
                                             const RunEvent& canceled) override;
  Result<std::optional<RunRecord>> ClaimPausedRun(const std::string& run_id,
                                                  const std::string& server_id,
                                                  std::int64_t now_ms) override;
  Result<std::optional<RunRecord>> QueueDecidedRun(const std::string& run_id,
                                                   const std::string& request_json,
                                                   std::int64_t now_ms) override;
  Result<std::int64_t> ExpirePausedRuns(std::int64_t now_ms, int limit,
                                        const RunEvent& expired) override;
  Result<std::vector<std::string>> RunsToCancel(const std::string& server_id) override;
  Result<bool> ConversationBusy(const std::string& conversation_id, std::int64_t now_ms) override;
  Result<std::int64_t> PurgeRuns(std::int64_t ended_before_ms, int limit) override;
  Result<void> CreateWebhook(const WebhookRecord& webhook) override;
  Result<std::vector<WebhookRecord>> ListWebhooks(const std::string& org_id,
                                                  const std::string& env) override;
  Result<bool> DeleteWebhook(const std::string& org_id, const std::string& env,
                             const std::string& webhook_id) override;
  Result<std::vector<WebhookDelivery>> ListWebhookDeliveries(const std::string& webhook_id,
                                                             int limit) override;
  Result<std::vector<WebhookJob>> ClaimWebhookDeliveries(std::int64_t now_ms,
                                                         std::int64_t hold_until_ms, int limit,
                                                         WebhookShares shares) override;
  Result<void> RecordWebhookAttempt(const WebhookDelivery& delivery) override;
  Result<PushConfigSaved> SaveTaskPushConfig(const WebhookRecord& config, int max_per_run,
                                             std::int64_t now_ms) override;
  Result<std::vector<WebhookRecord>> ListTaskPushConfigs(const std::string& run_id) override;
  Result<bool> DeleteTaskPushConfig(const std::string& run_id,
                                    const std::string& config_id) override;

 private:
  explicit SqliteStore(std::unique_ptr<sqlite::ConnectionPool> pool) : pool_(std::move(pool)) {}

  std::unique_ptr<sqlite::ConnectionPool> pool_;
};

// Applies pending schema migrations inside one write transaction.
void MigrateSqlite(sqlite::Connection& connection);
// Migration 23's code (sqlite_runs_out_of_turns.cpp): runs kept in turns' rows move to `runs`.
void MoveRunsOutOfTurns(sqlite::Connection& connection);

// Inside a caller's write transaction: completes the running claim `done` names; false when it was
// taken over.
bool CompleteIdempotencyKey(sqlite::Connection& c, const IdempotencyCompletion& done);
// Inside a caller's write transaction: the running runs of servers whose lease lapsed before
// `lapsed_before_ms` end failed, interrupted, at `now_ms`.
void InterruptRunsOfLapsedServers(sqlite::Connection& c, std::int64_t lapsed_before_ms,
                                  std::int64_t now_ms);

// Inside a caller's write transaction: whether a reservation still exists (a released one is gone).
bool ReservationExists(sqlite::Connection& c, const std::string& reservation_id);
// Inside the same transaction: the settlements of a batch's committed turns, each reservation and
// spend total written once (SettlementSums).
void SettleSpendIn(sqlite::Connection& c, const std::vector<const SpendSettlement*>& settlements);
// Inside a caller's write transaction: the turns' commits, a result each, settled; false when a
// turn alone (`alone`, no savepoint) was refused, and the transaction must not commit.
bool CommitTurnsIn(sqlite::Connection& c, const std::vector<const TurnCommit*>& commits, bool alone,
                   std::vector<Result<void>>& results);
// Inside a caller's write transaction: the runs' writes, a result each. A refused write wrote
// nothing (each checks before it writes), so they need no savepoints.
void WriteRunsIn(sqlite::Connection& c, const std::vector<const RunWrite*>& writes,
                 std::vector<Result<bool>>& results);
// Inside a caller's write transaction: a run never written before, as it ended, its events folded
// into its row (RunWrite::kCreateEnded; also TurnCommit::ended_run).
void InsertEndedRunIn(sqlite::Connection& c, const RunWrite& ended);
// A run, from its row.
std::optional<RunRecord> FindRunIn(sqlite::Connection& c, const std::string& run_id);

}  // namespace agentgate
