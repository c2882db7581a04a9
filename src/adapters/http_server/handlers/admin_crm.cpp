// PUT /admin/v1/orgs/{org}/environments/{env}/crm: stores sealed CRM credentials; never echoes
// secrets.
#include "adapters/http_server/handlers/admin_common.hpp"

#include <boost/json/object.hpp>

namespace agentgate::http {

namespace asio = boost::asio;
namespace json = boost::json;

void AddAdminCrmRoutes(Router& router, RouteDeps& deps) {
  router.Add("PUT", "/admin/v1/orgs/{org}/environments/{env}/crm",
             AdminHandler(deps, [&deps](Request& r) -> asio::awaitable<Result<Response>> {
               AG_CO_TRY(auto body, ParseJsonBody(r));
               AG_CO_TRY(auto creds, ParseCrmCredentials(body));
               json::object out{{"org_id", r.Param("org")},
                                {"env", r.Param("env")},
                                {"kind", creds.IsStatic() ? "static_session" : "refresh_token"}};
               if (creds.IsStatic()) {
                 out["instance_url"] = creds.instance_url;
               } else {
                 out["login_url"] = creds.login_url;
               }
               AG_CO_TRYV(co_await deps.admin.PutCrmCredentials(r.Param("org"), r.Param("env"),
                                                                std::move(creds)));
               co_return JsonResponse(200, out);
             }));
}

}  // namespace agentgate::http
