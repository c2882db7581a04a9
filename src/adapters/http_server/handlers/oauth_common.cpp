#include "adapters/http_server/handlers/oauth_common.hpp"

#include "adapters/http_server/handlers/invoke_common.hpp"
#include "adapters/http_server/responses.hpp"
#include "app/access/authorization_server.hpp"
#include "domain/auth/api_token.hpp"
#include "domain/auth/oauth_metadata.hpp"

#include <algorithm>

namespace agentgate::http {

namespace asio = boost::asio;

namespace {

// A host[:port] that can go into a URL and a quoted header parameter as it is.
bool PlainHost(std::string_view host) {
  return !host.empty() && host.size() <= 255 && std::all_of(host.begin(), host.end(), [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || c == '.' || c == '-' || c == ':' ||
           c == '[' || c == ']';
  });
}

}  // namespace

std::optional<std::string> OAuthBase(const RouteDeps& deps, const Request& r) {
  if (!deps.public_url.empty()) return deps.public_url;
  if (!deps.loopback_only) return std::nullopt;
  const auto host = r.Header("host");
  return "http://" + std::string(host && PlainHost(*host) ? *host : "localhost");
}

asio::awaitable<std::variant<Caller, Response>> AdmitMcpCaller(RouteDeps& deps, Request& r) {
  const CallerHeaders headers = CallerHeadersOf(r);
  const auto authorization = r.Header("authorization");
  const std::string base = OAuthBase(deps, r).value_or("");
  // A Bearer credential that is not an API key is one of our access tokens, or nothing. Two
  // statements, not a conditional of two co_awaits (which GCC 12 miscompiles).
  Result<Caller> caller = Error(ErrorCode::kUnauthenticated, "");
  if (headers.unreadable_key) {
    std::string presented(BearerCredential(*authorization).value_or(""));
    if (base.empty()) {
      caller = Error(ErrorCode::kUnauthenticated, kNoPublicUrl);
    } else {
      caller = co_await deps.oauth.Admit(std::move(presented), base);
    }
  } else {
    caller = co_await Authenticate(deps.tenants, headers);
  }
  if (caller) co_return std::move(*caller);
  Response refused = ErrorResponse(caller.error());
  if (refused.status == 401) {
    // invalid_token only for a Bearer credential; a bare challenge for none or the fl-api ones.
    std::optional<std::string> why;
    if (authorization && BearerCredential(*authorization)) why = caller.error().message;
    refused.headers.emplace_back("WWW-Authenticate", oauth::BearerChallenge(base, why));
  }
  co_return refused;
}

}  // namespace agentgate::http
