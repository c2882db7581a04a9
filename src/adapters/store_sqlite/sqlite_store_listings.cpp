// What an operator browses (the console and the admin API's GET lists).
#include "adapters/store_common/row_readers.hpp"
#include "adapters/store_sqlite/sqlite_store.hpp"

#include <limits>

namespace agentgate {

using sqlite::Connection;

Result<std::vector<OrgRecord>> SqliteStore::ListOrgs(const std::string& after_id, int limit) {
  return sqlite::WithConnection(*pool_, [&](Connection& c) -> Result<std::vector<OrgRecord>> {
    static const std::string sql =
        std::string("SELECT ") + kOrgColumns + " FROM orgs WHERE id > ? ORDER BY id LIMIT ?";
    return c.Prepare(sql).Bind(after_id, limit).All(ReadOrg);
  });
}

Result<std::vector<std::string>> SqliteStore::ListEnvironments(const std::string& org_id) {
  return sqlite::WithConnection(*pool_, [&](Connection& c) -> Result<std::vector<std::string>> {
    return c.Prepare("SELECT name FROM environments WHERE org_id = ? ORDER BY name LIMIT ?")
        .Bind(org_id, kMaxListedEnvironments)
        .All([](const RowView& row) { return row.Text(0); });
  });
}

Result<std::vector<TokenRecord>> SqliteStore::ListTokens(const std::string& org_id, int limit) {
  return sqlite::WithConnection(*pool_, [&](Connection& c) -> Result<std::vector<TokenRecord>> {
    // kTokenColumns with an empty hash: secret hashes stay in the store.
    return c
        .Prepare(
            "SELECT id, org_id, name, X'', environments, created_at_ms, revoked FROM api_tokens "
            "WHERE org_id = ? ORDER BY created_at_ms DESC, id DESC LIMIT ?")
        .Bind(org_id, limit)
        .All(ReadToken);
  });
}

Result<std::vector<AgentVersionRecord>> SqliteStore::ListAgents(const std::string& org_id,
                                                                int limit) {
  return sqlite::WithConnection(
      *pool_, [&](Connection& c) -> Result<std::vector<AgentVersionRecord>> {
        return c
            .Prepare(
                "SELECT v.org_id, v.agent_id, v.version, v.config, v.created_at_ms FROM agents a "
                "JOIN agent_versions v ON v.org_id = a.org_id AND v.agent_id = a.id AND "
                "v.version = a.latest_version WHERE a.org_id = ? ORDER BY a.id LIMIT ?")
            .Bind(org_id, limit)
            .All(ReadAgentVersion);
      });
}

Result<std::vector<AgentVersionRecord>> SqliteStore::ListAgentVersions(const std::string& org_id,
                                                                       const std::string& agent_id,
                                                                       int limit) {
  return sqlite::WithConnection(
      *pool_, [&](Connection& c) -> Result<std::vector<AgentVersionRecord>> {
        static const std::string sql =
            std::string("SELECT ") + kAgentVersionColumns +
            " FROM agent_versions WHERE org_id = ? AND agent_id = ? ORDER BY version DESC LIMIT ?";
        return c.Prepare(sql).Bind(org_id, agent_id, limit).All(ReadAgentVersion);
      });
}

Result<std::vector<DeploymentRecord>> SqliteStore::ListDeployments(const std::string& org_id) {
  return sqlite::WithConnection(
      *pool_, [&](Connection& c) -> Result<std::vector<DeploymentRecord>> {
        return c
            .Prepare(
                "SELECT agent_id, env, version, a2a_discoverable FROM deployments WHERE org_id = ? "
                "ORDER BY "
                "agent_id, env LIMIT ?")
            .Bind(org_id, kMaxListedDeployments)
            .All(ReadDeployment);
      });
}

Result<std::vector<GrantRecord>> SqliteStore::ListGrants(const std::string& org_id,
                                                         const std::string& agent_id, int limit) {
  return sqlite::WithConnection(*pool_, [&](Connection& c) -> Result<std::vector<GrantRecord>> {
    static const std::string sql =
        std::string("SELECT ") + kGrantColumns +
        " FROM grants WHERE org_id = ? AND agent_id = ? ORDER BY token_id LIMIT ?";
    return c.Prepare(sql).Bind(org_id, agent_id, limit).All(ReadGrant);
  });
}

Result<std::vector<EnvironmentGrantRecord>> SqliteStore::ListEnvironmentGrants(
    const std::string& org_id, const std::string& env, int limit) {
  return sqlite::WithConnection(
      *pool_, [&](Connection& c) -> Result<std::vector<EnvironmentGrantRecord>> {
        static const std::string sql =
            std::string("SELECT ") + kEnvironmentGrantColumns +
            " FROM environment_grants WHERE org_id = ? AND env = ? ORDER BY token_id LIMIT ?";
        return c.Prepare(sql).Bind(org_id, env, limit).All(ReadEnvironmentGrant);
      });
}

Result<std::vector<InstanceRecord>> SqliteStore::ListInstances(const std::string& org_id,
                                                               const std::string& agent_id,
                                                               int limit) {
  return sqlite::WithConnection(*pool_, [&](Connection& c) -> Result<std::vector<InstanceRecord>> {
    static const std::string sql =
        std::string("SELECT ") + kInstanceColumns +
        " FROM agent_instances WHERE org_id = ? AND agent_id = ? ORDER BY instance_id LIMIT ?";
    return c.Prepare(sql).Bind(org_id, agent_id, limit).All(ReadInstance);
  });
}

Result<std::vector<ConversationListing>> SqliteStore::ListConversations(const ConversationFilter& f,
                                                                        int limit) {
  return sqlite::WithConnection(
      *pool_, [&](Connection& c) -> Result<std::vector<ConversationListing>> {
        // Each row's turn figures come from turns_by_conversation, which holds only turns with a
        // conversation (so each subquery says so); the page from conversations_by_org.
        const std::string of_row =
            "FROM turns t WHERE t.conversation_id = c.id AND t.conversation_id <> '')";
        auto s = c.Prepare(
            "SELECT c.id, c.org_id, c.env, c.agent_id, c.instance_id, c.created_at_ms, c.metadata, "
            "(SELECT "
            "COUNT(*) " +
            of_row + ", (SELECT COALESCE(MAX(started_at_ms), 0) " + of_row +
            ", (SELECT COALESCE(SUM(cost_usd), 0) " + of_row +
            " FROM conversations c WHERE c.org_id = ? AND (? = '' OR c.agent_id = ?) "
            "AND (? = '' OR c.env = ?) AND c.created_at_ms >= ? AND c.created_at_ms < ? "
            "AND (c.created_at_ms < ? OR (c.created_at_ms = ? AND c.id < ?)) "
            "ORDER BY c.created_at_ms DESC, c.id DESC LIMIT ?");
        const std::string agent = f.agent_id.value_or("");
        const std::string env = f.env.value_or("");
        const auto before = f.before.value_or(
            std::pair<std::int64_t, std::string>{std::numeric_limits<std::int64_t>::max(), ""});
        s.Bind(f.org_id, agent, agent, env, env, f.since_ms, f.until_ms, before.first, before.first,
               before.second, limit);
        return s.All(ReadConversationListing);
      });
}

Result<void> SqliteStore::RecordCrmRefresh(const std::string& org_id, const std::string& env,
                                           std::int64_t at_ms, const std::string& error) {
  return sqlite::WithConnection(*pool_, [&](Connection& c) -> Result<void> {
    c.Prepare(
         "UPDATE crm_credentials SET last_refresh_at_ms = ?, last_refresh_error = ? "
         "WHERE org_id = ? AND env = ?")
        .Bind(at_ms, error, org_id, env)
        .Run();
    return {};
  });
}

Result<std::optional<CrmCredentialStatus>> SqliteStore::GetCrmCredentialStatus(
    const std::string& org_id, const std::string& env) {
  return sqlite::WithConnection(
      *pool_, [&](Connection& c) -> Result<std::optional<CrmCredentialStatus>> {
        static const std::string sql = std::string("SELECT ") + kCrmStatusColumns +
                                       " FROM crm_credentials WHERE org_id = ? AND env = ?";
        return c.Prepare(sql).Bind(org_id, env).One(ReadCrmStatus);
      });
}

}  // namespace agentgate
