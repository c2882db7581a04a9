// What an operator browses (the console and the admin API's GET lists).
#include "adapters/store_common/list_column.hpp"
#include "adapters/store_sqlite/sqlite_store.hpp"

#include <limits>

namespace agentgate {

using sqlite::Connection;

Result<std::vector<OrgRecord>> SqliteStore::ListOrgs(const std::string& after_id, int limit) {
  return sqlite::WithConnection(*pool_, [&](Connection& c) -> Result<std::vector<OrgRecord>> {
    auto s = c.Prepare(
        "SELECT id, name, monthly_spend_limit_usd, created_at_ms FROM orgs WHERE id > ? "
        "ORDER BY id LIMIT ?");
    s.Bind(1, after_id).Bind(2, limit);
    std::vector<OrgRecord> out;
    while (s.Step()) {
      OrgRecord& org = out.emplace_back(OrgRecord{s.Text(0), s.Text(1), std::nullopt, s.Int(3)});
      if (!s.IsNull(2)) org.monthly_spend_limit_usd = s.Double(2);
    }
    return out;
  });
}

Result<std::vector<std::string>> SqliteStore::ListEnvironments(const std::string& org_id) {
  return sqlite::WithConnection(*pool_, [&](Connection& c) -> Result<std::vector<std::string>> {
    auto s = c.Prepare("SELECT name FROM environments WHERE org_id = ? ORDER BY name LIMIT ?");
    s.Bind(1, org_id).Bind(2, kMaxListedEnvironments);
    std::vector<std::string> out;
    while (s.Step()) out.push_back(s.Text(0));
    return out;
  });
}

Result<std::vector<TokenRecord>> SqliteStore::ListTokens(const std::string& org_id, int limit) {
  return sqlite::WithConnection(*pool_, [&](Connection& c) -> Result<std::vector<TokenRecord>> {
    auto s = c.Prepare(
        "SELECT id, name, environments, created_at_ms, revoked FROM api_tokens WHERE org_id = ? "
        "ORDER BY created_at_ms DESC, id DESC LIMIT ?");
    s.Bind(1, org_id).Bind(2, limit);
    std::vector<TokenRecord> out;
    while (s.Step()) {
      out.push_back(TokenRecord{s.Text(0), org_id, s.Text(1), "", SplitList(s.Text(2)), s.Int(3),
                                s.Int(4) != 0});
    }
    return out;
  });
}

namespace {

std::vector<AgentVersionRecord> ReadVersions(sqlite::Statement& s) {
  std::vector<AgentVersionRecord> out;
  while (s.Step()) {
    out.push_back(
        AgentVersionRecord{s.Text(0), s.Text(1), static_cast<int>(s.Int(2)), s.Text(3), s.Int(4)});
  }
  return out;
}

}  // namespace

Result<std::vector<AgentVersionRecord>> SqliteStore::ListAgents(const std::string& org_id,
                                                                int limit) {
  return sqlite::WithConnection(
      *pool_, [&](Connection& c) -> Result<std::vector<AgentVersionRecord>> {
        auto s = c.Prepare(
            "SELECT v.org_id, v.agent_id, v.version, v.config, v.created_at_ms FROM agents a "
            "JOIN agent_versions v ON v.org_id = a.org_id AND v.agent_id = a.id AND "
            "v.version = a.latest_version WHERE a.org_id = ? ORDER BY a.id LIMIT ?");
        s.Bind(1, org_id).Bind(2, limit);
        return ReadVersions(s);
      });
}

Result<std::vector<AgentVersionRecord>> SqliteStore::ListAgentVersions(const std::string& org_id,
                                                                       const std::string& agent_id,
                                                                       int limit) {
  return sqlite::WithConnection(
      *pool_, [&](Connection& c) -> Result<std::vector<AgentVersionRecord>> {
        auto s = c.Prepare(
            "SELECT org_id, agent_id, version, config, created_at_ms FROM agent_versions "
            "WHERE org_id = ? AND agent_id = ? ORDER BY version DESC LIMIT ?");
        s.Bind(1, org_id).Bind(2, agent_id).Bind(3, limit);
        return ReadVersions(s);
      });
}

Result<std::vector<DeploymentRecord>> SqliteStore::ListDeployments(const std::string& org_id) {
  return sqlite::WithConnection(
      *pool_, [&](Connection& c) -> Result<std::vector<DeploymentRecord>> {
        auto s = c.Prepare(
            "SELECT agent_id, env, version FROM deployments WHERE org_id = ? ORDER BY agent_id, "
            "env "
            "LIMIT ?");
        s.Bind(1, org_id).Bind(2, kMaxListedDeployments);
        std::vector<DeploymentRecord> out;
        while (s.Step())
          out.push_back(DeploymentRecord{s.Text(0), s.Text(1), static_cast<int>(s.Int(2))});
        return out;
      });
}

Result<std::vector<GrantRecord>> SqliteStore::ListGrants(const std::string& org_id,
                                                         const std::string& agent_id, int limit) {
  return sqlite::WithConnection(*pool_, [&](Connection& c) -> Result<std::vector<GrantRecord>> {
    auto s = c.Prepare(
        "SELECT token_id, permissions FROM grants WHERE org_id = ? AND agent_id = ? "
        "ORDER BY token_id LIMIT ?");
    s.Bind(1, org_id).Bind(2, agent_id).Bind(3, limit);
    std::vector<GrantRecord> out;
    while (s.Step()) out.push_back(GrantRecord{s.Text(0), agent_id, SplitList(s.Text(1))});
    return out;
  });
}

Result<std::vector<InstanceRecord>> SqliteStore::ListInstances(const std::string& org_id,
                                                               const std::string& agent_id,
                                                               int limit) {
  return sqlite::WithConnection(*pool_, [&](Connection& c) -> Result<std::vector<InstanceRecord>> {
    auto s = c.Prepare(
        "SELECT instance_id, instructions FROM agent_instances WHERE org_id = ? AND agent_id = ? "
        "ORDER BY instance_id LIMIT ?");
    s.Bind(1, org_id).Bind(2, agent_id).Bind(3, limit);
    std::vector<InstanceRecord> out;
    while (s.Step()) out.push_back(InstanceRecord{org_id, agent_id, s.Text(0), s.Text(1)});
    return out;
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
            "SELECT c.id, c.env, c.agent_id, c.instance_id, c.created_at_ms, (SELECT COUNT(*) " +
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
        s.Bind(1, f.org_id).Bind(2, agent).Bind(3, agent).Bind(4, env).Bind(5, env);
        s.Bind(6, f.since_ms).Bind(7, f.until_ms).Bind(8, before.first).Bind(9, before.first);
        s.Bind(10, before.second).Bind(11, limit);
        std::vector<ConversationListing> out;
        while (s.Step()) {
          out.push_back(ConversationListing{
              ConversationRecord{s.Text(0), f.org_id, s.Text(1), s.Text(2), s.Text(3), s.Int(4)},
              s.Int(5), s.Int(6), s.Double(7)});
        }
        return out;
      });
}

Result<void> SqliteStore::RecordCrmRefresh(const std::string& org_id, const std::string& env,
                                           std::int64_t at_ms, const std::string& error) {
  return sqlite::WithConnection(*pool_, [&](Connection& c) -> Result<void> {
    c.Prepare(
         "UPDATE crm_credentials SET last_refresh_at_ms = ?, last_refresh_error = ? "
         "WHERE org_id = ? AND env = ?")
        .Bind(1, at_ms)
        .Bind(2, error)
        .Bind(3, org_id)
        .Bind(4, env)
        .Run();
    return {};
  });
}

Result<std::optional<CrmCredentialStatus>> SqliteStore::GetCrmCredentialStatus(
    const std::string& org_id, const std::string& env) {
  return sqlite::WithConnection(
      *pool_, [&](Connection& c) -> Result<std::optional<CrmCredentialStatus>> {
        auto s = c.Prepare(
            "SELECT set_at_ms, version, last_refresh_at_ms, last_refresh_error "
            "FROM crm_credentials WHERE org_id = ? AND env = ?");
        s.Bind(1, org_id).Bind(2, env);
        if (!s.Step()) return std::optional<CrmCredentialStatus>{};
        CrmCredentialStatus status{s.Int(0), s.Int(1), std::nullopt, ""};
        if (!s.IsNull(2)) {
          status.last_refresh_at_ms = s.Int(2);
          status.last_refresh_error = s.Text(3);
        }
        return std::optional(status);
      });
}

}  // namespace agentgate
