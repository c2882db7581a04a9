// /admin/v1/orgs/{org}/tokens, their grants on agents and on environments.
#include "adapters/http_server/handlers/admin_common.hpp"

#include <boost/json/object.hpp>

namespace agentgate::http {

namespace asio = boost::asio;
namespace json = boost::json;

namespace {

json::object EnvironmentGrantJson(const std::string& token_id, const std::string& env,
                                  const std::vector<std::string>& permissions) {
  json::array perms;
  for (const auto& p : permissions) perms.emplace_back(p);
  return json::object{{"token_id", token_id}, {"env", env}, {"permissions", std::move(perms)}};
}

}  // namespace

void AddAdminTokenRoutes(Router& router, RouteDeps& deps) {
  router.Add("POST", "/admin/v1/orgs/{org}/tokens",
             AdminHandler(deps, [&deps](Request& r) -> asio::awaitable<Result<Response>> {
               AG_CO_TRY(auto body, ParseJsonBody(r));
               AG_CO_TRY(auto cmd, ParseCreateToken(body));
               AG_CO_TRY(auto issued,
                         co_await deps.admin.CreateToken(r.Param("org"), std::move(cmd)));
               json::object out = TokenJson(issued.record);
               out["token"] = issued.token;  // shown this once
               // The same token as an OpenAI SDK's API key, per environment (docs/openai.md).
               json::object keys;
               for (const auto& [env, key] : issued.api_keys) keys[env] = key;
               out["api_keys"] = std::move(keys);
               // A new token may use no environment's metadata gateway until granted
               // (PUT .../environments/{env}/grants, docs/gateway.md).
               out["metadata_grants"] = json::array();
               co_return JsonResponse(201, out);
             }));

  router.Add("GET", "/admin/v1/orgs/{org}/tokens",
             AdminHandler(deps, [&deps](Request& r) -> asio::awaitable<Result<Response>> {
               AG_CO_TRY(const int count, PageSize(r, 100, 1000));
               AG_CO_TRY(auto tokens, co_await deps.admin.ListTokens(r.Param("org"), count));
               json::array listed;
               for (const auto& t : tokens) listed.push_back(TokenJson(t));
               co_return JsonResponse(200, json::object{{"tokens", std::move(listed)}});
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

  router.Add("PUT", "/admin/v1/orgs/{org}/environments/{env}/grants",
             AdminHandler(deps, [&deps](Request& r) -> asio::awaitable<Result<Response>> {
               AG_CO_TRY(auto body, ParseJsonBody(r));
               AG_CO_TRY(auto cmd, ParsePutEnvironmentGrant(body));
               json::object out =
                   EnvironmentGrantJson(cmd.token_id, r.Param("env"), cmd.permissions);
               AG_CO_TRYV(co_await deps.admin.PutEnvironmentGrant(r.Param("org"), r.Param("env"),
                                                                  std::move(cmd)));
               co_return JsonResponse(200, out);
             }));

  router.Add("GET", "/admin/v1/orgs/{org}/environments/{env}/grants",
             AdminHandler(deps, [&deps](Request& r) -> asio::awaitable<Result<Response>> {
               AG_CO_TRY(auto grants,
                         co_await deps.admin.ListEnvironmentGrants(r.Param("org"), r.Param("env")));
               json::array listed;
               for (const auto& g : grants)
                 listed.push_back(EnvironmentGrantJson(g.token_id, g.env, g.permissions));
               co_return JsonResponse(200, json::object{{"grants", std::move(listed)}});
             }));

  router.Add("DELETE", "/admin/v1/orgs/{org}/environments/{env}/grants/{token_id}",
             AdminHandler(deps, [&deps](Request& r) -> asio::awaitable<Result<Response>> {
               PutEnvironmentGrantCommand revoke{r.Param("token_id"), {}};
               AG_CO_TRYV(co_await deps.admin.PutEnvironmentGrant(r.Param("org"), r.Param("env"),
                                                                  std::move(revoke)));
               co_return JsonResponse(
                   200, EnvironmentGrantJson(r.Param("token_id"), r.Param("env"), {}));
             }));
}

}  // namespace agentgate::http
