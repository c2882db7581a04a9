// /admin/v1/orgs/{org}/agents: creation, versions, deployments, instances; and conversations.
#include "adapters/http_server/handlers/admin_common.hpp"

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

  router.Add(
      "GET", "/admin/v1/orgs/{org}/conversations/{id}",
      AdminHandler(deps, [&deps](Request& r) -> asio::awaitable<Result<Response>> {
        AG_CO_TRY(auto t, co_await deps.admin.GetConversation(r.Param("org"), r.Param("id")));
        json::array messages;
        for (const auto& m : t.messages) {
          messages.push_back(json::object{{"seq", m.seq},
                                          {"role", m.role},
                                          {"content", m.content},
                                          {"created_at", IsoTime(m.created_at_ms)}});
        }
        json::array turns;
        for (const auto& turn : t.turns) {
          boost::system::error_code ec;
          auto transcript = json::parse(turn.transcript_json, ec);
          json::object item{{"id", turn.id},
                            {"version", turn.version},
                            {"started_at", IsoTime(turn.started_at_ms)},
                            {"duration_ms", turn.duration_ms},
                            {"blocked", turn.blocked},
                            {"model_calls", turn.model_calls},
                            {"input_tokens", turn.input_tokens},
                            {"output_tokens", turn.output_tokens},
                            {"cost_usd", turn.cost_usd}};
          item["terminated_reason"] =
              turn.stop_reason.empty() ? json::value(nullptr) : json::value(turn.stop_reason);
          item["transcript"] = ec ? json::value(nullptr) : std::move(transcript);
          turns.push_back(std::move(item));
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
}

}  // namespace agentgate::http
