// What an operator browses (the console and the admin API's GET lists).
#include "adapters/store_common/list_column.hpp"
#include "adapters/store_sqlite/sqlite_store.hpp"

namespace agentgate {

using sqlite::Connection;

Result<std::vector<OrgRecord>> SqliteStore::ListOrgs(const std::string& after_id, int limit) {
  return sqlite::WithConnection(*pool_, [&](Connection& c) -> Result<std::vector<OrgRecord>> {
    auto s = c.Prepare(
        "SELECT id, name, monthly_spend_limit_usd, created_at_ms FROM orgs WHERE id > ? "
        "ORDER BY id LIMIT ?");
    s.Bind(1, after_id).Bind(2, limit);
    std::vector<OrgRecord> out;
    while (s.Step()) {
      OrgRecord& org = out.emplace_back(OrgRecord{s.Text(0), s.Text(1), std::nullopt, s.Int(3)});
      if (!s.IsNull(2)) org.monthly_spend_limit_usd = s.Double(2);
    }
    return out;
  });
}

Result<std::vector<std::string>> SqliteStore::ListEnvironments(const std::string& org_id) {
  return sqlite::WithConnection(*pool_, [&](Connection& c) -> Result<std::vector<std::string>> {
    auto s = c.Prepare("SELECT name FROM environments WHERE org_id = ? ORDER BY name LIMIT ?");
    s.Bind(1, org_id).Bind(2, kMaxListedEnvironments);
    std::vector<std::string> out;
    while (s.Step()) out.push_back(s.Text(0));
    return out;
  });
}

Result<std::vector<TokenRecord>> SqliteStore::ListTokens(const std::string& org_id, int limit) {
  return sqlite::WithConnection(*pool_, [&](Connection& c) -> Result<std::vector<TokenRecord>> {
    auto s = c.Prepare(
        "SELECT id, name, environments, created_at_ms, revoked FROM api_tokens WHERE org_id = ? "
        "ORDER BY created_at_ms DESC, id DESC LIMIT ?");
    s.Bind(1, org_id).Bind(2, limit);
    std::vector<TokenRecord> out;
    while (s.Step()) {
      out.push_back(TokenRecord{s.Text(0), org_id, s.Text(1), "", SplitList(s.Text(2)), s.Int(3),
                                s.Int(4) != 0});
    }
    return out;
  });
}

}  // namespace agentgate
