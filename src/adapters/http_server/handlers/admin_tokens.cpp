// /admin/v1/orgs/{org}/tokens and grants.
#include "adapters/http_server/handlers/admin_common.hpp"

#include <boost/json/object.hpp>

namespace agentgate::http {

namespace asio = boost::asio;
namespace json = boost::json;

void AddAdminTokenRoutes(Router& router, RouteDeps& deps) {
  router.Add(
      "POST", "/admin/v1/orgs/{org}/tokens",
      AdminHandler(deps, [&deps](Request& r) -> asio::awaitable<Result<Response>> {
        AG_CO_TRY(auto body, ParseJsonBody(r));
        AG_CO_TRY(auto cmd, ParseCreateToken(body));
        AG_CO_TRY(auto issued, co_await deps.admin.CreateToken(r.Param("org"), std::move(cmd)));
        json::array envs;
        for (const auto& e : issued.record.environments) envs.emplace_back(e);
        json::object out{{"id", issued.record.id},
                         {"token", issued.token},
                         {"name", issued.record.name},
                         {"created_at", IsoTime(issued.record.created_at_ms)}};
        out["environments"] = issued.record.environments.empty() ? json::value(nullptr)
                                                                 : json::value(std::move(envs));
        co_return JsonResponse(201, out);
      }));

  router.Add("DELETE", "/admin/v1/orgs/{org}/tokens/{id}",
             AdminHandler(deps, [&deps](Request& r) -> asio::awaitable<Result<Response>> {
               AG_CO_TRYV(co_await deps.admin.RevokeToken(r.Param("org"), r.Param("id")));
               co_return JsonResponse(200, json::object{{"id", r.Param("id")}, {"revoked", true}});
             }));

  router.Add("PUT", "/admin/v1/orgs/{org}/grants",
             AdminHandler(deps, [&deps](Request& r) -> asio::awaitable<Result<Response>> {
               AG_CO_TRY(auto body, ParseJsonBody(r));
               AG_CO_TRY(auto cmd, ParsePutGrant(body));
               json::array perms;
               for (const auto& p : cmd.permissions) perms.emplace_back(p);
               json::object out{{"token_id", cmd.token_id},
                                {"agent_id", cmd.agent_id},
                                {"permissions", std::move(perms)}};
               AG_CO_TRYV(co_await deps.admin.PutGrant(r.Param("org"), std::move(cmd)));
               co_return JsonResponse(200, out);
             }));
}

}  // namespace agentgate::http
