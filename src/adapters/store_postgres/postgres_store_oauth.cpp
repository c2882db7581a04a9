// PostgresStore: the built-in authorization server's OAuth clients and signing keys.
#include "adapters/store_common/list_column.hpp"
#include "adapters/store_common/row_readers.hpp"
#include "adapters/store_postgres/postgres_store.hpp"

namespace agentgate {
namespace {

using pg::Connection;
using pg::P;

}  // namespace
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

}  // namespace agentgate
