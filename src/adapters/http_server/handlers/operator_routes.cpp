// /healthz, /readyz, /metrics, /openapi.json.
#include "adapters/http_server/handlers/route_deps.hpp"
#include "adapters/http_server/responses.hpp"

#include <boost/json/object.hpp>

namespace agentgate::http {

extern const char* const kOpenApiDocument;  // generated from docs/openapi.json

namespace asio = boost::asio;
namespace json = boost::json;

void AddOperatorRoutes(Router& router, RouteDeps& deps) {
  router.Add("GET", "/healthz", [](Request&) -> asio::awaitable<Response> {
    co_return JsonResponse(200, json::object{{"status", "ok"}});
  });

  router.Add("GET", "/readyz", [&deps](Request&) -> asio::awaitable<Response> {
    if (deps.draining()) co_return ErrorResponse(Error{ErrorCode::kUnavailable, "shutting down"});
    auto ping = co_await deps.store.Run([](Store& s) { return s.Ping(); });
    if (!ping) co_return ErrorResponse(Error{ErrorCode::kUnavailable, "store unreachable"});
    co_return JsonResponse(200, json::object{{"status", "ready"}});
  });

  router.Add("GET", "/metrics", [&deps](Request&) -> asio::awaitable<Response> {
    Response r;
    r.content_type = "text/plain; version=0.0.4; charset=utf-8";
    r.body = deps.metrics.Render();
    co_return r;
  });

  router.Add("GET", "/openapi.json", [](Request&) -> asio::awaitable<Response> {
    Response r;
    r.body = kOpenApiDocument;
    co_return r;
  });
}

}  // namespace agentgate::http
