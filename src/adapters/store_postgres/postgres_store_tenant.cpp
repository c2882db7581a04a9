#include "adapters/store_common/list_column.hpp"
#include "adapters/store_common/row_readers.hpp"
#include "adapters/store_postgres/postgres_store.hpp"

#include <future>
#include <vector>

namespace agentgate {
namespace {

using pg::Connection;
using pg::P;

// Side by side: each connection costs round trips and an authentication (SCRAM's hashing takes
// milliseconds on each end), so ten opened in turn held a server's start for 0.15 s on loopback,
// and longer across a network. A failure is the first connection's, rethrown.
std::unique_ptr<pg::Pool> OpenPool(const std::string& url, std::size_t connections) {
  std::vector<std::future<std::unique_ptr<Connection>>> opening;
  for (std::size_t i = 0; i < connections; ++i)
    opening.push_back(
        std::async(std::launch::async, [&url] { return std::make_unique<Connection>(url); }));
  std::vector<std::unique_ptr<Connection>> opened;
  for (auto& connection : opening) opened.push_back(connection.get());
  return std::make_unique<pg::Pool>(std::move(opened));
}

}  // namespace

Result<std::unique_ptr<PostgresStore>> PostgresStore::Open(const std::string& url,
                                                           std::size_t connections) {
  try {
    auto pool = OpenPool(url, connections);
    {
      auto lease = pool->Acquire();
      MigratePostgres(*lease);
    }
    return std::unique_ptr<PostgresStore>(new PostgresStore(std::move(pool)));
  } catch (const std::exception& e) {
    return MakeError(ErrorCode::kUnavailable,
                     std::string("cannot open the PostgreSQL store: ") + e.what());
  }
}

Result<void> PostgresStore::Ping() {
  return pg::WithConnection(*pool_, [](Connection& c) -> Result<void> {
    c.Exec("SELECT 1");
    return {};
  });
}

Result<void> PostgresStore::CreateOrg(const OrgRecord& org) {
  return pg::WithConnection(*pool_, [&](Connection& c) -> Result<void> {
    c.Exec(
        "INSERT INTO orgs(id, name, monthly_spend_limit_usd, created_at_ms) VALUES ($1, $2, $3, "
        "$4)",
        {P(org.id), P(org.name), P(org.monthly_spend_limit_usd), P(org.created_at_ms)});
    return {};
  });
}

Result<std::optional<OrgRecord>> PostgresStore::GetOrg(const std::string& org_id) {
  return pg::WithConnection(*pool_, [&](Connection& c) -> Result<std::optional<OrgRecord>> {
    static const std::string sql =
        std::string("SELECT ") + kOrgColumns + " FROM orgs WHERE id = $1";
    return c.Exec(sql, {P(org_id)}).One(ReadOrg);
  });
}

Result<bool> PostgresStore::SetOrgSpendLimit(const std::string& org_id,
                                             std::optional<double> limit_usd) {
  return pg::WithConnection(*pool_, [&](Connection& c) -> Result<bool> {
    return c.Exec("UPDATE orgs SET monthly_spend_limit_usd = $1 WHERE id = $2",
                  {P(limit_usd), P(org_id)})
               .Affected() > 0;
  });
}

Result<std::int64_t> PostgresStore::CountOrgs() {
  return pg::WithConnection(*pool_, [](Connection& c) -> Result<std::int64_t> {
    return c.Exec("SELECT COUNT(*) FROM orgs").Int(0, 0);
  });
}

Result<void> PostgresStore::CreateEnvironment(const std::string& org_id, const std::string& env) {
  return pg::WithConnection(*pool_, [&](Connection& c) -> Result<void> {
    c.Exec("INSERT INTO environments(org_id, name) VALUES ($1, $2)", {P(org_id), P(env)});
    return {};
  });
}

Result<bool> PostgresStore::HasEnvironment(const std::string& org_id, const std::string& env) {
  return pg::WithConnection(*pool_, [&](Connection& c) -> Result<bool> {
    return !c.Exec("SELECT 1 FROM environments WHERE org_id = $1 AND name = $2",
                   {P(org_id), P(env)})
                .empty();
  });
}

Result<void> PostgresStore::CreateToken(const TokenRecord& t) {
  return pg::WithConnection(*pool_, [&](Connection& c) -> Result<void> {
    c.Exec(
        "INSERT INTO api_tokens(id, org_id, name, secret_hash, environments, created_at_ms, "
        "revoked) "
        "VALUES ($1, $2, $3, $4, $5, $6, $7)",
        {P(t.id), P(t.org_id), P(t.name), pg::Bytes(t.secret_hash), P(JoinList(t.environments)),
         P(t.created_at_ms), P(std::string(t.revoked ? "true" : "false"))});
    return {};
  });
}

Result<std::optional<TokenRecord>> PostgresStore::GetToken(const std::string& token_id) {
  return pg::WithConnection(*pool_, [&](Connection& c) -> Result<std::optional<TokenRecord>> {
    static const std::string sql =
        std::string("SELECT ") + kTokenColumns + " FROM api_tokens WHERE id = $1";
    return c.Exec(sql, {P(token_id)}).One(ReadToken);
  });
}

Result<bool> PostgresStore::RevokeToken(const std::string& org_id, const std::string& token_id) {
  return pg::WithConnection(*pool_, [&](Connection& c) -> Result<bool> {
    return c.Exec("UPDATE api_tokens SET revoked = TRUE WHERE id = $1 AND org_id = $2",
                  {P(token_id), P(org_id)})
               .Affected() > 0;
  });
}

Result<void> PostgresStore::CreateOAuthClient(const OAuthClientRecord& o) {
  return pg::WithConnection(*pool_, [&](Connection& c) -> Result<void> {
    c.Exec(
        "INSERT INTO oauth_clients(id, org_id, env, token_id, name, secret_hash, created_at_ms) "
        "VALUES ($1, $2, $3, $4, $5, $6, $7)",
        {P(o.id), P(o.org_id), P(o.env), P(o.token_id), P(o.name), pg::Bytes(o.secret_hash),
         P(o.created_at_ms)});
    return {};
  });
}

Result<std::optional<OAuthClientRecord>> PostgresStore::GetOAuthClient(
    const std::string& client_id) {
  return pg::WithConnection(*pool_, [&](Connection& c) -> Result<std::optional<OAuthClientRecord>> {
    static const std::string sql =
        std::string("SELECT ") + kOAuthClientColumns + " FROM oauth_clients WHERE id = $1";
    return c.Exec(sql, {P(client_id)}).One(ReadOAuthClient);
  });
}

Result<std::vector<OAuthClientRecord>> PostgresStore::ListOAuthClients(const std::string& org_id,
                                                                       const std::string& env,
                                                                       int limit) {
  return pg::WithConnection(*pool_, [&](Connection& c) -> Result<std::vector<OAuthClientRecord>> {
    // kOAuthClientColumns with an empty hash: secret hashes stay in the store.
    return c
        .Exec(
            "SELECT id, org_id, env, token_id, name, ''::bytea, created_at_ms FROM oauth_clients "
            "WHERE org_id = $1 AND env = $2 ORDER BY created_at_ms DESC, id DESC LIMIT $3",
            {P(org_id), P(env), P(limit)})
        .All(ReadOAuthClient);
  });
}

Result<bool> PostgresStore::DeleteOAuthClient(const std::string& org_id, const std::string& env,
                                              const std::string& client_id) {
  return pg::WithConnection(*pool_, [&](Connection& c) -> Result<bool> {
    return c.Exec("DELETE FROM oauth_clients WHERE id = $1 AND org_id = $2 AND env = $3",
                  {P(client_id), P(org_id), P(env)})
               .Affected() > 0;
  });
}

Result<std::vector<SigningKeyRecord>> PostgresStore::ListSigningKeys() {
  return pg::WithConnection(*pool_, [&](Connection& c) -> Result<std::vector<SigningKeyRecord>> {
    static const std::string sql = std::string("SELECT ") + kSigningKeyColumns +
                                   " FROM oauth_signing_keys ORDER BY created_at_ms DESC, kid DESC";
    return c.Exec(sql, {}).All(ReadSigningKey);
  });
}

Result<bool> PostgresStore::AddSigningKey(const SigningKeyRecord& key, bool only_if_none) {
  return pg::WithConnection(*pool_, [&](Connection& c) -> Result<bool> {
    // One lock for every server's additions: two first uses cannot both add a key.
    pg::Transaction tx(c, "oauth_signing_keys");
    if (only_if_none &&
        !c.Exec("SELECT 1 FROM oauth_signing_keys WHERE retired_at_ms = 0 LIMIT 1", {}).empty()) {
      return false;
    }
    c.Exec("UPDATE oauth_signing_keys SET retired_at_ms = $1 WHERE retired_at_ms = 0",
           {P(key.created_at_ms)});
    c.Exec(
        "INSERT INTO oauth_signing_keys(kid, sealed_private, public_point, created_at_ms, "
        "retired_at_ms) VALUES ($1, $2, $3, $4, 0)",
        {P(key.kid), pg::Bytes(key.sealed_private), pg::Bytes(key.public_point),
         P(key.created_at_ms)});
    tx.Commit();
    return true;
  });
}

Result<std::int64_t> PostgresStore::PurgeSigningKeys(std::int64_t retired_before_ms) {
  return pg::WithConnection(*pool_, [&](Connection& c) -> Result<std::int64_t> {
    return static_cast<std::int64_t>(
        c.Exec("DELETE FROM oauth_signing_keys WHERE retired_at_ms > 0 AND retired_at_ms < $1",
               {P(retired_before_ms)})
            .Affected());
  });
}

Result<bool> PostgresStore::DeleteSigningKey(const std::string& kid) {
  return pg::WithConnection(*pool_, [&](Connection& c) -> Result<bool> {
    return c.Exec("DELETE FROM oauth_signing_keys WHERE kid = $1", {P(kid)}).Affected() == 1;
  });
}

Result<void> PostgresStore::PutGrant(const std::string& org_id, const std::string& token_id,
                                     const std::string& agent_id,
                                     const std::vector<std::string>& permissions) {
  return pg::WithConnection(*pool_, [&](Connection& c) -> Result<void> {
    if (permissions.empty()) {
      c.Exec("DELETE FROM grants WHERE token_id = $1 AND agent_id = $2",
             {P(token_id), P(agent_id)});
      return {};
    }
    c.Exec(
        "INSERT INTO grants(org_id, token_id, agent_id, permissions) VALUES ($1, $2, $3, $4) "
        "ON CONFLICT (token_id, agent_id) DO UPDATE SET permissions = excluded.permissions",
        {P(org_id), P(token_id), P(agent_id), P(JoinList(permissions))});
    return {};
  });
}

Result<std::vector<std::string>> PostgresStore::GetGrant(const std::string& token_id,
                                                         const std::string& agent_id) {
  return pg::WithConnection(*pool_, [&](Connection& c) -> Result<std::vector<std::string>> {
    auto r = c.Exec("SELECT permissions FROM grants WHERE token_id = $1 AND agent_id = $2",
                    {P(token_id), P(agent_id)});
    if (r.empty()) return std::vector<std::string>{};
    return SplitList(r.Text(0, 0));
  });
}

Result<void> PostgresStore::PutEnvironmentGrant(const std::string& org_id, const std::string& env,
                                                const std::string& token_id,
                                                const std::vector<std::string>& permissions) {
  return pg::WithConnection(*pool_, [&](Connection& c) -> Result<void> {
    if (permissions.empty()) {
      c.Exec("DELETE FROM environment_grants WHERE token_id = $1 AND env = $2",
             {P(token_id), P(env)});
      return {};
    }
    c.Exec(
        "INSERT INTO environment_grants(org_id, env, token_id, permissions) VALUES ($1, $2, $3, "
        "$4) ON CONFLICT (token_id, env) DO UPDATE SET permissions = excluded.permissions",
        {P(org_id), P(env), P(token_id), P(JoinList(permissions))});
    return {};
  });
}

Result<std::vector<std::string>> PostgresStore::GetEnvironmentGrant(const std::string& token_id,
                                                                    const std::string& env) {
  return pg::WithConnection(*pool_, [&](Connection& c) -> Result<std::vector<std::string>> {
    auto r = c.Exec("SELECT permissions FROM environment_grants WHERE token_id = $1 AND env = $2",
                    {P(token_id), P(env)});
    if (r.empty()) return std::vector<std::string>{};
    return SplitList(r.Text(0, 0));
  });
}

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

Result<std::int64_t> PostgresStore::PutCrmCredential(const CrmCredentialRecord& cred) {
  return pg::WithConnection(*pool_, [&](Connection& c) -> Result<std::int64_t> {
    auto r = c.Exec(
        "INSERT INTO crm_credentials(org_id, env, sealed, updated_at_ms, set_at_ms) "
        "VALUES ($1, $2, $3, $4, $4) "
        "ON CONFLICT (org_id, env) DO UPDATE SET sealed = excluded.sealed, updated_at_ms = "
        "excluded.updated_at_ms, set_at_ms = excluded.set_at_ms, last_refresh_at_ms = NULL, "
        "last_refresh_error = NULL, version = crm_credentials.version + 1 RETURNING version",
        {P(cred.org_id), P(cred.env), pg::Bytes(cred.sealed), P(cred.updated_at_ms)});
    return r.Int(0, 0);
  });
}

Result<std::optional<std::int64_t>> PostgresStore::SaveRefreshedCrmCredential(
    const CrmCredentialRecord& cred, std::int64_t expected_version) {
  return pg::WithConnection(*pool_, [&](Connection& c) -> Result<std::optional<std::int64_t>> {
    auto r = c.Exec(
        "UPDATE crm_credentials SET sealed = $1, updated_at_ms = $2, version = version + 1 "
        "WHERE org_id = $3 AND env = $4 AND version = $5 RETURNING version",
        {pg::Bytes(cred.sealed), P(cred.updated_at_ms), P(cred.org_id), P(cred.env),
         P(expected_version)});
    if (r.empty()) return std::optional<std::int64_t>{};
    return std::optional<std::int64_t>(r.Int(0, 0));
  });
}

Result<std::optional<std::int64_t>> PostgresStore::GetCrmCredentialVersion(
    const std::string& org_id, const std::string& env) {
  return pg::WithConnection(*pool_, [&](Connection& c) -> Result<std::optional<std::int64_t>> {
    auto r = c.Exec("SELECT version FROM crm_credentials WHERE org_id = $1 AND env = $2",
                    {P(org_id), P(env)});
    if (r.empty()) return std::optional<std::int64_t>{};
    return std::optional<std::int64_t>(r.Int(0, 0));
  });
}

Result<std::optional<CrmCredentialRecord>> PostgresStore::GetCrmCredential(
    const std::string& org_id, const std::string& env) {
  return pg::WithConnection(
      *pool_, [&](Connection& c) -> Result<std::optional<CrmCredentialRecord>> {
        static const std::string sql = std::string("SELECT ") + kCrmCredentialColumns +
                                       " FROM crm_credentials WHERE org_id = $1 AND env = $2";
        return c.Exec(sql, {P(org_id), P(env)}).One(ReadCrmCredential);
      });
}

Result<bool> PostgresStore::HasAnySealedSecret() {
  return pg::WithConnection(*pool_, [](Connection& c) -> Result<bool> {
    return !c.Exec("SELECT 1 FROM crm_credentials UNION ALL SELECT 1 FROM tool_secrets LIMIT 1")
                .empty();
  });
}

Result<void> PostgresStore::PutToolSecret(const ToolSecretRecord& secret) {
  return pg::WithConnection(*pool_, [&](Connection& c) -> Result<void> {
    c.Exec(
        "INSERT INTO tool_secrets(org_id, name, sealed, updated_at_ms) VALUES ($1, $2, $3, $4) "
        "ON CONFLICT (org_id, name) DO UPDATE SET sealed = excluded.sealed, "
        "updated_at_ms = excluded.updated_at_ms",
        {P(secret.org_id), P(secret.name), pg::Bytes(secret.sealed), P(secret.updated_at_ms)});
    return {};
  });
}

Result<std::optional<ToolSecretRecord>> PostgresStore::GetToolSecret(const std::string& org_id,
                                                                     const std::string& name) {
  return pg::WithConnection(*pool_, [&](Connection& c) -> Result<std::optional<ToolSecretRecord>> {
    static const std::string sql = std::string("SELECT ") + kToolSecretColumns +
                                   " FROM tool_secrets WHERE org_id = $1 AND name = $2";
    return c.Exec(sql, {P(org_id), P(name)}).One(ReadToolSecret);
  });
}

Result<bool> PostgresStore::DeleteToolSecret(const std::string& org_id, const std::string& name) {
  return pg::WithConnection(*pool_, [&](Connection& c) -> Result<bool> {
    return !c.Exec("DELETE FROM tool_secrets WHERE org_id = $1 AND name = $2 RETURNING 1",
                   {P(org_id), P(name)})
                .empty();
  });
}

Result<std::vector<ToolSecretRecord>> PostgresStore::ListToolSecrets(const std::string& org_id) {
  return pg::WithConnection(*pool_, [&](Connection& c) -> Result<std::vector<ToolSecretRecord>> {
    // The sealed values stay in the store: an empty bytea stands for each.
    return c
        .Exec(
            "SELECT org_id, name, ''::bytea, updated_at_ms FROM tool_secrets WHERE org_id = $1 "
            "ORDER BY name",
            {P(org_id)})
        .All(ReadToolSecret);
  });
}

Result<bool> PostgresStore::ClaimCrmRefresh(const std::string& org_id, const std::string& env,
                                            const std::string& holder, std::int64_t now_ms,
                                            std::int64_t ttl_ms) {
  return pg::WithConnection(*pool_, [&](Connection& c) -> Result<bool> {
    return c.Exec(
                "INSERT INTO crm_refresh_claims(org_id, env, holder, expires_at_ms) VALUES ($1, "
                "$2, $3, $4) "
                "ON CONFLICT (org_id, env) DO UPDATE SET holder = excluded.holder, expires_at_ms = "
                "excluded.expires_at_ms "
                "WHERE crm_refresh_claims.holder = excluded.holder OR "
                "crm_refresh_claims.expires_at_ms <= $5",
                {P(org_id), P(env), P(holder), P(now_ms + ttl_ms), P(now_ms)})
               .Affected() > 0;
  });
}

Result<void> PostgresStore::ReleaseCrmRefresh(const std::string& org_id, const std::string& env,
                                              const std::string& holder) {
  return pg::WithConnection(*pool_, [&](Connection& c) -> Result<void> {
    c.Exec("DELETE FROM crm_refresh_claims WHERE org_id = $1 AND env = $2 AND holder = $3",
           {P(org_id), P(env), P(holder)});
    return {};
  });
}

}  // namespace agentgate
