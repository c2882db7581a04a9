#include "adapters/store_common/row_readers.hpp"

#include "adapters/store_common/list_column.hpp"

namespace agentgate {

OrgRecord ReadOrg(const RowView& row) {
  return OrgRecord{row.Text(0), row.Text(1), row.OptionalDouble(2), row.Int(3)};
}

TokenRecord ReadToken(const RowView& row) {
  return TokenRecord{row.Text(0), row.Text(1), row.Text(2), row.Bytes(3), SplitList(row.Text(4)),
                     row.Int(5),  row.Bool(6)};
}

OAuthClientRecord ReadOAuthClient(const RowView& row) {
  return OAuthClientRecord{row.Text(0), row.Text(1),  row.Text(2), row.Text(3),
                           row.Text(4), row.Bytes(5), row.Int(6)};
}

SigningKeyRecord ReadSigningKey(const RowView& row) {
  return SigningKeyRecord{row.Text(0), row.Bytes(1), row.Bytes(2), row.Int(3), row.Int(4)};
}

AgentVersionRecord ReadAgentVersion(const RowView& row) {
  return AgentVersionRecord{row.Text(0), row.Text(1), static_cast<int>(row.Int(2)), row.Text(3),
                            row.Int(4)};
}

InstanceRecord ReadInstance(const RowView& row) {
  return InstanceRecord{row.Text(0), row.Text(1), row.Text(2), row.Text(3)};
}

GrantRecord ReadGrant(const RowView& row) {
  return GrantRecord{row.Text(0), row.Text(1), SplitList(row.Text(2))};
}

EnvironmentGrantRecord ReadEnvironmentGrant(const RowView& row) {
  return EnvironmentGrantRecord{row.Text(0), row.Text(1), SplitList(row.Text(2))};
}

CrmCredentialRecord ReadCrmCredential(const RowView& row) {
  return CrmCredentialRecord{row.Text(0), row.Text(1), row.Bytes(2), row.Int(3), row.Int(4)};
}

ToolSecretRecord ReadToolSecret(const RowView& row) {
  return ToolSecretRecord{row.Text(0), row.Text(1), row.Bytes(2), row.Int(3)};
}

ConversationRecord ReadConversation(const RowView& row) {
  return ConversationRecord{row.Text(0), row.Text(1), row.Text(2), row.Text(3),
                            row.Text(4), row.Int(5),  row.Text(6)};
}

ConversationListing ReadConversationListing(const RowView& row) {
  return ConversationListing{ReadConversation(row), row.Int(7), row.Int(8), row.Double(9)};
}

ResponseAsk ReadResponseAsk(const RowView& row) {
  return ResponseAsk{row.Text(0), row.Text(1), row.Text(2), row.Text(3), row.Int(4)};
}

MessageRecord ReadMessage(const RowView& row) {
  return MessageRecord{row.Int(0), row.Text(1), row.Text(2), row.Int(3)};
}

TurnRecord ReadTurn(const RowView& row) {
  return TurnRecord{row.Text(0),
                    row.Text(1),
                    row.Text(2),
                    row.Text(3),
                    row.Text(4),
                    static_cast<int>(row.Int(5)),
                    row.Int(6),
                    row.Int(7),
                    row.Text(8),
                    row.Bool(9),
                    static_cast<int>(row.Int(10)),
                    row.Int(11),
                    row.Int(12),
                    row.Double(13),
                    row.Text(14)};
}

MemoryEntry ReadMemory(const RowView& row) {
  MemoryEntry entry = ReadFact(row);
  entry.scope = MemoryScope{row.Text(3), row.Text(4), row.Text(5), row.Text(6)};
  return entry;
}

MemoryEntry ReadFact(const RowView& row) {
  return MemoryEntry{row.Int(0), row.Text(1), row.Int(2), {}};
}

std::vector<std::pair<const char*, std::string>> MemoryFilterConditions(
    const MemoryFilter& filter) {
  std::vector<std::pair<const char*, std::string>> conditions{{"org_id", filter.org_id}};
  if (filter.agent_id) conditions.emplace_back("agent_id", *filter.agent_id);
  if (filter.env) conditions.emplace_back("env", *filter.env);
  if (filter.group_key) conditions.emplace_back("group_key", *filter.group_key);
  return conditions;
}

governance::StoredKey ReadStoredKey(const RowView& row) {
  return governance::StoredKey{row.Text(0),
                               row.Text(1) == "completed",
                               static_cast<int>(row.Int(2)),
                               row.Text(3),
                               row.Int(4),
                               row.Int(5)};
}

UsageRow ReadUsage(const RowView& row) {
  return UsageRow{row.Text(0), row.Double(1), row.Double(2), row.Int(3), row.Int(4), row.Int(5)};
}

CrmCredentialStatus ReadCrmStatus(const RowView& row) {
  CrmCredentialStatus status{row.Int(0), row.Int(1), row.OptionalInt(2), ""};
  if (status.last_refresh_at_ms && !row.IsNull(3)) status.last_refresh_error = row.Text(3);
  return status;
}

RunRecord ReadRun(const RowView& row) {
  RunRecord run;
  run.id = row.Text(0);
  run.org_id = row.Text(1);
  run.env = row.Text(2);
  run.agent_id = row.Text(3);
  run.token_id = row.Text(4);
  run.status = ParseRunStatus(row.Text(5)).value_or(RunStatus::kFailed);
  run.conversation_id = row.Text(6);
  run.creates_conversation = row.Bool(7);
  run.request_json = row.Text(8);
  run.created_at_ms = row.Int(9);
  run.started_at_ms = row.Int(10);
  run.ended_at_ms = row.Int(11);
  run.server_id = row.Text(12);
  run.cancel_requested = row.Bool(13);
  run.result_json = row.Text(14);
  run.error_json = row.Text(15);
  run.notify = row.Bool(16);
  run.paused_json = row.Text(17);
  run.expires_at_ms = row.Int(18);
  return run;
}

WebhookRecord ReadWebhook(const RowView& row) {
  WebhookRecord webhook{row.Text(0), row.Text(1),  row.Text(2), row.Text(3),
                        {},          row.Bytes(5), row.Int(6)};
  webhook.run_id = row.Text(7);
  webhook.config_id = row.Text(8);
  webhook.format = row.Text(9);
  webhook.auth_scheme = row.Text(10);
  const std::string events = row.Text(4);
  std::size_t start = 0;
  while (start < events.size()) {
    const std::size_t comma = events.find(',', start);
    const std::size_t end = comma == std::string::npos ? events.size() : comma;
    if (end > start) webhook.events.push_back(events.substr(start, end - start));
    start = end + 1;
  }
  return webhook;
}

std::string WebhookEventsColumn(const std::vector<std::string>& events) {
  std::string column = ",";
  for (const auto& event : events) column += event + ",";
  return column;
}

WebhookDelivery ReadWebhookDelivery(const RowView& row) {
  WebhookDelivery d;
  d.id = row.Text(0);
  d.webhook_id = row.Text(1);
  d.run_id = row.Text(2);
  d.type = row.Text(3);
  d.status = row.Text(4);
  d.attempts = static_cast<int>(row.Int(5));
  d.next_attempt_at_ms = row.Int(6);
  d.created_at_ms = row.Int(7);
  d.attempts_json = row.Text(8);
  return d;
}

RunEvent ReadRunEvent(const RowView& row) {
  return RunEvent{row.Int(0), row.Text(1), row.Text(2)};
}

DailyCount ReadDailyCount(const RowView& row) {
  return DailyCount{row.Int(0), row.Text(1), row.Int(2)};
}

OrgSpend ReadOrgSpend(const RowView& row) {
  return OrgSpend{row.Text(0), row.Double(1), row.Double(2)};
}

std::string AgentRunsSql(char placeholder, bool count) {
  const auto p = [placeholder](int n) { return std::string(1, placeholder) + std::to_string(n); };
  // Typed where PostgreSQL would guess a 32-bit integer from `= 0`.
  const auto ms = [&p](int n) { return "CAST(" + p(n) + " AS BIGINT)"; };
  std::string sql = std::string("WITH t AS (SELECT ") + kRunColumns +
                    ", CASE WHEN ended_at_ms > 0 THEN ended_at_ms WHEN started_at_ms > 0 THEN "
                    "started_at_ms ELSE created_at_ms END AS changed_ms, CASE WHEN status = "
                    "'completed' AND (result LIKE '%\"blocked\":true%' OR result NOT LIKE "
                    "'%\"terminated\\_reason\":null%' ESCAPE '\\') THEN 'stopped' ELSE status END "
                    "AS outcome FROM runs WHERE org_id = " +
                    p(1) + " AND env = " + p(2) + " AND agent_id = " + p(3) +
                    " AND conversation_id <> '') SELECT ";
  sql += count ? std::string("COUNT(*)") : std::string(kRunColumns);
  sql += " FROM t WHERE (" + p(4) + " = '' OR conversation_id = " + p(4) + ") AND (" + p(5) +
         " = '' OR " + p(5) + " LIKE '%,' || outcome || ',%') AND changed_ms > " + ms(6);
  if (count) return sql;
  sql += " AND (" + ms(7) + " = 0 OR changed_ms < " + ms(7) + " OR (changed_ms = " + ms(7) +
         " AND id < " + p(8) + ")) ORDER BY changed_ms DESC, id DESC LIMIT " + p(9);
  return sql;
}

DeploymentRecord ReadDeployment(const RowView& row) {
  return DeploymentRecord{row.Text(0), row.Text(1), static_cast<int>(row.Int(2)), row.Int(3) != 0};
}

}  // namespace agentgate
