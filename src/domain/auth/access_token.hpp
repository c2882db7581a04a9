#pragma once
// The access tokens of the built-in authorization server: JWTs in the RFC 9068 profile, signed
// ES256 (docs/mcp.md, OAuth). What they claim and what a resource requires of them; the signature
// is crypto's (crypto/jws).

#include "domain/error.hpp"

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace agentgate::oauth {

// RFC 9068 asks for short lives; the overlap a rotated signing key keeps is this long too.
inline constexpr std::int64_t kMaxTokenLifetimeS = 3600;
// How long a retired signing key still verifies: its last token's life, and a minute for a server
// that had not yet read the rotation and signed with it meanwhile. Then it is purged.
inline constexpr std::int64_t kRetiredKeyVerifiesForMs = kMaxTokenLifetimeS * 1000 + 60'000;

struct AccessTokenClaims {
  std::string issuer;  // iss: the authorization server's URL
  // aud: the resources it is for (/mcp, /a2a): one is written as a string, several as an array
  std::vector<std::string> audiences;
  std::string client_id;
  std::string scope;
  std::string jti;
  std::int64_t issued_at_s = 0;
  std::int64_t expires_at_s = 0;
  // sub is the client_id: there is no user in the client-credentials grant (RFC 9068 §2.2).
};

std::string AccessTokenHeader(std::string_view kid);  // {"alg":"ES256","typ":"at+jwt","kid":…}
std::string AccessTokenPayload(const AccessTokenClaims& claims);

// The key id of a header of ours: alg ES256 and typ at+jwt, else 401 naming what is wrong.
Result<std::string> SigningKeyOf(std::string_view header_json);

// The claims of a token whose signature was verified, if it is for `audience` (among others) from
// `issuer`,
// grants `scope` and has not expired at `now_s`: else 401 saying which (never repeating it).
Result<AccessTokenClaims> AcceptedClaims(std::string_view payload_json, std::string_view issuer,
                                         std::string_view audience, std::string_view scope,
                                         std::int64_t now_s);

}  // namespace agentgate::oauth
