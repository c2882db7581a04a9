#pragma once
// Shared pieces of the /admin/v1 handlers: bearer-token check and result rendering.

#include "adapters/http_server/handlers/route_deps.hpp"
#include "adapters/http_server/responses.hpp"

#include <boost/json/value.hpp>

namespace agentgate::http {

// 401 unless "Authorization: Bearer <admin token>" matches (constant time).
Result<void> RequireAdmin(const Request& request, const RouteDeps& deps);

// Admin handler shape: checks the admin token, then runs `fn`, turning an Error into its response.
template <class Fn>
Handler AdminHandler(RouteDeps& deps, Fn fn) {
  return [&deps, fn](Request& request) -> boost::asio::awaitable<Response> {
    if (auto ok = RequireAdmin(request, deps); !ok) co_return ErrorResponse(ok.error());
    Result<Response> r = co_await fn(request);
    co_return r ? std::move(*r) : ErrorResponse(r.error());
  };
}

// ISO 8601 UTC, e.g. 2026-11-21T09:53:00Z.
std::string IsoTime(std::int64_t epoch_ms);

boost::json::value OrgJson(const OrgRecord& org);
// A turn as the operator sees it: usage, timing, stop reason and its transcript.
boost::json::value TurnJson(const TurnRecord& turn);

}  // namespace agentgate::http
