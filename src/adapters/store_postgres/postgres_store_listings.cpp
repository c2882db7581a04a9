// What an operator browses (the console and the admin API's GET lists).
#include "adapters/store_common/list_column.hpp"
#include "adapters/store_postgres/postgres_store.hpp"

#include <limits>

namespace agentgate {

using pg::Connection;
using pg::P;

Result<std::vector<OrgRecord>> PostgresStore::ListOrgs(const std::string& after_id, int limit) {
  return pg::WithConnection(*pool_, [&](Connection& c) -> Result<std::vector<OrgRecord>> {
    auto r = c.Exec(
        "SELECT id, name, monthly_spend_limit_usd, created_at_ms FROM orgs WHERE id > $1 "
        "ORDER BY id LIMIT $2",
        {P(after_id), P(std::int64_t{limit})});
    std::vector<OrgRecord> out;
    for (int i = 0; i < r.size(); ++i) {
      OrgRecord& org =
          out.emplace_back(OrgRecord{r.Text(i, 0), r.Text(i, 1), std::nullopt, r.Int(i, 3)});
      if (!r.IsNull(i, 2)) org.monthly_spend_limit_usd = r.Double(i, 2);
    }
    return out;
  });
}

Result<std::vector<std::string>> PostgresStore::ListEnvironments(const std::string& org_id) {
  return pg::WithConnection(*pool_, [&](Connection& c) -> Result<std::vector<std::string>> {
    auto r = c.Exec("SELECT name FROM environments WHERE org_id = $1 ORDER BY name LIMIT $2",
                    {P(org_id), P(std::int64_t{kMaxListedEnvironments})});
    std::vector<std::string> out;
    for (int i = 0; i < r.size(); ++i) out.push_back(r.Text(i, 0));
    return out;
  });
}

Result<std::vector<TokenRecord>> PostgresStore::ListTokens(const std::string& org_id, int limit) {
  return pg::WithConnection(*pool_, [&](Connection& c) -> Result<std::vector<TokenRecord>> {
    auto r = c.Exec(
        "SELECT id, name, environments, created_at_ms, revoked FROM api_tokens WHERE org_id = $1 "
        "ORDER BY created_at_ms DESC, id DESC LIMIT $2",
        {P(org_id), P(std::int64_t{limit})});
    std::vector<TokenRecord> out;
    for (int i = 0; i < r.size(); ++i) {
      out.push_back(TokenRecord{r.Text(i, 0), org_id, r.Text(i, 1), "", SplitList(r.Text(i, 2)),
                                r.Int(i, 3), r.Text(i, 4) == "t"});
    }
    return out;
  });
}

namespace {

std::vector<AgentVersionRecord> ReadVersions(const pg::Rows& r) {
  std::vector<AgentVersionRecord> out;
  for (int i = 0; i < r.size(); ++i) {
    out.push_back(AgentVersionRecord{r.Text(i, 0), r.Text(i, 1), static_cast<int>(r.Int(i, 2)),
                                     r.Text(i, 3), r.Int(i, 4)});
  }
  return out;
}

}  // namespace

Result<std::vector<AgentVersionRecord>> PostgresStore::ListAgents(const std::string& org_id,
                                                                  int limit) {
  return pg::WithConnection(*pool_, [&](Connection& c) -> Result<std::vector<AgentVersionRecord>> {
    return ReadVersions(
        c.Exec("SELECT v.org_id, v.agent_id, v.version, v.config, v.created_at_ms FROM agents a "
               "JOIN agent_versions v ON v.org_id = a.org_id AND v.agent_id = a.id AND "
               "v.version = a.latest_version WHERE a.org_id = $1 ORDER BY a.id LIMIT $2",
               {P(org_id), P(limit)}));
  });
}

Result<std::vector<AgentVersionRecord>> PostgresStore::ListAgentVersions(
    const std::string& org_id, const std::string& agent_id, int limit) {
  return pg::WithConnection(*pool_, [&](Connection& c) -> Result<std::vector<AgentVersionRecord>> {
    return ReadVersions(
        c.Exec("SELECT org_id, agent_id, version, config, created_at_ms FROM agent_versions "
               "WHERE org_id = $1 AND agent_id = $2 ORDER BY version DESC LIMIT $3",
               {P(org_id), P(agent_id), P(limit)}));
  });
}

Result<std::vector<DeploymentRecord>> PostgresStore::ListDeployments(const std::string& org_id) {
  return pg::WithConnection(*pool_, [&](Connection& c) -> Result<std::vector<DeploymentRecord>> {
    auto r = c.Exec(
        "SELECT agent_id, env, version FROM deployments WHERE org_id = $1 ORDER BY agent_id, env "
        "LIMIT $2",
        {P(org_id), P(kMaxListedDeployments)});
    std::vector<DeploymentRecord> out;
    for (int i = 0; i < r.size(); ++i) {
      out.push_back(DeploymentRecord{r.Text(i, 0), r.Text(i, 1), static_cast<int>(r.Int(i, 2))});
    }
    return out;
  });
}

Result<std::vector<GrantRecord>> PostgresStore::ListGrants(const std::string& org_id,
                                                           const std::string& agent_id, int limit) {
  return pg::WithConnection(*pool_, [&](Connection& c) -> Result<std::vector<GrantRecord>> {
    auto r = c.Exec(
        "SELECT token_id, permissions FROM grants WHERE org_id = $1 AND agent_id = $2 "
        "ORDER BY token_id LIMIT $3",
        {P(org_id), P(agent_id), P(limit)});
    std::vector<GrantRecord> out;
    for (int i = 0; i < r.size(); ++i) {
      out.push_back(GrantRecord{r.Text(i, 0), agent_id, SplitList(r.Text(i, 1))});
    }
    return out;
  });
}

Result<std::vector<InstanceRecord>> PostgresStore::ListInstances(const std::string& org_id,
                                                                 const std::string& agent_id,
                                                                 int limit) {
  return pg::WithConnection(*pool_, [&](Connection& c) -> Result<std::vector<InstanceRecord>> {
    auto r = c.Exec(
        "SELECT instance_id, instructions FROM agent_instances WHERE org_id = $1 AND "
        "agent_id = $2 ORDER BY instance_id LIMIT $3",
        {P(org_id), P(agent_id), P(limit)});
    std::vector<InstanceRecord> out;
    for (int i = 0; i < r.size(); ++i) {
      out.push_back(InstanceRecord{org_id, agent_id, r.Text(i, 0), r.Text(i, 1)});
    }
    return out;
  });
}

Result<std::vector<ConversationListing>> PostgresStore::ListConversations(
    const ConversationFilter& f, int limit) {
  return pg::WithConnection(*pool_, [&](Connection& c) -> Result<std::vector<ConversationListing>> {
    // Each row's turn figures come from turns_by_conversation, which holds only turns with a
    // conversation (so each subquery says so); the page from conversations_by_org.
    const std::string of_row =
        "FROM turns t WHERE t.conversation_id = c.id AND t.conversation_id <> '')";
    const auto before = f.before.value_or(
        std::pair<std::int64_t, std::string>{std::numeric_limits<std::int64_t>::max(), ""});
    auto r =
        c.Exec("SELECT c.id, c.env, c.agent_id, c.instance_id, c.created_at_ms, (SELECT COUNT(*) " +
                   of_row + ", (SELECT COALESCE(MAX(started_at_ms), 0) " + of_row +
                   ", (SELECT COALESCE(SUM(cost_usd), 0) " + of_row +
                   " FROM conversations c WHERE c.org_id = $1 AND ($2 = '' OR c.agent_id = $2) "
                   "AND ($3 = '' OR c.env = $3) AND c.created_at_ms >= $4 AND c.created_at_ms < $5 "
                   "AND (c.created_at_ms < $6 OR (c.created_at_ms = $6 AND c.id < $7)) "
                   "ORDER BY c.created_at_ms DESC, c.id DESC LIMIT $8",
               {P(f.org_id), P(f.agent_id.value_or("")), P(f.env.value_or("")), P(f.since_ms),
                P(f.until_ms), P(before.first), P(before.second), P(limit)});
    std::vector<ConversationListing> out;
    for (int i = 0; i < r.size(); ++i) {
      out.push_back(ConversationListing{ConversationRecord{r.Text(i, 0), f.org_id, r.Text(i, 1),
                                                           r.Text(i, 2), r.Text(i, 3), r.Int(i, 4)},
                                        r.Int(i, 5), r.Int(i, 6), r.Double(i, 7)});
    }
    return out;
  });
}

Result<void> PostgresStore::RecordCrmRefresh(const std::string& org_id, const std::string& env,
                                             std::int64_t at_ms, const std::string& error) {
  return pg::WithConnection(*pool_, [&](Connection& c) -> Result<void> {
    c.Exec(
        "UPDATE crm_credentials SET last_refresh_at_ms = $1, last_refresh_error = $2 "
        "WHERE org_id = $3 AND env = $4",
        {P(at_ms), P(error), P(org_id), P(env)});
    return {};
  });
}

Result<std::optional<CrmCredentialStatus>> PostgresStore::GetCrmCredentialStatus(
    const std::string& org_id, const std::string& env) {
  return pg::WithConnection(
      *pool_, [&](Connection& c) -> Result<std::optional<CrmCredentialStatus>> {
        auto r = c.Exec(
            "SELECT set_at_ms, version, last_refresh_at_ms, last_refresh_error "
            "FROM crm_credentials WHERE org_id = $1 AND env = $2",
            {P(org_id), P(env)});
        if (r.empty()) return std::optional<CrmCredentialStatus>{};
        CrmCredentialStatus status{r.Int(0, 0), r.Int(0, 1), std::nullopt, ""};
        if (!r.IsNull(0, 2)) {
          status.last_refresh_at_ms = r.Int(0, 2);
          status.last_refresh_error = r.IsNull(0, 3) ? "" : r.Text(0, 3);
        }
        return std::optional(status);
      });
}

}  // namespace agentgate
