// The org's sealed secrets, never echoed: PUT/GET /admin/v1/orgs/{org}/environments/{env}/crm
// (CRM credentials; GET says only what kind, when set and how the last refresh went), and
// /admin/v1/orgs/{org}/secrets (what tool headers name as {"secret": NAME}).
#include "adapters/http_server/handlers/admin_common.hpp"
#include "domain/json_fields.hpp"

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

  router.Add(
      "GET", "/admin/v1/orgs/{org}/environments/{env}/crm",
      AdminHandler(deps, [&deps](Request& r) -> asio::awaitable<Result<Response>> {
        AG_CO_TRY(auto crm, co_await deps.admin.GetCrmStatus(r.Param("org"), r.Param("env")));
        json::object out{{"org_id", r.Param("org")}, {"env", r.Param("env")}, {"set", false}};
        if (crm.status) {
          out["set"] = true;
          out["set_at"] = IsoTime(crm.status->set_at_ms);
          out["kind"] = crm.kind.empty() ? json::value(nullptr) : json::value(crm.kind);
          if (!crm.kind.empty()) {
            out[crm.kind == "static_session" ? "instance_url" : "login_url"] = crm.url;
          }
          json::value last = nullptr;
          if (crm.status->last_refresh_at_ms) {
            json::object refresh{{"at", IsoTime(*crm.status->last_refresh_at_ms)},
                                 {"ok", crm.status->last_refresh_error.empty()}};
            if (!crm.status->last_refresh_error.empty())
              refresh["error"] = crm.status->last_refresh_error;
            last = std::move(refresh);
          }
          out["last_refresh"] = std::move(last);
        }
        co_return JsonResponse(200, out);
      }));

  router.Add("PUT", "/admin/v1/orgs/{org}/secrets/{name}",
             AdminHandler(deps, [&deps](Request& r) -> asio::awaitable<Result<Response>> {
               AG_CO_TRY(auto body, ParseJsonBody(r));
               AG_CO_TRY(const json::object* o, json_fields::AsObject(body, "body"));
               AG_CO_TRYV(json_fields::RejectUnknownKeys(*o, "", {"value"}));
               AG_CO_TRY(auto value, json_fields::RequiredString(*o, "value", ""));
               AG_CO_TRYV(co_await deps.admin.PutToolSecret(r.Param("org"), r.Param("name"),
                                                            std::move(value)));
               co_return JsonResponse(200, json::object{{"name", r.Param("name")}, {"set", true}});
             }));

  router.Add(
      "DELETE", "/admin/v1/orgs/{org}/secrets/{name}",
      AdminHandler(deps, [&deps](Request& r) -> asio::awaitable<Result<Response>> {
        AG_CO_TRYV(co_await deps.admin.DeleteToolSecret(r.Param("org"), r.Param("name")));
        co_return JsonResponse(200, json::object{{"name", r.Param("name")}, {"deleted", true}});
      }));

  router.Add("GET", "/admin/v1/orgs/{org}/secrets",
             AdminHandler(deps, [&deps](Request& r) -> asio::awaitable<Result<Response>> {
               AG_CO_TRY(auto secrets, co_await deps.admin.ListToolSecrets(r.Param("org")));
               json::array listed;
               for (const auto& secret : secrets) {
                 listed.push_back(json::object{{"name", secret.name},
                                               {"updated_at", IsoTime(secret.updated_at_ms)}});
               }
               co_return JsonResponse(200, json::object{{"secrets", std::move(listed)}});
             }));
}

}  // namespace agentgate::http
