#pragma once
// Records read from result rows, once for both engines. Each reader takes the columns its
// constant lists, in that order; engines select them with their own SQL (joins name them with a
// table prefix, in the same order).

#include "adapters/store_common/row_view.hpp"
#include "domain/governance/decisions.hpp"
#include "ports/store_records.hpp"

#include <string>
#include <utility>
#include <vector>

namespace agentgate {

inline constexpr const char* kOrgColumns = "id, name, monthly_spend_limit_usd, created_at_ms";
OrgRecord ReadOrg(const RowView& row);

inline constexpr const char* kTokenColumns =
    "id, org_id, name, secret_hash, environments, created_at_ms, revoked";
TokenRecord ReadToken(const RowView& row);

inline constexpr const char* kOAuthClientColumns =
    "id, org_id, env, token_id, name, secret_hash, created_at_ms";
OAuthClientRecord ReadOAuthClient(const RowView& row);

inline constexpr const char* kSigningKeyColumns =
    "kid, sealed_private, public_point, created_at_ms, retired_at_ms";
SigningKeyRecord ReadSigningKey(const RowView& row);

inline constexpr const char* kAgentVersionColumns =
    "org_id, agent_id, version, config, created_at_ms";
AgentVersionRecord ReadAgentVersion(const RowView& row);

inline constexpr const char* kInstanceColumns = "org_id, agent_id, instance_id, instructions";
InstanceRecord ReadInstance(const RowView& row);

inline constexpr const char* kGrantColumns = "token_id, agent_id, permissions";
GrantRecord ReadGrant(const RowView& row);

inline constexpr const char* kEnvironmentGrantColumns = "token_id, env, permissions";
EnvironmentGrantRecord ReadEnvironmentGrant(const RowView& row);

inline constexpr const char* kCrmCredentialColumns = "org_id, env, sealed, updated_at_ms, version";
CrmCredentialRecord ReadCrmCredential(const RowView& row);

inline constexpr const char* kToolSecretColumns = "org_id, name, sealed, updated_at_ms";
ToolSecretRecord ReadToolSecret(const RowView& row);

inline constexpr const char* kConversationColumns =
    "id, org_id, env, agent_id, instance_id, created_at_ms, metadata";
ConversationRecord ReadConversation(const RowView& row);
// kConversationColumns, then the turn count, the last turn's start and the cost.
ConversationListing ReadConversationListing(const RowView& row);

inline constexpr const char* kResponseAskColumns =
    "response_id, org_id, env, asked_json, created_at_ms";
ResponseAsk ReadResponseAsk(const RowView& row);

inline constexpr const char* kMessageColumns = "seq, role, content, created_at_ms";
MessageRecord ReadMessage(const RowView& row);

inline constexpr const char* kTurnColumns =
    "id, conversation_id, org_id, env, agent_id, version, started_at_ms, duration_ms, "
    "stop_reason, blocked, model_calls, input_tokens, output_tokens, cost_usd, transcript";
TurnRecord ReadTurn(const RowView& row);

// A fact with its scope (the operator's view); ReadFact leaves the scope to the caller.
inline constexpr const char* kMemoryColumns =
    "id, fact, created_at_ms, org_id, env, agent_id, group_key";
MemoryEntry ReadMemory(const RowView& row);
MemoryEntry ReadFact(const RowView& row);  // id, fact, created_at_ms
// A reader of id, fact, created_at_ms as facts of `scope` (which outlives it).
inline auto FactIn(const MemoryScope& scope) {
  return [&scope](const RowView& row) {
    MemoryEntry entry = ReadFact(row);
    entry.scope = scope;
    return entry;
  };
}
// The column = value conditions a MemoryFilter selects facts by, the org's first.
std::vector<std::pair<const char*, std::string>> MemoryFilterConditions(const MemoryFilter& filter);

inline constexpr const char* kStoredKeyColumns =
    "fingerprint, state, status, body, claimed_at_ms, expires_at_ms";
governance::StoredKey ReadStoredKey(const RowView& row);

inline constexpr const char* kUsageColumns =
    "agent_id, settled_usd, reserved_usd, input_tokens, output_tokens, model_calls";
UsageRow ReadUsage(const RowView& row);

inline constexpr const char* kCrmStatusColumns =
    "set_at_ms, version, last_refresh_at_ms, last_refresh_error";
CrmCredentialStatus ReadCrmStatus(const RowView& row);

inline constexpr const char* kRunColumns =
    "id, org_id, env, agent_id, token_id, status, conversation_id, creates_conversation, request, "
    "created_at_ms, started_at_ms, ended_at_ms, server_id, cancel_requested, result, error, "
    "notify, "
    "paused, expires_at_ms";
RunRecord ReadRun(const RowView& row);

// Store::ListAgentRuns and CountAgentRuns for each engine, its placeholders written `placeholder`
// then the number ("?1" for SQLite, "$1" for PostgreSQL). Parameters: org, env, agent,
// conversation, outcomes, changed after, before changed, before id, limit (the count takes the
// first six). The outcome reads the result as the server wrote it (domain/json_text): a literal
// `"blocked":true` or a `"terminated_reason"` not null can only be those fields, since a string's
// own quotes are escaped.
std::string AgentRunsSql(char placeholder, bool count);

inline constexpr const char* kWebhookColumns =
    "id, org_id, env, url, events, secret, created_at_ms, run_id, config_id, format, auth_scheme";
WebhookRecord ReadWebhook(const RowView& row);
// The events column: ",run.completed,run.failed," (matched with LIKE '%,type,%').
std::string WebhookEventsColumn(const std::vector<std::string>& events);

inline constexpr const char* kWebhookDeliveryColumns =
    "id, webhook_id, run_id, type, status, attempts, next_attempt_at_ms, created_at_ms, log";
WebhookDelivery ReadWebhookDelivery(const RowView& row);

inline constexpr const char* kRunEventColumns = "seq, type, data";
RunEvent ReadRunEvent(const RowView& row);

// Day, key and count: turns per day and stop reason, gateway calls per day and status.
DailyCount ReadDailyCount(const RowView& row);
// Org id, settled and reserved spend.
OrgSpend ReadOrgSpend(const RowView& row);
// Agent id, env and version.
DeploymentRecord ReadDeployment(const RowView& row);

}  // namespace agentgate
