#pragma once
// What /mcp and the authorization server's routes share (docs/mcp.md, OAuth): the server's
// absolute URL, and the admission of a caller by an access token.

#include "adapters/http_server/handlers/route_deps.hpp"

#include <optional>
#include <string>

namespace agentgate::http {

// [server] public_url, else, while every listener is on loopback (one server, as `make run`
// serves), http:// and the request's Host: the issuer, the resource and the metadata's URLs start
// with it. nullopt for a server others reach with no public_url: a Host is the caller's to choose,
// so nothing is built from it.
std::optional<std::string> OAuthBase(const RouteDeps& deps, const Request& r);

// What a route that needs the base answers without one.
inline constexpr const char* kNoPublicUrl =
    "this server listens beyond loopback and has no [server] public_url: set it to the URL clients "
    "reach the server at";

// The caller of an /mcp request: by the fl-api headers or an API key as on every product route,
// or by an access token of the built-in authorization server (`Authorization: Bearer` with
// anything that is not an API key). A 401 carries the Bearer challenge that points a client at
// the resource's metadata.
boost::asio::awaitable<std::variant<Caller, Response>> AdmitMcpCaller(RouteDeps& deps, Request& r);

}  // namespace agentgate::http
