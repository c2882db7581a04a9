#pragma once
// Shared pieces of the /admin/v1 handlers: bearer-token check and result rendering.

#include "adapters/http_server/handlers/route_deps.hpp"
#include "adapters/http_server/responses.hpp"

#include <boost/json/value.hpp>

namespace agentgate::http {

// The console's session cookie.
inline constexpr std::string_view kConsoleCookie = "agentgate_console";

// 401 unless "Authorization: Bearer <admin token>" matches (constant time) or the request carries
// a live console session's cookie; a console request that changes state must also carry the
// session's CSRF token in X-CSRF-Token (403 without it).
Result<void> RequireAdmin(const Request& request, const RouteDeps& deps);
// The console-cookie half of RequireAdmin.
Result<void> RequireConsoleSession(const Request& request, ConsoleSessions& sessions,
                                   std::string_view session_id);

// Admin handler shape: checks the admin token, then runs `fn`, turning an Error into its response.
template <class Fn>
Handler AdminHandler(RouteDeps& deps, Fn fn) {
  return [&deps, fn](Request& request) -> boost::asio::awaitable<Response> {
    if (auto ok = RequireAdmin(request, deps); !ok) co_return ErrorResponse(ok.error());
    Result<Response> r = co_await fn(request);
    co_return r ? std::move(*r) : ErrorResponse(r.error());
  };
}

// A query or path parameter that must be an integer >= 1; nullopt when absent; 400 naming
// `field` otherwise.
Result<std::optional<std::int64_t>> PositiveInteger(const std::optional<std::string>& text,
                                                    std::string_view field);

// A list's ?limit: `default_size` when absent, at most `max_size` (more is capped), 400 when it
// is not a positive integer.
Result<int> PageSize(const Request& request, int default_size, int max_size);

// ISO 8601 UTC, e.g. 2026-11-21T09:53:00Z.
std::string IsoTime(std::int64_t epoch_ms);

boost::json::value OrgJson(const OrgRecord& org);
// A token as listed (never its secret); `environments` null = every environment of the org.
boost::json::object TokenJson(const TokenRecord& token);
// A turn as the operator sees it: usage, timing, stop reason and its transcript.
boost::json::value TurnJson(const TurnRecord& turn);

}  // namespace agentgate::http
