// An environment's runs as the operator sees them (docs/runs.md): GET /admin/v1/orgs/{org}/
// environments/{env}/runs (the latest, newest first) and POST .../runs/{id}/cancel, which needs no
// grant. Each run as GET /api/runs/{id} shows it.
#include "adapters/http_server/handlers/admin_common.hpp"
#include "adapters/http_server/handlers/run_stream.hpp"
#include "adapters/http_server/responses.hpp"
#include "app/runs/run_body.hpp"
#include "domain/runs/paused_turn.hpp"

#include <boost/json/array.hpp>
#include <boost/json/object.hpp>

namespace agentgate::http {

namespace asio = boost::asio;
namespace json = boost::json;

void AddAdminRunRoutes(Router& router, RouteDeps& deps) {
  router.Add("GET", "/admin/v1/orgs/{org}/environments/{env}/runs",
             AdminHandler(deps, [&deps](Request& r) -> asio::awaitable<Result<Response>> {
               AG_CO_TRY(const int limit, PageSize(r, 50, 500));
               AG_CO_TRY(auto runs, co_await deps.runs.List(r.Param("org"), r.Param("env"), limit));
               json::array listed;
               for (const auto& run : runs) listed.push_back(RunBody(run));
               co_return JsonResponse(200, json::object{{"runs", std::move(listed)}});
             }));

  // The operator decides a paused run's calls (the console's approve and deny), no grant needed.
  router.Add("POST", "/admin/v1/orgs/{org}/environments/{env}/runs/{id}/approvals",
             AdminHandler(deps, [&deps](Request& r) -> asio::awaitable<Result<Response>> {
               AG_CO_TRY(const auto body, ParseJsonBody(r));
               AG_CO_TRY(auto request, ParseApprovalRequest(body));
               AG_CO_TRY(auto decided,
                         co_await deps.runs.DecideAsOperator(r.Param("org"), r.Param("env"),
                                                             r.Param("id"), std::move(request)));
               co_return DecidedRunResponse(deps, decided);
             }));

  router.Add("POST", "/admin/v1/orgs/{org}/environments/{env}/runs/{id}/cancel",
             AdminHandler(deps, [&deps](Request& r) -> asio::awaitable<Result<Response>> {
               AG_CO_TRY(auto run, co_await deps.runs.CancelAsOperator(
                                       r.Param("org"), r.Param("env"), r.Param("id")));
               co_return JsonResponse(200, RunBody(run));
             }));
}

}  // namespace agentgate::http
