// POST /api/metadata-gateway: decode, authenticate (every failure is 400 FL04), normalise the
// call (400 INVALID_REQUEST, before anything is sent), authorize it on the environment (403 FL07),
// forward, answer the envelope. Whenever the platform answered, the gateway's own status is 200
// and the envelope carries the platform's.
#include "app/gateway/metadata_gateway.hpp"
#include "adapters/http_server/handlers/invoke_common.hpp"
#include "adapters/http_server/responses.hpp"

#include <boost/json/object.hpp>

namespace agentgate::http {

namespace asio = boost::asio;
namespace json = boost::json;

namespace {

// The gateway's own errors: {"ok": false, "status": N, "error": {"code", "message"}}, also for
// what the HTTP layer refuses on this route (413, 431, 405, a malformed request).
Response GatewayError(const Error& error) {
  int status = HttpStatusOf(error.code);
  std::string code(ErrorCodeName(error.code));
  for (auto& ch : code) ch = static_cast<char>(std::toupper(static_cast<unsigned char>(ch)));
  switch (error.code) {
    case ErrorCode::kUnauthenticated:
    case ErrorCode::kMissingHeader:
    case ErrorCode::kForbidden:
      status = 400, code = "FL04";
      break;
    case ErrorCode::kCrmNotConfigured:
      code = "FL05";
      break;
    case ErrorCode::kCrmAuthFailed:
      code = "FL06";
      break;
    case ErrorCode::kUnavailable:
      code = "unavailable";  // SPEC §7 spells the store outage in lower case
      break;
    default:
      break;
  }
  Response response = JsonResponse(
      status, json::object{{"ok", false},
                           {"status", status},
                           {"error", json::object{{"code", code}, {"message", error.message}}}});
  if (error.retry_after_seconds)
    response.headers.emplace_back("Retry-After", std::to_string(*error.retry_after_seconds));
  return response;
}

// 403 FL07: the token is valid but holds no grant for this call on its environment
// (docs/gateway.md).
Response GatewayRefusal(const std::string& message) {
  return JsonResponse(
      403, json::object{{"ok", false},
                        {"status", 403},
                        {"error", json::object{{"code", "FL07"}, {"message", message}}}});
}

// Authenticates, checks and forwards one call; every outcome is the gateway's envelope.
asio::awaitable<Response> GatewayCall(RouteDeps& deps, Request& r) {
  auto caller = co_await Authenticate(deps.tenants, CallerHeadersOf(r));
  if (!caller && caller.error().code == ErrorCode::kUnavailable)
    co_return GatewayError(
        caller.error());  // the store is down: 503, retry; not the caller's fault
  if (!caller)
    co_return GatewayError(
        Error(ErrorCode::kUnauthenticated, "FL04 Unauthorized: " + caller.error().message));
  auto body = ParseJsonBody(r);
  if (!body) co_return GatewayError(body.error());
  auto call = NormalizeGatewayRequest(*body);
  if (!call) co_return GatewayError(call.error());
  if (auto allowed = co_await AuthorizeMetadataCall(deps.tenants, *caller, *call); !allowed) {
    if (allowed.error().code != ErrorCode::kForbidden) co_return GatewayError(allowed.error());
    co_return GatewayRefusal(allowed.error().message);
  }
  auto envelope =
      co_await deps.gateway.Forward(caller->org_id, caller->env, std::move(*call), r.trace);
  if (!envelope) co_return GatewayError(envelope.error());
  co_return JsonResponse(200, RenderEnvelope(*envelope));
}

}  // namespace

void AddMetadataGatewayRoutes(Router& router, RouteDeps& deps) {
  router.Add(
      "POST", "/api/metadata-gateway",
      [&deps](Request& r) -> asio::awaitable<Response> {
        Response response = co_await GatewayCall(deps, r);
        deps.gateway_calls.Count(response.status);
        co_return response;
      },
      &GatewayError);
}

}  // namespace agentgate::http
