// What an operator browses (the console and the admin API's GET lists).
#include "adapters/store_common/list_column.hpp"
#include "adapters/store_postgres/postgres_store.hpp"

namespace agentgate {

using pg::Connection;
using pg::P;

Result<std::vector<OrgRecord>> PostgresStore::ListOrgs(const std::string& after_id, int limit) {
  return pg::WithConnection(*pool_, [&](Connection& c) -> Result<std::vector<OrgRecord>> {
    auto r = c.Exec(
        "SELECT id, name, monthly_spend_limit_usd, created_at_ms FROM orgs WHERE id > $1 "
        "ORDER BY id LIMIT $2",
        {P(after_id), P(std::int64_t{limit})});
    std::vector<OrgRecord> out;
    for (int i = 0; i < r.size(); ++i) {
      OrgRecord& org =
          out.emplace_back(OrgRecord{r.Text(i, 0), r.Text(i, 1), std::nullopt, r.Int(i, 3)});
      if (!r.IsNull(i, 2)) org.monthly_spend_limit_usd = r.Double(i, 2);
    }
    return out;
  });
}

Result<std::vector<std::string>> PostgresStore::ListEnvironments(const std::string& org_id) {
  return pg::WithConnection(*pool_, [&](Connection& c) -> Result<std::vector<std::string>> {
    auto r = c.Exec("SELECT name FROM environments WHERE org_id = $1 ORDER BY name LIMIT $2",
                    {P(org_id), P(std::int64_t{kMaxListedEnvironments})});
    std::vector<std::string> out;
    for (int i = 0; i < r.size(); ++i) out.push_back(r.Text(i, 0));
    return out;
  });
}

Result<std::vector<TokenRecord>> PostgresStore::ListTokens(const std::string& org_id, int limit) {
  return pg::WithConnection(*pool_, [&](Connection& c) -> Result<std::vector<TokenRecord>> {
    auto r = c.Exec(
        "SELECT id, name, environments, created_at_ms, revoked FROM api_tokens WHERE org_id = $1 "
        "ORDER BY created_at_ms DESC, id DESC LIMIT $2",
        {P(org_id), P(std::int64_t{limit})});
    std::vector<TokenRecord> out;
    for (int i = 0; i < r.size(); ++i) {
      out.push_back(TokenRecord{r.Text(i, 0), org_id, r.Text(i, 1), "", SplitList(r.Text(i, 2)),
                                r.Int(i, 3), r.Text(i, 4) == "t"});
    }
    return out;
  });
}

}  // namespace agentgate
