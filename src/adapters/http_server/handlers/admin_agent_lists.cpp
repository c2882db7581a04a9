// GET /admin/v1/orgs/{org}/agents and /agents/{agent}: what exists, for the console and scripts.
#include "adapters/http_server/handlers/admin_common.hpp"

#include <boost/json/array.hpp>
#include <boost/json/object.hpp>
#include <boost/json/parse.hpp>

namespace agentgate::http {

namespace asio = boost::asio;
namespace json = boost::json;

namespace {

json::value ConfigOf(const AgentVersionRecord& v) {
  boost::system::error_code ec;
  auto config = json::parse(v.config_json, ec);
  return ec ? json::value(nullptr) : config;
}

std::string ConfigString(const json::value& config, std::string_view key) {
  if (!config.is_object()) return "";
  const auto* v = config.as_object().if_contains(key);
  return v != nullptr && v->is_string() ? std::string(v->as_string()) : "";
}

json::array DeploymentsJson(const std::vector<DeploymentRecord>& deployments) {
  json::array out;
  for (const auto& d : deployments)
    out.push_back(json::object{
        {"env", d.env}, {"version", d.version}, {"a2a_discoverable", d.a2a_discoverable}});
  return out;
}

}  // namespace

void AddAdminAgentListRoutes(Router& router, RouteDeps& deps) {
  router.Add("GET", "/admin/v1/orgs/{org}/agents",
             AdminHandler(deps, [&deps](Request& r) -> asio::awaitable<Result<Response>> {
               AG_CO_TRY(const int count, PageSize(r, 100, 1000));
               AG_CO_TRY(auto agents, co_await deps.admin.ListAgents(r.Param("org"), count));
               json::array listed;
               for (const auto& a : agents) {
                 const auto config = ConfigOf(a.latest);
                 listed.push_back(json::object{{"id", a.latest.agent_id},
                                               {"name", ConfigString(config, "name")},
                                               {"description", ConfigString(config, "description")},
                                               {"latest_version", a.latest.version},
                                               {"updated_at", IsoTime(a.latest.created_at_ms)},
                                               {"deployments", DeploymentsJson(a.deployments)}});
               }
               co_return JsonResponse(200, json::object{{"agents", std::move(listed)}});
             }));

  router.Add(
      "GET", "/admin/v1/orgs/{org}/agents/{agent}",
      AdminHandler(deps, [&deps](Request& r) -> asio::awaitable<Result<Response>> {
        AG_CO_TRY(auto detail, co_await deps.admin.GetAgent(r.Param("org"), r.Param("agent")));
        json::array versions;
        for (const auto& v : detail.versions) {
          versions.push_back(json::object{{"version", v.version},
                                          {"created_at", IsoTime(v.created_at_ms)},
                                          {"config", ConfigOf(v)}});
        }
        json::array grants;
        for (const auto& g : detail.grants) {
          json::array permissions;
          for (const auto& p : g.permissions) permissions.emplace_back(p);
          grants.push_back(
              json::object{{"token_id", g.token_id}, {"permissions", std::move(permissions)}});
        }
        json::array instances;
        for (const auto& i : detail.instances) {
          instances.push_back(
              json::object{{"instance_id", i.instance_id}, {"instructions", i.instructions}});
        }
        co_return JsonResponse(200,
                               json::object{{"id", r.Param("agent")},
                                            {"versions", std::move(versions)},
                                            {"deployments", DeploymentsJson(detail.deployments)},
                                            {"grants", std::move(grants)},
                                            {"instances", std::move(instances)}});
      }));
}

}  // namespace agentgate::http
