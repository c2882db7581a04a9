#pragma once
// Where the built-in authorization server and its protected resource (/mcp) are, and the
// documents that say so: RFC 9728's resource metadata, RFC 8414's server metadata, and the
// Bearer challenge of a 401 (RFC 6750 §3) that points a client at them (docs/mcp.md, OAuth).
// `base` is the server's absolute URL without a trailing slash ([server] public_url).

#include <optional>
#include <string>
#include <string_view>

namespace agentgate::oauth {

inline constexpr std::string_view kResourcePath = "/mcp";
inline constexpr std::string_view kA2aResourcePath = "/a2a";  // every agent's A2A interface
inline constexpr std::string_view kResourceMetadataPath = "/.well-known/oauth-protected-resource";
inline constexpr std::string_view kServerMetadataPath = "/.well-known/oauth-authorization-server";
inline constexpr std::string_view kTokenPath = "/oauth/token";
inline constexpr std::string_view kJwksPath = "/oauth/jwks";
inline constexpr std::string_view kAuthorizePath = "/oauth/authorize";

// The resource's identifier (RFC 8707), the audience of its tokens.
std::string ResourceOf(std::string_view base);
std::string A2aResourceOf(std::string_view base);

std::string ProtectedResourceMetadata(std::string_view base);
std::string AuthorizationServerMetadata(std::string_view base);

// WWW-Authenticate for a 401 at the resource: with `invalid_token` and why when a token was
// presented and refused, bare when no credentials came.
std::string BearerChallenge(std::string_view base, const std::optional<std::string>& refusal);

}  // namespace agentgate::oauth
