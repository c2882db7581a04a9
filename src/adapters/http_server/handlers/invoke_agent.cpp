// POST /api/agents/{agent_id}/invoke: the Daemon over HTTP. Decode, run the use case, render. A
// body with "background": true queues a run instead, and one asking for a stream (Accept:
// text/event-stream, or "stream": true) is answered with the run's events (docs/runs.md).
#include "app/turn/invoke_agent.hpp"
#include "adapters/http_server/handlers/invoke_common.hpp"
#include "adapters/http_server/handlers/streamed_call.hpp"
#include "adapters/http_server/responses.hpp"
#include "app/runs/run_body.hpp"
#include "app/turn/idempotency.hpp"
#include "app/turn/invoke_body.hpp"
#include "domain/governance/governance.hpp"
#include "domain/json_fields.hpp"
#include "domain/json_text.hpp"

#include <boost/json/object.hpp>
#include <boost/json/parse.hpp>

namespace agentgate::http {

namespace asio = boost::asio;
namespace json = boost::json;

namespace {

Result<InvokeInput> ReadInvokeCall(const Request& r) {
  AG_TRY(auto body, ParseJsonBody(r));
  RunOptions delivery;
  AG_TRY(auto request, ParseInvokeRequest(body, &delivery));
  // The body's "background" wins over the header: its answer is a JSON 202 either way.
  const auto accept = r.Header("accept");
  if (accept && accept->find("text/event-stream") != std::string_view::npos && !delivery.background)
    delivery.stream = true;
  AG_TRYV(delivery.Check());
  InvokeInput call{r.Param("agent_id"), std::move(request), std::nullopt, "", delivery};
  if (auto header = r.Header("idempotency-key")) {
    call.key = std::string(*header);
    AG_TRYV(governance::ValidateIdempotencyKey(*call.key));
    // What to do on a busy conversation is not part of the request: a retry that interrupts is the
    // same call, refused 409 while the first runs, never the first one interrupting itself.
    body.as_object().erase("if_busy");  // read already; the body is not used after this
    call.fingerprint =
        Idempotency::Fingerprint("invoke", call.agent_id, json_text::WriteCanonical(body));
  }
  return call;
}

Response RenderInvoke(const Result<InvokeResult>& result) {
  return result ? JsonTextResponse(200, InvokeBodyText(*result)) : ErrorResponse(result.error());
}

// The 202 of a queued run, first or replayed: where to read the run.
Response Accepted(const RouteDeps& deps, int status, std::string body, const std::string& run_id) {
  Response response = JsonTextResponse(status, std::move(body));
  if (!run_id.empty()) response.headers.emplace_back("Location", RunLocation(deps, run_id));
  return response;
}

// The stored answer of the call that used the key first: a run's 202 with where to read the run,
// or a turn's 200.
Response Replayed(const RouteDeps& deps, StoredResponse& replay) {
  boost::system::error_code ec;
  const auto stored = json::parse(replay.body, ec);
  const auto* run_id = replay.status == 202 && !ec && stored.is_object()
                           ? stored.get_object().if_contains("run_id")
                           : nullptr;
  Response replayed =
      Accepted(deps, replay.status, std::move(replay.body),
               run_id && run_id->is_string() ? std::string(run_id->get_string()) : "");
  replayed.headers.emplace_back("Idempotent-Replayed", "true");
  return replayed;
}

// "background": true queues the run once admitted, and answers 202 with where to read it.
// Refusals are the plain call's JSON errors; a key's replay is its stored answer.
asio::awaitable<Response> QueueRun(RouteDeps& deps, const AuthenticatedCall& ok,
                                   const SpanContext* trace) {
  // A run's key stores its 202: the call's own answer renders nothing.
  const InvokeCall call = CallOf(ok, trace);
  QueueAnswer answer = co_await deps.runs.Queue(call, ok.call.delivery.Notifies());
  if (auto* replay = std::get_if<StoredResponse>(&answer)) co_return Replayed(deps, *replay);
  const auto& run = std::get<Result<RunRecord>>(answer);
  if (!run) co_return ErrorResponse(run.error());
  co_return Accepted(deps, 202, json_text::Write(QueuedRunBody(*run)), run->id);
}

// A stream starts its run at once and answers with its events, from the first, live to its
// terminal one; a hang-up cancels the run when the call asked it to.
asio::awaitable<Response> StreamRun(RouteDeps& deps, const AuthenticatedCall& ok, Request& r) {
  StreamShape shape;
  shape.refuse = ErrorResponse;
  shape.replayed = [&deps](StoredResponse& replay) { return Replayed(deps, replay); };
  shape.notify = ok.call.delivery.Notifies();
  shape.cancel_on_hang_up = ok.call.delivery.cancel_on_disconnect;
  shape.located = true;
  co_return co_await StreamCall(deps, r, CallOf(ok, r.trace), shape);
}

asio::awaitable<Response> Invoke(RouteDeps& deps, Request& r) {
  static const InvokeRenderer render = RenderInvoke;
  auto read = co_await AuthenticateAndRead(deps, r, ReadInvokeCall, ErrorResponse);
  if (auto* refused = std::get_if<Response>(&read)) co_return std::move(*refused);
  const AuthenticatedCall& ok = std::get<AuthenticatedCall>(read);
  if (ok.call.delivery.stream) co_return co_await StreamRun(deps, ok, r);
  if (ok.call.delivery.background) co_return co_await QueueRun(deps, ok, r.trace);
  co_return co_await InvokeOnce(deps, CallOf(ok, r.trace), render);
}

}  // namespace

void AddInvokeRoutes(Router& router, RouteDeps& deps) {
  router.Add("POST", "/api/agents/{agent_id}/invoke",
             [&deps](Request& r) { return Invoke(deps, r); });
}

}  // namespace agentgate::http
