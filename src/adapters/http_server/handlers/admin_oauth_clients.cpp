// /admin/v1/orgs/{org}/environments/{env}/oauth-clients (docs/mcp.md, OAuth): the machine clients
// of the built-in authorization server, each acting as one API token; the secret shown once.
#include "adapters/http_server/handlers/admin_common.hpp"

#include <boost/json/array.hpp>
#include <boost/json/object.hpp>

namespace agentgate::http {

namespace asio = boost::asio;
namespace json = boost::json;

namespace {

json::object OAuthClientJson(const OAuthClientRecord& client) {
  return json::object{{"client_id", client.id},
                      {"name", client.name},
                      {"env", client.env},
                      {"token_id", client.token_id},
                      {"created_at", IsoTime(client.created_at_ms)}};
}

}  // namespace

void AddAdminOAuthClientRoutes(Router& router, RouteDeps& deps) {
  router.Add("POST", "/admin/v1/orgs/{org}/environments/{env}/oauth-clients",
             AdminHandler(deps, [&deps](Request& r) -> asio::awaitable<Result<Response>> {
               AG_CO_TRY(auto body, ParseJsonBody(r));
               AG_CO_TRY(auto cmd, ParseCreateOAuthClient(body));
               AG_CO_TRY(auto issued, co_await deps.admin.CreateOAuthClient(
                                          r.Param("org"), r.Param("env"), std::move(cmd)));
               json::object out = OAuthClientJson(issued.record);
               out["client_secret"] = issued.secret;  // shown this once
               co_return JsonResponse(201, out);
             }));

  router.Add("GET", "/admin/v1/orgs/{org}/environments/{env}/oauth-clients",
             AdminHandler(deps, [&deps](Request& r) -> asio::awaitable<Result<Response>> {
               AG_CO_TRY(auto clients,
                         co_await deps.admin.ListOAuthClients(r.Param("org"), r.Param("env")));
               json::array listed;
               for (const auto& c : clients) listed.push_back(OAuthClientJson(c));
               co_return JsonResponse(200, json::object{{"oauth_clients", std::move(listed)}});
             }));

  router.Add("DELETE", "/admin/v1/orgs/{org}/environments/{env}/oauth-clients/{client_id}",
             AdminHandler(deps, [&deps](Request& r) -> asio::awaitable<Result<Response>> {
               AG_CO_TRYV(co_await deps.admin.RevokeOAuthClient(r.Param("org"), r.Param("env"),
                                                                r.Param("client_id")));
               co_return JsonResponse(
                   200, json::object{{"client_id", r.Param("client_id")}, {"revoked", true}});
             }));
}

}  // namespace agentgate::http
