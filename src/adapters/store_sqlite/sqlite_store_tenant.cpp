// SqliteStore: opening it, organizations, environments, API tokens and their grants.
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
}  // namespace agentgate
