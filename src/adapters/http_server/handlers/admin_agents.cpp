// /admin/v1/orgs/{org}/agents: creation, versions, deployments, instances; and conversations.
#include "adapters/http_server/handlers/admin_common.hpp"
#include "domain/json_fields.hpp"

#include <boost/json/object.hpp>
#include <boost/json/parse.hpp>

namespace agentgate::http {

namespace asio = boost::asio;
namespace json = boost::json;

void AddAdminAgentRoutes(Router& router, RouteDeps& deps) {
  router.Add("POST", "/admin/v1/orgs/{org}/agents",
             AdminHandler(deps, [&deps](Request& r) -> asio::awaitable<Result<Response>> {
               AG_CO_TRY(auto body, ParseJsonBody(r));
               AG_CO_TRY(auto cmd, ParseCreateAgent(body));
               AG_CO_TRY(auto id, co_await deps.admin.CreateAgent(r.Param("org"), std::move(cmd)));
               co_return JsonResponse(201, json::object{{"id", id}, {"version", 1}});
             }));

  router.Add(
      "POST", "/admin/v1/orgs/{org}/agents/{agent}/versions",
      AdminHandler(deps, [&deps](Request& r) -> asio::awaitable<Result<Response>> {
        AG_CO_TRY(auto body, ParseJsonBody(r));
        AG_CO_TRY(auto cmd, ParseAddVersion(body));
        AG_CO_TRY(int version, co_await deps.admin.AddAgentVersion(r.Param("org"), r.Param("agent"),
                                                                   std::move(cmd)));
        co_return JsonResponse(201, json::object{{"id", r.Param("agent")}, {"version", version}});
      }));

  router.Add("PUT", "/admin/v1/orgs/{org}/agents/{agent}/deployments/{env}",
             AdminHandler(deps, [&deps](Request& r) -> asio::awaitable<Result<Response>> {
               AG_CO_TRY(auto body, ParseJsonBody(r));
               AG_CO_TRY(auto cmd, ParseSetDeployment(body));
               AG_CO_TRYV(co_await deps.admin.SetDeployment(r.Param("org"), r.Param("agent"),
                                                            r.Param("env"), cmd));
               co_return JsonResponse(200, json::object{{"agent_id", r.Param("agent")},
                                                        {"env", r.Param("env")},
                                                        {"version", cmd.version}});
             }));

  // An agent's A2A card read anonymously in an environment (docs/a2a.md).
  const auto discoverable_body = [](const Request& r, bool discoverable) {
    return JsonResponse(200, json::object{{"agent_id", r.Param("agent")},
                                          {"env", r.Param("env")},
                                          {"discoverable", discoverable}});
  };
  router.Add("PUT", "/admin/v1/orgs/{org}/environments/{env}/agents/{agent}/a2a",
             AdminHandler(
                 deps, [&deps, discoverable_body](Request& r) -> asio::awaitable<Result<Response>> {
                   AG_CO_TRY(auto body, ParseJsonBody(r));
                   AG_CO_TRY(const json::object* o, json_fields::AsObject(body, ""));
                   AG_CO_TRYV(json_fields::RejectUnknownKeys(*o, "", {"discoverable"}));
                   AG_CO_TRY(const auto discoverable,
                             json_fields::OptionalBool(*o, "discoverable", ""));
                   if (!discoverable) co_return InvalidField("discoverable", "must be a boolean");
                   AG_CO_TRYV(co_await deps.admin.SetA2aDiscoverable(
                       r.Param("org"), r.Param("agent"), r.Param("env"), *discoverable));
                   co_return discoverable_body(r, *discoverable);
                 }));
  router.Add("GET", "/admin/v1/orgs/{org}/environments/{env}/agents/{agent}/a2a",
             AdminHandler(
                 deps, [&deps, discoverable_body](Request& r) -> asio::awaitable<Result<Response>> {
                   AG_CO_TRY(const bool discoverable,
                             co_await deps.admin.A2aDiscoverable(r.Param("org"), r.Param("agent"),
                                                                 r.Param("env")));
                   co_return discoverable_body(r, discoverable);
                 }));

  router.Add("POST", "/admin/v1/orgs/{org}/agents/{agent}/instances",
             AdminHandler(deps, [&deps](Request& r) -> asio::awaitable<Result<Response>> {
               AG_CO_TRY(auto body, ParseJsonBody(r));
               AG_CO_TRY(auto cmd, ParseCreateInstance(body));
               json::object out{{"agent_id", r.Param("agent")},
                                {"instance_id", cmd.instance_id},
                                {"instructions", cmd.instructions}};
               AG_CO_TRYV(co_await deps.admin.CreateInstance(r.Param("org"), r.Param("agent"),
                                                             std::move(cmd)));
               co_return JsonResponse(201, out);
             }));

  router.Add("GET", "/admin/v1/orgs/{org}/conversations/{id}",
             AdminHandler(deps, [&deps](Request& r) -> asio::awaitable<Result<Response>> {
               AG_CO_TRY(auto t,
                         co_await deps.admin.GetConversation(r.Param("org"), r.Param("id")));
               json::array messages;
               for (const auto& m : t.messages) {
                 messages.push_back(json::object{{"seq", m.seq},
                                                 {"role", m.role},
                                                 {"content", m.content},
                                                 {"created_at", IsoTime(m.created_at_ms)}});
               }
               json::array turns;
               for (const auto& turn : t.turns) {
                 turns.push_back(TurnJson(turn));
               }
               json::object out{{"id", t.conversation.id},
                                {"agent_id", t.conversation.agent_id},
                                {"env", t.conversation.env},
                                {"created_at", IsoTime(t.conversation.created_at_ms)},
                                {"messages", std::move(messages)},
                                {"turns", std::move(turns)}};
               out["instance_id"] = t.conversation.instance_id.empty()
                                        ? json::value(nullptr)
                                        : json::value(t.conversation.instance_id);
               co_return JsonResponse(200, out);
             }));

  router.Add("GET", "/admin/v1/orgs/{org}/turns/{id}",
             AdminHandler(deps, [&deps](Request& r) -> asio::awaitable<Result<Response>> {
               AG_CO_TRY(auto turn, co_await deps.admin.GetTurn(r.Param("org"), r.Param("id")));
               co_return JsonResponse(200, TurnJson(turn));
             }));
}

}  // namespace agentgate::http
