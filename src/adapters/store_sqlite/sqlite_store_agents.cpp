// SqliteStore: agents, their versions, deployments and instances.
#include "adapters/store_common/list_column.hpp"
#include "adapters/store_common/row_readers.hpp"
#include "adapters/store_sqlite/sqlite_store.hpp"

namespace agentgate {
namespace {

using sqlite::AsBlob;
using sqlite::Connection;

}  // namespace
Result<void> SqliteStore::CreateAgent(const AgentVersionRecord& v) {
  return sqlite::WithConnection(*pool_, [&](Connection& c) -> Result<void> {
    sqlite::WriteTransaction tx(c);
    c.Prepare("INSERT INTO agents(org_id, id, latest_version) VALUES (?, ?, 1)")
        .Bind(v.org_id, v.agent_id)
        .Run();
    c.Prepare(
         "INSERT INTO agent_versions(org_id, agent_id, version, config, created_at_ms) VALUES (?, "
         "?, 1, ?, ?)")
        .Bind(v.org_id, v.agent_id, v.config_json, v.created_at_ms)
        .Run();
    tx.Commit();
    return {};
  });
}

Result<std::optional<int>> SqliteStore::AddAgentVersion(const std::string& org_id,
                                                        const std::string& agent_id,
                                                        const std::string& config_json,
                                                        std::int64_t now_ms) {
  return sqlite::WithConnection(*pool_, [&](Connection& c) -> Result<std::optional<int>> {
    sqlite::WriteTransaction tx(c);
    c.Prepare("UPDATE agents SET latest_version = latest_version + 1 WHERE org_id = ? AND id = ?")
        .Bind(org_id, agent_id)
        .Run();
    if (c.Changes() == 0) return std::optional<int>{};
    int version = 0;
    {
      auto s = c.Prepare("SELECT latest_version FROM agents WHERE org_id = ? AND id = ?");
      s.Bind(org_id, agent_id).Step();
      version = static_cast<int>(s.Int(0));
    }
    c.Prepare(
         "INSERT INTO agent_versions(org_id, agent_id, version, config, created_at_ms) VALUES (?, "
         "?, ?, ?, ?)")
        .Bind(org_id, agent_id, version, config_json, now_ms)
        .Run();
    tx.Commit();
    return std::optional<int>(version);
  });
}

Result<std::optional<AgentVersionRecord>> SqliteStore::GetAgentVersion(const std::string& org_id,
                                                                       const std::string& agent_id,
                                                                       int version) {
  return sqlite::WithConnection(
      *pool_, [&](Connection& c) -> Result<std::optional<AgentVersionRecord>> {
        static const std::string sql =
            std::string("SELECT ") + kAgentVersionColumns +
            " FROM agent_versions WHERE org_id = ? AND agent_id = ? AND version = ?";
        return c.Prepare(sql).Bind(org_id, agent_id, version).One(ReadAgentVersion);
      });
}

Result<void> SqliteStore::SetDeployment(const std::string& org_id, const std::string& agent_id,
                                        const std::string& env, int version) {
  return sqlite::WithConnection(*pool_, [&](Connection& c) -> Result<void> {
    sqlite::WriteTransaction tx(c);
    const bool exists =
        c.Prepare("SELECT 1 FROM agent_versions WHERE org_id = ? AND agent_id = ? AND version = ?")
            .Bind(org_id, agent_id, version)
            .Step();
    if (!exists) return MakeError(ErrorCode::kNotFound, "agent version not found");
    c.Prepare(
         "INSERT INTO deployments(org_id, agent_id, env, version) VALUES (?, ?, ?, ?) "
         "ON CONFLICT(org_id, agent_id, env) DO UPDATE SET version = excluded.version")
        .Bind(org_id, agent_id, env, version)
        .Run();
    tx.Commit();
    return {};
  });
}

Result<std::optional<int>> SqliteStore::GetDeployment(const std::string& org_id,
                                                      const std::string& agent_id,
                                                      const std::string& env) {
  return sqlite::WithConnection(*pool_, [&](Connection& c) -> Result<std::optional<int>> {
    auto s =
        c.Prepare("SELECT version FROM deployments WHERE org_id = ? AND agent_id = ? AND env = ?");
    s.Bind(org_id, agent_id, env);
    if (!s.Step()) return std::optional<int>{};
    return std::optional<int>(static_cast<int>(s.Int(0)));
  });
}

Result<bool> SqliteStore::SetA2aDiscoverable(const std::string& org_id, const std::string& agent_id,
                                             const std::string& env, bool discoverable) {
  return sqlite::WithConnection(*pool_, [&](Connection& c) -> Result<bool> {
    c.Prepare(
         "UPDATE deployments SET a2a_discoverable = ? WHERE org_id = ? AND agent_id = ? AND env = "
         "?")
        .Bind(discoverable ? 1 : 0, org_id, agent_id, env)
        .Run();
    return c.Changes() > 0;
  });
}

Result<bool> SqliteStore::IsA2aDiscoverable(const std::string& org_id, const std::string& agent_id,
                                            const std::string& env) {
  return sqlite::WithConnection(*pool_, [&](Connection& c) -> Result<bool> {
    auto s = c.Prepare(
        "SELECT a2a_discoverable FROM deployments WHERE org_id = ? AND agent_id = ? AND env = ?");
    s.Bind(org_id, agent_id, env);
    return s.Step() && s.Int(0) != 0;
  });
}

Result<std::vector<AgentVersionRecord>> SqliteStore::ListChatAgents(const std::string& org_id,
                                                                    const std::string& env,
                                                                    const std::string& token_id) {
  return sqlite::WithConnection(
      *pool_, [&](Connection& c) -> Result<std::vector<AgentVersionRecord>> {
        auto s = c.Prepare(
            "SELECT v.org_id, v.agent_id, v.version, v.config, v.created_at_ms FROM grants g "
            "JOIN deployments d ON d.org_id = g.org_id AND d.agent_id = g.agent_id AND d.env = ?2 "
            "JOIN agent_versions v ON v.org_id = d.org_id AND v.agent_id = d.agent_id AND "
            "v.version = d.version "
            "WHERE g.org_id = ?1 AND g.token_id = ?3 AND (',' || g.permissions || ',') LIKE "
            "'%,chat,%' "
            "ORDER BY v.agent_id");
        return s.Bind(org_id, env, token_id).All(ReadAgentVersion);
      });
}

Result<std::vector<AgentVersionRecord>> SqliteStore::ListDeployedVersions() {
  return sqlite::WithConnection(
      *pool_, [](Connection& c) -> Result<std::vector<AgentVersionRecord>> {
        auto s = c.Prepare(
            "SELECT DISTINCT v.org_id, v.agent_id, v.version, v.config, v.created_at_ms FROM "
            "deployments d "
            "JOIN agent_versions v ON v.org_id = d.org_id AND v.agent_id = d.agent_id AND "
            "v.version = d.version "
            "ORDER BY v.org_id, v.agent_id, v.version");
        return s.All(ReadAgentVersion);
      });
}

Result<void> SqliteStore::CreateInstance(const InstanceRecord& i) {
  return sqlite::WithConnection(*pool_, [&](Connection& c) -> Result<void> {
    c.Prepare(
         "INSERT INTO agent_instances(org_id, agent_id, instance_id, instructions) VALUES (?, ?, "
         "?, ?)")
        .Bind(i.org_id, i.agent_id, i.instance_id, i.instructions)
        .Run();
    return {};
  });
}

Result<std::optional<InstanceRecord>> SqliteStore::GetInstance(const std::string& org_id,
                                                               const std::string& agent_id,
                                                               const std::string& instance_id) {
  return sqlite::WithConnection(
      *pool_, [&](Connection& c) -> Result<std::optional<InstanceRecord>> {
        static const std::string sql =
            std::string("SELECT ") + kInstanceColumns +
            " FROM agent_instances WHERE org_id = ? AND agent_id = ? AND instance_id = ?";
        return c.Prepare(sql).Bind(org_id, agent_id, instance_id).One(ReadInstance);
      });
}

}  // namespace agentgate
