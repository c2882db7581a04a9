// The operator's read-only lists: what the console shows and scripts can page through.
#include "app/admin_service.hpp"

namespace agentgate {

namespace asio = boost::asio;

asio::awaitable<Result<std::vector<OrgRecord>>> AdminService::ListOrgs(std::string after_id,
                                                                       int limit) {
  co_return co_await store_.Run([&](Store& s) { return s.ListOrgs(after_id, limit); });
}

asio::awaitable<Result<AdminService::OrgDetail>> AdminService::GetOrg(std::string org_id) {
  AG_CO_TRY(auto org, co_await RequireOrg(org_id));
  AG_CO_TRY(auto environments,
            co_await store_.Run([&](Store& s) { return s.ListEnvironments(org_id); }));
  co_return OrgDetail{std::move(org), std::move(environments)};
}

asio::awaitable<Result<std::vector<TokenRecord>>> AdminService::ListTokens(std::string org_id,
                                                                           int limit) {
  if (auto org = co_await RequireOrg(org_id); !org) co_return org.error();
  co_return co_await store_.Run([&](Store& s) { return s.ListTokens(org_id, limit); });
}

}  // namespace agentgate
