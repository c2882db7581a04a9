#pragma once
// What /mcp and the authorization server's routes share (docs/mcp.md, OAuth): the server's
// absolute URL, and the admission of a caller by an access token.

#include "adapters/http_server/handlers/route_deps.hpp"

#include <string>

namespace agentgate::http {

// [server] public_url, else http:// and the request's Host (one server, as `make run` serves):
// the issuer, the resource and the metadata's URLs start with it.
std::string OAuthBase(const RouteDeps& deps, const Request& r);

// The caller of an /mcp request: by the fl-api headers or an API key as on every product route,
// or by an access token of the built-in authorization server (`Authorization: Bearer` with
// anything that is not an API key). A 401 carries the Bearer challenge that points a client at
// the resource's metadata.
boost::asio::awaitable<std::variant<Caller, Response>> AdmitMcpCaller(RouteDeps& deps, Request& r);

}  // namespace agentgate::http
