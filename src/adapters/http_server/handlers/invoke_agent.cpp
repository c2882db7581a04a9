// POST /api/agents/{agent_id}/invoke: the Daemon over HTTP. Decode, run the use case, render.
#include "app/invoke_agent.hpp"
#include "adapters/http_server/handlers/invoke_common.hpp"
#include "adapters/http_server/responses.hpp"
#include "app/idempotency.hpp"
#include "domain/governance/governance.hpp"
#include "domain/json_fields.hpp"
#include "domain/json_text.hpp"

#include <boost/json/object.hpp>

#include <variant>

namespace agentgate::http {

namespace asio = boost::asio;
namespace json = boost::json;

json::object InvokeResultJson(const InvokeResult& result) {
  json::object out{{"response", result.response}, {"blocked", result.blocked}};
  out["conversation_id"] =
      result.conversation_id ? json::value(*result.conversation_id) : json::value(nullptr);
  const auto reason = StopReasonName(result.stop_reason);
  out["terminated_reason"] = reason ? json::value(std::string(*reason)) : json::value(nullptr);
  out["usage"] = json::object{{"input_tokens", result.usage.input_tokens},
                              {"output_tokens", result.usage.output_tokens},
                              {"cost_usd", result.cost_usd},
                              {"model_calls", result.model_calls}};
  return out;
}

namespace {

// What an invoke request asks for, read before its turn runs: the parsed JSON body is freed here,
// not held for the turn's whole life.
struct InvokeCall {
  std::string agent_id;
  InvokeRequest request;
  std::optional<std::string> key;
  std::string fingerprint;
};

Result<InvokeCall> ReadInvokeCall(const Request& r) {
  AG_TRY(auto body, ParseJsonBody(r));
  AG_TRY(auto request, ParseInvokeRequest(body));
  InvokeCall call{r.Param("agent_id"), std::move(request), std::nullopt, ""};
  if (auto header = r.Header("idempotency-key")) {
    call.key = std::string(*header);
    AG_TRYV(governance::ValidateIdempotencyKey(*call.key));
  }
  call.fingerprint =
      Idempotency::Fingerprint("invoke", call.agent_id, json_text::WriteCanonical(body));
  return call;
}

Response RenderInvoke(const Result<InvokeResult>& result) {
  return result ? JsonResponse(200, InvokeResultJson(*result)) : ErrorResponse(result.error());
}

struct AuthenticatedCall {
  Caller caller;
  InvokeCall call;
};

// The caller and what it asks for, or the response refusing it. Authentication comes before the
// body is judged, so an anonymous caller learns nothing. A coroutine of its own: what it reads on
// the way is gone while the turn runs.
asio::awaitable<std::variant<Response, AuthenticatedCall>> ReadAuthenticatedCall(RouteDeps& deps,
                                                                                 const Request& r) {
  auto caller = co_await Authenticate(deps.tenants, CallerHeadersOf(r));
  if (!caller) co_return ErrorResponse(caller.error());
  auto call = ReadInvokeCall(r);
  if (!call) co_return ErrorResponse(call.error());
  AuthenticatedCall admitted{std::move(*caller), std::move(*call)};
  co_return admitted;
}

}  // namespace

void AddInvokeRoutes(Router& router, RouteDeps& deps) {
  router.Add("POST", "/api/agents/{agent_id}/invoke",
             [&deps](Request& r) -> asio::awaitable<Response> {
               auto read = co_await ReadAuthenticatedCall(deps, r);
               if (auto* refused = std::get_if<Response>(&read)) co_return std::move(*refused);
               const AuthenticatedCall& ok = std::get<AuthenticatedCall>(read);
               static const InvokeRenderer render = RenderInvoke;
               co_return co_await InvokeOnce(deps, ok.caller, ok.call.agent_id, ok.call.request,
                                             ok.call.key, ok.call.fingerprint, render);
             });
}

}  // namespace agentgate::http
