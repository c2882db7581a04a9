// SqliteStore: the built-in authorization server's OAuth clients and signing keys.
#include "adapters/store_common/list_column.hpp"
#include "adapters/store_common/row_readers.hpp"
#include "adapters/store_sqlite/sqlite_store.hpp"

namespace agentgate {
namespace {

using sqlite::AsBlob;
using sqlite::Connection;

}  // namespace
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

}  // namespace agentgate
