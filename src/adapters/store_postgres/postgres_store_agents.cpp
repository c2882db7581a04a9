// PostgresStore: agents, their versions, deployments and instances.
#include "adapters/store_common/list_column.hpp"
#include "adapters/store_common/row_readers.hpp"
#include "adapters/store_postgres/postgres_store.hpp"

namespace agentgate {
namespace {

using pg::Connection;
using pg::P;

}  // namespace
Result<void> PostgresStore::CreateAgent(const AgentVersionRecord& v) {
  return pg::WithConnection(*pool_, [&](Connection& c) -> Result<void> {
    pg::Transaction tx(c);
    c.Exec("INSERT INTO agents(org_id, id, latest_version) VALUES ($1, $2, 1)",
           {P(v.org_id), P(v.agent_id)});
    c.Exec(
        "INSERT INTO agent_versions(org_id, agent_id, version, config, created_at_ms) VALUES ($1, "
        "$2, 1, $3, $4)",
        {P(v.org_id), P(v.agent_id), P(v.config_json), P(v.created_at_ms)});
    tx.Commit();
    return {};
  });
}

Result<std::optional<int>> PostgresStore::AddAgentVersion(const std::string& org_id,
                                                          const std::string& agent_id,
                                                          const std::string& config_json,
                                                          std::int64_t now_ms) {
  return pg::WithConnection(*pool_, [&](Connection& c) -> Result<std::optional<int>> {
    pg::Transaction tx(c);
    auto r = c.Exec(
        "UPDATE agents SET latest_version = latest_version + 1 WHERE org_id = $1 AND id = $2 "
        "RETURNING latest_version",
        {P(org_id), P(agent_id)});
    if (r.empty()) return std::optional<int>{};
    const int version = static_cast<int>(r.Int(0, 0));
    c.Exec(
        "INSERT INTO agent_versions(org_id, agent_id, version, config, created_at_ms) VALUES ($1, "
        "$2, $3, $4, $5)",
        {P(org_id), P(agent_id), P(version), P(config_json), P(now_ms)});
    tx.Commit();
    return std::optional<int>(version);
  });
}

Result<std::optional<AgentVersionRecord>> PostgresStore::GetAgentVersion(
    const std::string& org_id, const std::string& agent_id, int version) {
  return pg::WithConnection(
      *pool_, [&](Connection& c) -> Result<std::optional<AgentVersionRecord>> {
        static const std::string sql =
            std::string("SELECT ") + kAgentVersionColumns +
            " FROM agent_versions WHERE org_id = $1 AND agent_id = $2 AND version = $3";
        return c.Exec(sql, {P(org_id), P(agent_id), P(version)}).One(ReadAgentVersion);
      });
}

Result<std::vector<AgentVersionRecord>> PostgresStore::ListChatAgents(const std::string& org_id,
                                                                      const std::string& env,
                                                                      const std::string& token_id) {
  return pg::WithConnection(*pool_, [&](Connection& c) -> Result<std::vector<AgentVersionRecord>> {
    return c
        .Exec(
            "SELECT v.org_id, v.agent_id, v.version, v.config, v.created_at_ms FROM grants g "
            "JOIN deployments d ON d.org_id = g.org_id AND d.agent_id = g.agent_id AND d.env = $2 "
            "JOIN agent_versions v ON v.org_id = d.org_id AND v.agent_id = d.agent_id AND "
            "v.version = d.version "
            "WHERE g.org_id = $1 AND g.token_id = $3 AND (',' || g.permissions || ',') LIKE "
            "'%,chat,%' ORDER BY v.agent_id",
            {P(org_id), P(env), P(token_id)})
        .All(ReadAgentVersion);
  });
}

Result<std::vector<AgentVersionRecord>> PostgresStore::ListDeployedVersions() {
  return pg::WithConnection(*pool_, [](Connection& c) -> Result<std::vector<AgentVersionRecord>> {
    return c
        .Exec(
            "SELECT DISTINCT v.org_id, v.agent_id, v.version, v.config, v.created_at_ms FROM "
            "deployments d JOIN agent_versions v ON v.org_id = d.org_id AND v.agent_id = "
            "d.agent_id AND v.version = d.version ORDER BY v.org_id, v.agent_id, v.version")
        .All(ReadAgentVersion);
  });
}

Result<void> PostgresStore::SetDeployment(const std::string& org_id, const std::string& agent_id,
                                          const std::string& env, int version) {
  return pg::WithConnection(*pool_, [&](Connection& c) -> Result<void> {
    pg::Transaction tx(c);
    if (c.Exec("SELECT 1 FROM agent_versions WHERE org_id = $1 AND agent_id = $2 AND version = $3",
               {P(org_id), P(agent_id), P(version)})
            .empty()) {
      return MakeError(ErrorCode::kNotFound, "agent version not found");
    }
    c.Exec(
        "INSERT INTO deployments(org_id, agent_id, env, version) VALUES ($1, $2, $3, $4) "
        "ON CONFLICT (org_id, agent_id, env) DO UPDATE SET version = excluded.version",
        {P(org_id), P(agent_id), P(env), P(version)});
    tx.Commit();
    return {};
  });
}

Result<std::optional<int>> PostgresStore::GetDeployment(const std::string& org_id,
                                                        const std::string& agent_id,
                                                        const std::string& env) {
  return pg::WithConnection(*pool_, [&](Connection& c) -> Result<std::optional<int>> {
    auto r =
        c.Exec("SELECT version FROM deployments WHERE org_id = $1 AND agent_id = $2 AND env = $3",
               {P(org_id), P(agent_id), P(env)});
    if (r.empty()) return std::optional<int>{};
    return std::optional<int>(static_cast<int>(r.Int(0, 0)));
  });
}

Result<bool> PostgresStore::SetA2aDiscoverable(const std::string& org_id,
                                               const std::string& agent_id, const std::string& env,
                                               bool discoverable) {
  return pg::WithConnection(*pool_, [&](Connection& c) -> Result<bool> {
    auto r = c.Exec(
        "UPDATE deployments SET a2a_discoverable = ($1::int <> 0) WHERE org_id = $2 AND "
        "agent_id = $3 AND env = $4",
        {P(discoverable ? 1 : 0), P(org_id), P(agent_id), P(env)});
    return r.Affected() > 0;
  });
}

Result<bool> PostgresStore::IsA2aDiscoverable(const std::string& org_id,
                                              const std::string& agent_id, const std::string& env) {
  return pg::WithConnection(*pool_, [&](Connection& c) -> Result<bool> {
    auto r = c.Exec(
        "SELECT a2a_discoverable::int FROM deployments WHERE org_id = $1 AND agent_id = $2 AND "
        "env = $3",
        {P(org_id), P(agent_id), P(env)});
    return !r.empty() && r.Int(0, 0) != 0;
  });
}

Result<void> PostgresStore::CreateInstance(const InstanceRecord& i) {
  return pg::WithConnection(*pool_, [&](Connection& c) -> Result<void> {
    c.Exec(
        "INSERT INTO agent_instances(org_id, agent_id, instance_id, instructions) VALUES ($1, $2, "
        "$3, $4)",
        {P(i.org_id), P(i.agent_id), P(i.instance_id), P(i.instructions)});
    return {};
  });
}

Result<std::optional<InstanceRecord>> PostgresStore::GetInstance(const std::string& org_id,
                                                                 const std::string& agent_id,
                                                                 const std::string& instance_id) {
  return pg::WithConnection(*pool_, [&](Connection& c) -> Result<std::optional<InstanceRecord>> {
    static const std::string sql =
        std::string("SELECT ") + kInstanceColumns +
        " FROM agent_instances WHERE org_id = $1 AND agent_id = $2 AND instance_id = $3";
    return c.Exec(sql, {P(org_id), P(agent_id), P(instance_id)}).One(ReadInstance);
  });
}

}  // namespace agentgate
