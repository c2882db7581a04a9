// /admin/v1/orgs, its environments and its usage report.
#include "adapters/http_server/handlers/admin_common.hpp"

#include <boost/json/array.hpp>
#include <boost/json/object.hpp>

namespace agentgate::http {

namespace asio = boost::asio;
namespace json = boost::json;

void AddAdminOrgRoutes(Router& router, RouteDeps& deps) {
  router.Add("POST", "/admin/v1/orgs",
             AdminHandler(deps, [&deps](Request& r) -> asio::awaitable<Result<Response>> {
               AG_CO_TRY(auto body, ParseJsonBody(r));
               AG_CO_TRY(auto cmd, ParseCreateOrg(body));
               AG_CO_TRY(auto org, co_await deps.admin.CreateOrg(std::move(cmd)));
               co_return JsonResponse(201, OrgJson(org));
             }));

  router.Add("GET", "/admin/v1/orgs",
             AdminHandler(deps, [&deps](Request& r) -> asio::awaitable<Result<Response>> {
               AG_CO_TRY(const int count, PageSize(r, 100, 1000));
               const std::string after = r.QueryParam("after").value_or("");
               AG_CO_TRY(auto orgs, co_await deps.admin.ListOrgs(after, count));
               json::array listed;
               for (const auto& org : orgs) listed.push_back(OrgJson(org));
               json::object out{{"orgs", std::move(listed)}};
               // A full page may have a next one: ask for it with ?after=<next_after>.
               out["next_after"] = static_cast<int>(orgs.size()) == count
                                       ? json::value(orgs.back().id)
                                       : json::value(nullptr);
               co_return JsonResponse(200, out);
             }));

  router.Add("GET", "/admin/v1/orgs/{org}",
             AdminHandler(deps, [&deps](Request& r) -> asio::awaitable<Result<Response>> {
               AG_CO_TRY(auto detail, co_await deps.admin.GetOrg(r.Param("org")));
               json::object out = OrgJson(detail.org).as_object();
               json::array envs;
               for (const auto& e : detail.environments) envs.emplace_back(e);
               out["environments"] = std::move(envs);
               co_return JsonResponse(200, out);
             }));

  router.Add("PATCH", "/admin/v1/orgs/{org}",
             AdminHandler(deps, [&deps](Request& r) -> asio::awaitable<Result<Response>> {
               AG_CO_TRY(auto body, ParseJsonBody(r));
               AG_CO_TRY(auto cmd, ParseSetOrgLimit(body));
               AG_CO_TRY(auto org, co_await deps.admin.SetOrgLimit(r.Param("org"), cmd));
               co_return JsonResponse(200, OrgJson(org));
             }));

  router.Add(
      "POST", "/admin/v1/orgs/{org}/environments",
      AdminHandler(deps, [&deps](Request& r) -> asio::awaitable<Result<Response>> {
        AG_CO_TRY(auto body, ParseJsonBody(r));
        AG_CO_TRY(auto name, ParseCreateEnvironment(body));
        AG_CO_TRYV(co_await deps.admin.CreateEnvironment(r.Param("org"), name));
        co_return JsonResponse(201, json::object{{"org_id", r.Param("org")}, {"name", name}});
      }));

  router.Add("GET", "/admin/v1/orgs/{org}/usage",
             AdminHandler(deps, [&deps](Request& r) -> asio::awaitable<Result<Response>> {
               AG_CO_TRY(auto report,
                         co_await deps.admin.GetUsage(r.Param("org"), r.QueryParam("month")));
               json::array agents;
               double total = 0;
               double reserved = 0;
               for (const auto& row : report.agents) {
                 total += row.spent_usd;
                 reserved += row.reserved_usd;
                 agents.push_back(json::object{{"agent_id", row.agent_id},
                                               {"spent_usd", row.spent_usd},
                                               {"reserved_usd", row.reserved_usd},
                                               {"input_tokens", row.input_tokens},
                                               {"output_tokens", row.output_tokens},
                                               {"model_calls", row.model_calls}});
               }
               json::object out{{"org_id", r.Param("org")},
                                {"month", report.month},
                                {"total_spent_usd", total},
                                {"total_reserved_usd", reserved},
                                {"agents", std::move(agents)}};
               out["monthly_spend_limit_usd"] =
                   report.org_limit_usd ? json::value(*report.org_limit_usd) : nullptr;
               co_return JsonResponse(200, out);
             }));
}

}  // namespace agentgate::http
