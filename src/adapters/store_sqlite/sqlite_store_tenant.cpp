#include "adapters/store_common/list_column.hpp"
#include "adapters/store_common/row_readers.hpp"
#include "adapters/store_sqlite/sqlite_store.hpp"

#include <filesystem>

namespace agentgate {
namespace {

using sqlite::AsBlob;
using sqlite::Connection;

}  // namespace

Result<std::unique_ptr<SqliteStore>> SqliteStore::Open(const std::string& path,
                                                       std::size_t connections) {
  try {
    const auto parent = std::filesystem::path(path).parent_path();
    if (!parent.empty()) std::filesystem::create_directories(parent);
    auto pool = std::make_unique<sqlite::ConnectionPool>(path, connections);
    {
      auto lease = pool->Acquire();
      MigrateSqlite(*lease);
    }
    return std::unique_ptr<SqliteStore>(new SqliteStore(std::move(pool)));
  } catch (const std::exception& e) {
    return MakeError(ErrorCode::kUnavailable, std::string("cannot open sqlite store: ") + e.what());
  }
}

Result<void> SqliteStore::Ping() {
  return sqlite::WithConnection(*pool_, [](Connection& c) -> Result<void> {
    c.Prepare("SELECT 1").Run();
    return {};
  });
}

Result<void> SqliteStore::CreateOrg(const OrgRecord& org) {
  return sqlite::WithConnection(*pool_, [&](Connection& c) -> Result<void> {
    c.Prepare(
         "INSERT INTO orgs(id, name, monthly_spend_limit_usd, created_at_ms) VALUES (?, ?, ?, ?)")
        .Bind(org.id, org.name, org.monthly_spend_limit_usd, org.created_at_ms)
        .Run();
    return {};
  });
}

Result<std::optional<OrgRecord>> SqliteStore::GetOrg(const std::string& org_id) {
  return sqlite::WithConnection(*pool_, [&](Connection& c) -> Result<std::optional<OrgRecord>> {
    static const std::string sql = std::string("SELECT ") + kOrgColumns + " FROM orgs WHERE id = ?";
    return c.Prepare(sql).Bind(org_id).One(ReadOrg);
  });
}

Result<bool> SqliteStore::SetOrgSpendLimit(const std::string& org_id,
                                           std::optional<double> limit_usd) {
  return sqlite::WithConnection(*pool_, [&](Connection& c) -> Result<bool> {
    c.Prepare("UPDATE orgs SET monthly_spend_limit_usd = ? WHERE id = ?")
        .Bind(limit_usd, org_id)
        .Run();
    return c.Changes() > 0;
  });
}

Result<std::int64_t> SqliteStore::CountOrgs() {
  return sqlite::WithConnection(*pool_, [](Connection& c) -> Result<std::int64_t> {
    auto s = c.Prepare("SELECT COUNT(*) FROM orgs");
    s.Step();
    return s.Int(0);
  });
}

Result<void> SqliteStore::CreateEnvironment(const std::string& org_id, const std::string& env) {
  return sqlite::WithConnection(*pool_, [&](Connection& c) -> Result<void> {
    c.Prepare("INSERT INTO environments(org_id, name) VALUES (?, ?)").Bind(org_id, env).Run();
    return {};
  });
}

Result<bool> SqliteStore::HasEnvironment(const std::string& org_id, const std::string& env) {
  return sqlite::WithConnection(*pool_, [&](Connection& c) -> Result<bool> {
    return c.Prepare("SELECT 1 FROM environments WHERE org_id = ? AND name = ?")
        .Bind(org_id, env)
        .Step();
  });
}

Result<void> SqliteStore::CreateToken(const TokenRecord& t) {
  return sqlite::WithConnection(*pool_, [&](Connection& c) -> Result<void> {
    c.Prepare(
         "INSERT INTO api_tokens(id, org_id, name, secret_hash, environments, created_at_ms, "
         "revoked) "
         "VALUES (?, ?, ?, ?, ?, ?, ?)")
        .Bind(t.id, t.org_id, t.name, AsBlob(t.secret_hash), JoinList(t.environments),
              t.created_at_ms, t.revoked ? 1 : 0)
        .Run();
    return {};
  });
}

Result<std::optional<TokenRecord>> SqliteStore::GetToken(const std::string& token_id) {
  return sqlite::WithConnection(*pool_, [&](Connection& c) -> Result<std::optional<TokenRecord>> {
    static const std::string sql =
        std::string("SELECT ") + kTokenColumns + " FROM api_tokens WHERE id = ?";
    return c.Prepare(sql).Bind(token_id).One(ReadToken);
  });
}

Result<bool> SqliteStore::RevokeToken(const std::string& org_id, const std::string& token_id) {
  return sqlite::WithConnection(*pool_, [&](Connection& c) -> Result<bool> {
    c.Prepare("UPDATE api_tokens SET revoked = 1 WHERE id = ? AND org_id = ?")
        .Bind(token_id, org_id)
        .Run();
    return c.Changes() > 0;
  });
}

Result<void> SqliteStore::CreateOAuthClient(const OAuthClientRecord& o) {
  return sqlite::WithConnection(*pool_, [&](Connection& c) -> Result<void> {
    c.Prepare(
         "INSERT INTO oauth_clients(id, org_id, env, token_id, name, secret_hash, created_at_ms) "
         "VALUES (?, ?, ?, ?, ?, ?, ?)")
        .Bind(o.id, o.org_id, o.env, o.token_id, o.name, AsBlob(o.secret_hash), o.created_at_ms)
        .Run();
    return {};
  });
}

Result<std::optional<OAuthClientRecord>> SqliteStore::GetOAuthClient(const std::string& client_id) {
  return sqlite::WithConnection(
      *pool_, [&](Connection& c) -> Result<std::optional<OAuthClientRecord>> {
        static const std::string sql =
            std::string("SELECT ") + kOAuthClientColumns + " FROM oauth_clients WHERE id = ?";
        return c.Prepare(sql).Bind(client_id).One(ReadOAuthClient);
      });
}

Result<std::vector<OAuthClientRecord>> SqliteStore::ListOAuthClients(const std::string& org_id,
                                                                     const std::string& env,
                                                                     int limit) {
  return sqlite::WithConnection(
      *pool_, [&](Connection& c) -> Result<std::vector<OAuthClientRecord>> {
        // kOAuthClientColumns with an empty hash: secret hashes stay in the store.
        return c
            .Prepare(
                "SELECT id, org_id, env, token_id, name, X'', created_at_ms FROM oauth_clients "
                "WHERE org_id = ? AND env = ? ORDER BY created_at_ms DESC, id DESC LIMIT ?")
            .Bind(org_id, env, limit)
            .All(ReadOAuthClient);
      });
}

Result<bool> SqliteStore::DeleteOAuthClient(const std::string& org_id, const std::string& env,
                                            const std::string& client_id) {
  return sqlite::WithConnection(*pool_, [&](Connection& c) -> Result<bool> {
    c.Prepare("DELETE FROM oauth_clients WHERE id = ? AND org_id = ? AND env = ?")
        .Bind(client_id, org_id, env)
        .Run();
    return c.Changes() > 0;
  });
}

Result<std::vector<SigningKeyRecord>> SqliteStore::ListSigningKeys() {
  return sqlite::WithConnection(
      *pool_, [&](Connection& c) -> Result<std::vector<SigningKeyRecord>> {
        static const std::string sql =
            std::string("SELECT ") + kSigningKeyColumns +
            " FROM oauth_signing_keys ORDER BY created_at_ms DESC, kid DESC";
        return c.Prepare(sql).All(ReadSigningKey);
      });
}

Result<bool> SqliteStore::AddSigningKey(const SigningKeyRecord& key, bool only_if_none) {
  return sqlite::WithConnection(*pool_, [&](Connection& c) -> Result<bool> {
    sqlite::WriteTransaction tx(c);  // the write lock: no other server adds one meanwhile
    if (only_if_none) {
      auto current = c.Prepare("SELECT 1 FROM oauth_signing_keys WHERE retired_at_ms = 0 LIMIT 1");
      if (current.Step()) return false;
    }
    c.Prepare("UPDATE oauth_signing_keys SET retired_at_ms = ? WHERE retired_at_ms = 0")
        .Bind(key.created_at_ms)
        .Run();
    c.Prepare(
         "INSERT INTO oauth_signing_keys(kid, sealed_private, public_point, created_at_ms, "
         "retired_at_ms) VALUES (?, ?, ?, ?, 0)")
        .Bind(key.kid, AsBlob(key.sealed_private), AsBlob(key.public_point), key.created_at_ms)
        .Run();
    tx.Commit();
    return true;
  });
}

Result<std::int64_t> SqliteStore::PurgeSigningKeys(std::int64_t retired_before_ms) {
  return sqlite::WithConnection(*pool_, [&](Connection& c) -> Result<std::int64_t> {
    c.Prepare("DELETE FROM oauth_signing_keys WHERE retired_at_ms > 0 AND retired_at_ms < ?")
        .Bind(retired_before_ms)
        .Run();
    return static_cast<std::int64_t>(c.Changes());
  });
}

Result<bool> SqliteStore::DeleteSigningKey(const std::string& kid) {
  return sqlite::WithConnection(*pool_, [&](Connection& c) -> Result<bool> {
    c.Prepare("DELETE FROM oauth_signing_keys WHERE kid = ?").Bind(kid).Run();
    return c.Changes() == 1;
  });
}

Result<void> SqliteStore::PutGrant(const std::string& org_id, const std::string& token_id,
                                   const std::string& agent_id,
                                   const std::vector<std::string>& permissions) {
  return sqlite::WithConnection(*pool_, [&](Connection& c) -> Result<void> {
    if (permissions.empty()) {
      c.Prepare("DELETE FROM grants WHERE token_id = ? AND agent_id = ?")
          .Bind(token_id, agent_id)
          .Run();
      return {};
    }
    c.Prepare(
         "INSERT INTO grants(org_id, token_id, agent_id, permissions) VALUES (?, ?, ?, ?) "
         "ON CONFLICT(token_id, agent_id) DO UPDATE SET permissions = excluded.permissions")
        .Bind(org_id, token_id, agent_id, JoinList(permissions))
        .Run();
    return {};
  });
}

Result<std::vector<std::string>> SqliteStore::GetGrant(const std::string& token_id,
                                                       const std::string& agent_id) {
  return sqlite::WithConnection(*pool_, [&](Connection& c) -> Result<std::vector<std::string>> {
    auto s = c.Prepare("SELECT permissions FROM grants WHERE token_id = ? AND agent_id = ?");
    s.Bind(token_id, agent_id);
    if (!s.Step()) return std::vector<std::string>{};
    return SplitList(s.Text(0));
  });
}

Result<void> SqliteStore::PutEnvironmentGrant(const std::string& org_id, const std::string& env,
                                              const std::string& token_id,
                                              const std::vector<std::string>& permissions) {
  return sqlite::WithConnection(*pool_, [&](Connection& c) -> Result<void> {
    if (permissions.empty()) {
      c.Prepare("DELETE FROM environment_grants WHERE token_id = ? AND env = ?")
          .Bind(token_id, env)
          .Run();
      return {};
    }
    c.Prepare(
         "INSERT INTO environment_grants(org_id, env, token_id, permissions) VALUES (?, ?, ?, ?) "
         "ON CONFLICT(token_id, env) DO UPDATE SET permissions = excluded.permissions")
        .Bind(org_id, env, token_id, JoinList(permissions))
        .Run();
    return {};
  });
}

Result<std::vector<std::string>> SqliteStore::GetEnvironmentGrant(const std::string& token_id,
                                                                  const std::string& env) {
  return sqlite::WithConnection(*pool_, [&](Connection& c) -> Result<std::vector<std::string>> {
    auto s = c.Prepare("SELECT permissions FROM environment_grants WHERE token_id = ? AND env = ?");
    s.Bind(token_id, env);
    if (!s.Step()) return std::vector<std::string>{};
    return SplitList(s.Text(0));
  });
}

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

Result<std::int64_t> SqliteStore::PutCrmCredential(const CrmCredentialRecord& cred) {
  return sqlite::WithConnection(*pool_, [&](Connection& c) -> Result<std::int64_t> {
    auto s = c.Prepare(
        "INSERT INTO crm_credentials(org_id, env, sealed, updated_at_ms, set_at_ms) "
        "VALUES (?, ?, ?, ?, ?4) "
        "ON CONFLICT(org_id, env) DO UPDATE SET sealed = excluded.sealed, updated_at_ms = "
        "excluded.updated_at_ms, set_at_ms = excluded.set_at_ms, last_refresh_at_ms = NULL, "
        "last_refresh_error = NULL, version = crm_credentials.version + 1 RETURNING version");
    return *s.Bind(cred.org_id, cred.env, AsBlob(cred.sealed), cred.updated_at_ms)
                .Returning([](const RowView& row) { return row.Int(0); });
  });
}

Result<std::optional<std::int64_t>> SqliteStore::SaveRefreshedCrmCredential(
    const CrmCredentialRecord& cred, std::int64_t expected_version) {
  return sqlite::WithConnection(*pool_, [&](Connection& c) -> Result<std::optional<std::int64_t>> {
    auto s = c.Prepare(
        "UPDATE crm_credentials SET sealed = ?, updated_at_ms = ?, version = version + 1 "
        "WHERE org_id = ? AND env = ? AND version = ? RETURNING version");
    return s.Bind(AsBlob(cred.sealed), cred.updated_at_ms, cred.org_id, cred.env, expected_version)
        .Returning([](const RowView& row) { return row.Int(0); });
  });
}

Result<std::optional<std::int64_t>> SqliteStore::GetCrmCredentialVersion(const std::string& org_id,
                                                                         const std::string& env) {
  return sqlite::WithConnection(*pool_, [&](Connection& c) -> Result<std::optional<std::int64_t>> {
    auto s = c.Prepare("SELECT version FROM crm_credentials WHERE org_id = ? AND env = ?");
    s.Bind(org_id, env);
    if (!s.Step()) return std::optional<std::int64_t>{};
    return std::optional<std::int64_t>(s.Int(0));
  });
}

Result<std::optional<CrmCredentialRecord>> SqliteStore::GetCrmCredential(const std::string& org_id,
                                                                         const std::string& env) {
  return sqlite::WithConnection(
      *pool_, [&](Connection& c) -> Result<std::optional<CrmCredentialRecord>> {
        static const std::string sql = std::string("SELECT ") + kCrmCredentialColumns +
                                       " FROM crm_credentials WHERE org_id = ? AND env = ?";
        return c.Prepare(sql).Bind(org_id, env).One(ReadCrmCredential);
      });
}

Result<bool> SqliteStore::ClaimCrmRefresh(const std::string& org_id, const std::string& env,
                                          const std::string& holder, std::int64_t now_ms,
                                          std::int64_t ttl_ms) {
  return sqlite::WithConnection(*pool_, [&](Connection& c) -> Result<bool> {
    c.Prepare(
         "INSERT INTO crm_refresh_claims(org_id, env, holder, expires_at_ms) VALUES (?1, ?2, ?3, "
         "?4) "
         "ON CONFLICT(org_id, env) DO UPDATE SET holder = excluded.holder, expires_at_ms = "
         "excluded.expires_at_ms "
         "WHERE crm_refresh_claims.holder = excluded.holder OR crm_refresh_claims.expires_at_ms <= "
         "?5")
        .Bind(org_id, env, holder, now_ms + ttl_ms, now_ms)
        .Run();
    return c.Changes() > 0;
  });
}

Result<void> SqliteStore::ReleaseCrmRefresh(const std::string& org_id, const std::string& env,
                                            const std::string& holder) {
  return sqlite::WithConnection(*pool_, [&](Connection& c) -> Result<void> {
    c.Prepare("DELETE FROM crm_refresh_claims WHERE org_id = ? AND env = ? AND holder = ?")
        .Bind(org_id, env, holder)
        .Run();
    return {};
  });
}

Result<bool> SqliteStore::HasAnySealedSecret() {
  return sqlite::WithConnection(*pool_, [](Connection& c) -> Result<bool> {
    return c.Prepare("SELECT 1 FROM crm_credentials UNION ALL SELECT 1 FROM tool_secrets LIMIT 1")
        .Step();
  });
}

Result<void> SqliteStore::PutToolSecret(const ToolSecretRecord& secret) {
  return sqlite::WithConnection(*pool_, [&](Connection& c) -> Result<void> {
    c.Prepare(
         "INSERT INTO tool_secrets(org_id, name, sealed, updated_at_ms) VALUES (?, ?, ?, ?) "
         "ON CONFLICT (org_id, name) DO UPDATE SET sealed = excluded.sealed, "
         "updated_at_ms = excluded.updated_at_ms")
        .Bind(secret.org_id, secret.name, AsBlob(secret.sealed), secret.updated_at_ms)
        .Run();
    return {};
  });
}

Result<std::optional<ToolSecretRecord>> SqliteStore::GetToolSecret(const std::string& org_id,
                                                                   const std::string& name) {
  return sqlite::WithConnection(
      *pool_, [&](Connection& c) -> Result<std::optional<ToolSecretRecord>> {
        static const std::string sql = std::string("SELECT ") + kToolSecretColumns +
                                       " FROM tool_secrets WHERE org_id = ? AND name = ?";
        return c.Prepare(sql).Bind(org_id, name).One(ReadToolSecret);
      });
}

Result<bool> SqliteStore::DeleteToolSecret(const std::string& org_id, const std::string& name) {
  return sqlite::WithConnection(*pool_, [&](Connection& c) -> Result<bool> {
    c.Prepare("DELETE FROM tool_secrets WHERE org_id = ? AND name = ?").Bind(org_id, name).Run();
    return c.Changes() > 0;
  });
}

Result<std::vector<ToolSecretRecord>> SqliteStore::ListToolSecrets(const std::string& org_id) {
  return sqlite::WithConnection(
      *pool_, [&](Connection& c) -> Result<std::vector<ToolSecretRecord>> {
        // The sealed values stay in the store: an empty blob stands for each.
        return c
            .Prepare(
                "SELECT org_id, name, X'', updated_at_ms FROM tool_secrets WHERE org_id = ? ORDER "
                "BY name")
            .Bind(org_id)
            .All(ReadToolSecret);
      });
}

}  // namespace agentgate
