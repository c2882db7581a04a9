// PostgresStore: opening it, organizations, environments, API tokens and their grants.
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
}  // namespace agentgate
