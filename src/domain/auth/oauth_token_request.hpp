#pragma once
// The token endpoint's request (RFC 6749 §4.4, the client-credentials grant) and its refusals, for
// the built-in authorization server (docs/mcp.md, OAuth). A refusal is the house Error; the edge
// writes it in the protocol's own shape (§5.2) with OAuthErrorName and OAuthStatusOf.

#include "domain/error.hpp"

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace agentgate::oauth {

// The one scope there is: list and call, at /mcp, the agents the client's API token may chat with.
inline constexpr std::string_view kMcpScope = "mcp";
// Call the agents the client's API token may chat with as A2A agents, at /a2a (docs/a2a.md).
inline constexpr std::string_view kA2aScope = "a2a";

enum class ClientAuthentication { kBasic, kPost };

struct TokenRequest {
  std::string client_id;
  std::string client_secret;
  ClientAuthentication authentication = ClientAuthentication::kPost;
  std::optional<std::string> scope;     // space-separated, as sent
  std::optional<std::string> resource;  // RFC 8707
};

// The Authorization header as the adapter read it (base64 is the adapter's): absent, Basic with
// its credentials decoded (nullopt when they are not base64), or some other scheme.
struct ClientAuthorization {
  enum class Kind { kNone, kBasic, kOther } kind = Kind::kNone;
  std::optional<std::string> basic;  // "client_id:client_secret", each form-encoded
};

// The form body and Authorization header of POST /oauth/token, up to the client's credentials
// (not yet checked): invalid_request for another content type, a malformed or repeated
// parameter, a missing or doubled client authentication; invalid_client for unreadable Basic
// credentials; unsupported_grant_type for any grant but client_credentials.
Result<TokenRequest> ReadTokenRequest(std::optional<std::string_view> content_type,
                                      std::string_view body,
                                      const ClientAuthorization& authorization);

// What a client is granted of what it asked: every scope asked must be one there is
// (invalid_scope); none asked is every scope.
Result<std::string> GrantedScope(const std::optional<std::string>& requested);

// Who a token is for (its aud) and what it grants there: the resource asked for, which must be
// one of ours within the granted scope, and that resource's scope alone; with none asked, the
// resource of each scope granted.
struct TokenTarget {
  std::vector<std::string> audiences;
  std::string scope;
};
Result<TokenTarget> TargetOf(const std::optional<std::string>& resource, std::string_view granted,
                             std::string_view base);

Error InvalidClient();

// A refusal with a §5.2 name of its own (unsupported_grant_type, invalid_scope, invalid_target,
// unauthorized_client, unsupported_response_type): `code` gives its status.
Error OAuthRefusal(ErrorCode code, std::string_view oauth_error, std::string description);
// §5.2's name for a refusal: the one it was made with, else its code's (invalid_request,
// invalid_client, temporarily_unavailable), else server_error.
std::string_view OAuthErrorName(const Error& error);
// Its status: its code's for the codes the token endpoint answers with, else 500.
int OAuthStatusOf(const Error& error);
// A 401 to a client that sent an Authorization header asks for HTTP Basic (§5.2).
bool ChallengesBasic(const Error& error, const ClientAuthorization& authorization);

// Whether `client_id` could be one this server issued ("agc_" and up to 60 lowercase letters,
// digits or '_'): anything else is refused as an unknown client before any lookup, so a made-up
// id costs no store read and no memory.
bool IsClientIdShaped(std::string_view client_id);

// The most a token request's body may hold (a 413 past it): a client-credentials form is a few
// hundred bytes.
inline constexpr std::size_t kMaxTokenRequestBytes = 8 * 1024;

}  // namespace agentgate::oauth
