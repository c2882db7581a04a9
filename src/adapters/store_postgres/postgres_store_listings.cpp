// What an operator browses (the console and the admin API's GET lists).
#include "adapters/store_common/row_readers.hpp"
#include "adapters/store_postgres/postgres_store.hpp"

#include <limits>

namespace agentgate {

using pg::Connection;
using pg::P;

Result<std::vector<OrgRecord>> PostgresStore::ListOrgs(const std::string& after_id, int limit) {
  return pg::WithConnection(*pool_, [&](Connection& c) -> Result<std::vector<OrgRecord>> {
    static const std::string sql =
        std::string("SELECT ") + kOrgColumns + " FROM orgs WHERE id > $1 ORDER BY id LIMIT $2";
    return c.Exec(sql, {P(after_id), P(limit)}).All(ReadOrg);
  });
}

Result<std::vector<std::string>> PostgresStore::ListEnvironments(const std::string& org_id) {
  return pg::WithConnection(*pool_, [&](Connection& c) -> Result<std::vector<std::string>> {
    return c
        .Exec("SELECT name FROM environments WHERE org_id = $1 ORDER BY name LIMIT $2",
              {P(org_id), P(kMaxListedEnvironments)})
        .All([](const RowView& row) { return row.Text(0); });
  });
}

Result<std::vector<TokenRecord>> PostgresStore::ListTokens(const std::string& org_id, int limit) {
  return pg::WithConnection(*pool_, [&](Connection& c) -> Result<std::vector<TokenRecord>> {
    // kTokenColumns with an empty hash: secret hashes stay in the store.
    return c
        .Exec(
            "SELECT id, org_id, name, ''::bytea, environments, created_at_ms, revoked FROM "
            "api_tokens WHERE org_id = $1 ORDER BY created_at_ms DESC, id DESC LIMIT $2",
            {P(org_id), P(limit)})
        .All(ReadToken);
  });
}

Result<std::vector<AgentVersionRecord>> PostgresStore::ListAgents(const std::string& org_id,
                                                                  int limit) {
  return pg::WithConnection(*pool_, [&](Connection& c) -> Result<std::vector<AgentVersionRecord>> {
    return c
        .Exec(
            "SELECT v.org_id, v.agent_id, v.version, v.config, v.created_at_ms FROM agents a "
            "JOIN agent_versions v ON v.org_id = a.org_id AND v.agent_id = a.id AND "
            "v.version = a.latest_version WHERE a.org_id = $1 ORDER BY a.id LIMIT $2",
            {P(org_id), P(limit)})
        .All(ReadAgentVersion);
  });
}

Result<std::vector<AgentVersionRecord>> PostgresStore::ListAgentVersions(
    const std::string& org_id, const std::string& agent_id, int limit) {
  return pg::WithConnection(*pool_, [&](Connection& c) -> Result<std::vector<AgentVersionRecord>> {
    static const std::string sql =
        std::string("SELECT ") + kAgentVersionColumns +
        " FROM agent_versions WHERE org_id = $1 AND agent_id = $2 ORDER BY version DESC LIMIT $3";
    return c.Exec(sql, {P(org_id), P(agent_id), P(limit)}).All(ReadAgentVersion);
  });
}

Result<std::vector<DeploymentRecord>> PostgresStore::ListDeployments(const std::string& org_id) {
  return pg::WithConnection(*pool_, [&](Connection& c) -> Result<std::vector<DeploymentRecord>> {
    return c
        .Exec(
            "SELECT agent_id, env, version, a2a_discoverable::int FROM deployments WHERE org_id = "
            "$1 "
            "ORDER BY agent_id, env LIMIT $2",
            {P(org_id), P(kMaxListedDeployments)})
        .All(ReadDeployment);
  });
}

Result<std::vector<GrantRecord>> PostgresStore::ListGrants(const std::string& org_id,
                                                           const std::string& agent_id, int limit) {
  return pg::WithConnection(*pool_, [&](Connection& c) -> Result<std::vector<GrantRecord>> {
    static const std::string sql =
        std::string("SELECT ") + kGrantColumns +
        " FROM grants WHERE org_id = $1 AND agent_id = $2 ORDER BY token_id LIMIT $3";
    return c.Exec(sql, {P(org_id), P(agent_id), P(limit)}).All(ReadGrant);
  });
}

Result<std::vector<EnvironmentGrantRecord>> PostgresStore::ListEnvironmentGrants(
    const std::string& org_id, const std::string& env, int limit) {
  return pg::WithConnection(
      *pool_, [&](Connection& c) -> Result<std::vector<EnvironmentGrantRecord>> {
        static const std::string sql =
            std::string("SELECT ") + kEnvironmentGrantColumns +
            " FROM environment_grants WHERE org_id = $1 AND env = $2 ORDER BY token_id LIMIT $3";
        return c.Exec(sql, {P(org_id), P(env), P(limit)}).All(ReadEnvironmentGrant);
      });
}

Result<std::vector<InstanceRecord>> PostgresStore::ListInstances(const std::string& org_id,
                                                                 const std::string& agent_id,
                                                                 int limit) {
  return pg::WithConnection(*pool_, [&](Connection& c) -> Result<std::vector<InstanceRecord>> {
    static const std::string sql =
        std::string("SELECT ") + kInstanceColumns +
        " FROM agent_instances WHERE org_id = $1 AND agent_id = $2 ORDER BY instance_id LIMIT $3";
    return c.Exec(sql, {P(org_id), P(agent_id), P(limit)}).All(ReadInstance);
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
    auto r = c.Exec(
        "SELECT c.id, c.org_id, c.env, c.agent_id, c.instance_id, c.created_at_ms, c.metadata, "
        "(SELECT COUNT(*) " +
            of_row + ", (SELECT COALESCE(MAX(started_at_ms), 0) " + of_row +
            ", (SELECT COALESCE(SUM(cost_usd), 0) " + of_row +
            " FROM conversations c WHERE c.org_id = $1 AND ($2 = '' OR c.agent_id = $2) "
            "AND ($3 = '' OR c.env = $3) AND c.created_at_ms >= $4 AND c.created_at_ms < $5 "
            "AND (c.created_at_ms < $6 OR (c.created_at_ms = $6 AND c.id < $7)) "
            "ORDER BY c.created_at_ms DESC, c.id DESC LIMIT $8",
        {P(f.org_id), P(f.agent_id.value_or("")), P(f.env.value_or("")), P(f.since_ms),
         P(f.until_ms), P(before.first), P(before.second), P(limit)});
    return r.All(ReadConversationListing);
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
        static const std::string sql = std::string("SELECT ") + kCrmStatusColumns +
                                       " FROM crm_credentials WHERE org_id = $1 AND env = $2";
        return c.Exec(sql, {P(org_id), P(env)}).One(ReadCrmStatus);
      });
}

}  // namespace agentgate
