// PostgresStore: sealed secrets: CRM credentials (and their refresh claim) and tool secrets.
#include "adapters/store_common/list_column.hpp"
#include "adapters/store_common/row_readers.hpp"
#include "adapters/store_postgres/postgres_store.hpp"

namespace agentgate {
namespace {

using pg::Connection;
using pg::P;

}  // namespace
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
