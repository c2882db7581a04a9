// POST /api/agents/{agent_id}/invoke: authentication, visibility and the chat grant. The turn
// itself arrives with the Daemon; until then an authorised call is answered 501.
#include "adapters/http_server/handlers/route_deps.hpp"
#include "adapters/http_server/responses.hpp"
#include "app/authenticate.hpp"

namespace agentgate::http {

namespace asio = boost::asio;

CallerHeaders CallerHeadersOf(const Request& r) {
  auto get = [&](std::string_view name) -> std::optional<std::string> {
    auto v = r.Header(name);
    return v ? std::optional<std::string>(std::string(*v)) : std::nullopt;
  };
  return CallerHeaders{get("fl-api-org"), get("fl-api-token"), get("fl-api-env")};
}

void AddInvokeRoutes(Router& router, RouteDeps& deps) {
  router.Add(
      "POST", "/api/agents/{agent_id}/invoke", [&deps](Request& r) -> asio::awaitable<Response> {
        auto caller = co_await Authenticate(deps.store, CallerHeadersOf(r));
        if (!caller) co_return ErrorResponse(caller.error());
        const std::string agent_id = r.Param("agent_id");
        const Caller c = *caller;
        auto deployed = co_await deps.store.Run(
            [&](Store& s) { return s.GetDeployment(c.org_id, agent_id, c.env); });
        if (!deployed) co_return ErrorResponse(deployed.error());
        if (!*deployed) {
          co_return ErrorResponse(
              Error{ErrorCode::kAgentNotFound,
                    "agent '" + agent_id + "' is not deployed in environment '" + c.env + "'"});
        }
        if (auto ok = co_await Authorize(deps.store, c, agent_id, "chat"); !ok)
          co_return ErrorResponse(ok.error());
        co_return ErrorResponse(
            Error{ErrorCode::kNotImplemented, "agent turns are not available in this build yet"});
      });
}

}  // namespace agentgate::http
