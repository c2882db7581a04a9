// The runs routes (docs/runs.md): read a run, cancel it, follow its events as Server-Sent Events.
#include "adapters/http_server/handlers/invoke_common.hpp"
#include "adapters/http_server/handlers/run_stream.hpp"
#include "adapters/http_server/responses.hpp"
#include "app/runs/run_body.hpp"
#include "domain/runs/paused_turn.hpp"
#include "domain/runs/run_events.hpp"

#include <boost/asio/this_coro.hpp>

namespace agentgate::http {

namespace asio = boost::asio;

namespace {

Response RunResponse(const Result<RunRecord>& run) {
  return run ? JsonResponse(200, RunBody(*run)) : ErrorResponse(run.error());
}

// Where a follower resumes: the Last-Event-ID header, else ?last_event_id= (a browser's
// EventSource cannot set headers on its first request); 0 is the start.
Result<std::int64_t> ResumeFrom(const Request& r) {
  if (auto header = r.Header("last-event-id")) return ParseLastEventId(*header);
  if (auto query = r.QueryParam("last_event_id")) {
    auto parsed = ParseLastEventId(*query);
    if (!parsed)
      return InvalidField("last_event_id",
                          "must be the number of an event of the run "
                          "(0 or more)");
    return parsed;
  }
  return 0;
}

asio::awaitable<Response> GetRun(RouteDeps& deps, Request& r) {
  auto caller = co_await Authenticate(deps.tenants, CallerHeadersOf(r));
  if (!caller) co_return ErrorResponse(caller.error());
  co_return RunResponse(co_await deps.runs.Get(*caller, r.Param("run_id")));
}

asio::awaitable<Response> CancelRun(RouteDeps& deps, Request& r) {
  auto caller = co_await Authenticate(deps.tenants, CallerHeadersOf(r));
  if (!caller) co_return ErrorResponse(caller.error());
  co_return RunResponse(co_await deps.runs.Cancel(*caller, r.Param("run_id")));
}

// A person's decisions on a paused run's calls (docs/daemon.md, Tool approvals): the body's shape
// is checked before anything is read, the decisions against the run once it is.
asio::awaitable<Response> DecideRun(RouteDeps& deps, Request& r) {
  auto caller = co_await Authenticate(deps.tenants, CallerHeadersOf(r));
  if (!caller) co_return ErrorResponse(caller.error());
  auto body = ParseJsonBody(r);
  if (!body) co_return ErrorResponse(body.error());
  auto request = ParseApprovalRequest(*body);
  if (!request) co_return ErrorResponse(request.error());
  auto decided = co_await deps.runs.Decide(*caller, r.Param("run_id"), std::move(*request));
  if (!decided) co_return ErrorResponse(decided.error());
  co_return DecidedRunResponse(deps, *decided);
}

asio::awaitable<Response> RunEvents(RouteDeps& deps, Request& r) {
  auto caller = co_await Authenticate(deps.tenants, CallerHeadersOf(r));
  if (!caller) co_return ErrorResponse(caller.error());
  const auto after = ResumeFrom(r);
  if (!after) co_return ErrorResponse(after.error());
  const std::string run_id = r.Param("run_id");
  auto run = co_await deps.runs.Get(*caller, run_id);
  if (!run) co_return ErrorResponse(run.error());
  const auto executor = co_await asio::this_coro::executor;
  auto ticket = deps.streams.Enter(*caller, run->agent_id, run_id, executor);
  if (!ticket) co_return ErrorResponse(ticket.error());
  co_return RunEventStream(deps, run_id, *after, std::move(*ticket), r);
}

}  // namespace

void AddRunRoutes(Router& router, RouteDeps& deps) {
  router.Add("GET", "/api/runs/{run_id}", [&deps](Request& r) { return GetRun(deps, r); });
  router.Add("POST", "/api/runs/{run_id}/cancel",
             [&deps](Request& r) { return CancelRun(deps, r); });
  router.Add("GET", "/api/runs/{run_id}/events",
             [&deps](Request& r) { return RunEvents(deps, r); });
  router.Add("POST", "/api/runs/{run_id}/approvals",
             [&deps](Request& r) { return DecideRun(deps, r); });
}

}  // namespace agentgate::http
