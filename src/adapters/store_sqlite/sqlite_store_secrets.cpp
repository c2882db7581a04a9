// SqliteStore: sealed secrets: CRM credentials (and their refresh claim) and tool secrets.
#include "adapters/store_common/list_column.hpp"
#include "adapters/store_common/row_readers.hpp"
#include "adapters/store_sqlite/sqlite_store.hpp"

namespace agentgate {
namespace {

using sqlite::AsBlob;
using sqlite::Connection;

}  // namespace
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
