// POST /api/metadata-gateway: decode, authenticate (every failure is 400 FL04), normalise the
// call (400 INVALID_REQUEST, before anything is sent), forward, answer the envelope. Whenever the
// platform answered, the gateway's own status is 200 and the envelope carries the platform's.
#include "app/metadata_gateway.hpp"
#include "adapters/http_server/handlers/invoke_common.hpp"
#include "adapters/http_server/responses.hpp"

#include <boost/json/object.hpp>

namespace agentgate::http {

namespace asio = boost::asio;
namespace json = boost::json;

namespace {

// The gateway's own errors: {"ok": false, "status": N, "error": {"code", "message"}}.
Response GatewayError(const Error& error) {
  int status = 500;
  std::string code = "INTERNAL";
  switch (error.code) {
    case ErrorCode::kInvalidRequest:
      status = 400, code = "INVALID_REQUEST";
      break;
    case ErrorCode::kUnauthenticated:
    case ErrorCode::kMissingHeader:
    case ErrorCode::kForbidden:
      status = 400, code = "FL04";
      break;
    case ErrorCode::kCrmNotConfigured:
      status = 400, code = "FL05";
      break;
    case ErrorCode::kCrmAuthFailed:
      status = 502, code = "FL06";
      break;
    case ErrorCode::kUpstreamUnavailable:
      status = 502, code = "UPSTREAM_UNAVAILABLE";
      break;
    default:
      break;
  }
  return JsonResponse(
      status, json::object{{"ok", false},
                           {"status", status},
                           {"error", json::object{{"code", code}, {"message", error.message}}}});
}

}  // namespace

void AddMetadataGatewayRoutes(Router& router, RouteDeps& deps) {
  router.Add("POST", "/api/metadata-gateway", [&deps](Request& r) -> asio::awaitable<Response> {
    auto caller = co_await Authenticate(deps.tenants, CallerHeadersOf(r));
    if (!caller)
      co_return GatewayError(
          Error(ErrorCode::kUnauthenticated, "FL04 Unauthorized: " + caller.error().message));
    auto body = ParseJsonBody(r);
    if (!body) co_return GatewayError(body.error());
    auto call = NormalizeGatewayRequest(*body);
    if (!call) co_return GatewayError(call.error());
    auto envelope = co_await deps.gateway.Forward(caller->org_id, caller->env, std::move(*call));
    if (!envelope) co_return GatewayError(envelope.error());
    co_return JsonResponse(200, RenderEnvelope(*envelope));
  });
}

}  // namespace agentgate::http
