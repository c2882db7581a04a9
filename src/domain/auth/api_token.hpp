#pragma once
// The format of API tokens: "agt_<16 hex id>.<43 base64url secret>". The id finds the stored
// record; only a hash of the secret is stored.

#include <optional>
#include <string>
#include <string_view>

namespace agentgate {

struct ApiTokenParts {
  std::string id;      // 16 lowercase hex characters
  std::string secret;  // 256 bits, base64url without padding
};

std::string FormatApiToken(const ApiTokenParts& parts);
// nullopt for anything not shaped like a token; callers answer 401 without saying why.
std::optional<ApiTokenParts> ParseApiToken(std::string_view token);

// An API key, for clients that know only a base URL and a key (an OpenAI SDK, docs/openai.md): a
// token wrapped with the organization and environment it is used in, nothing stored beside the
// token (revoking the token revokes its keys): "agk_<org>.<env>.<token>". Neither an organization
// id nor an environment name holds a '.', so the key splits at its first two.
struct ApiKeyParts {
  std::string org;
  std::string env;
  std::string token;
};
std::string WrapApiKey(const ApiKeyParts& parts);
// nullopt for anything not shaped like a key; the token inside is judged as any token.
std::optional<ApiKeyParts> UnwrapApiKey(std::string_view key);

// The credential of an `Authorization` header in the Bearer scheme, whose name is matched without
// regard to case (RFC 9110 §11.1: "bearer", "BEARER"), after one or more spaces; nullopt for
// another scheme or no credential.
std::optional<std::string_view> BearerCredential(std::string_view authorization);

}  // namespace agentgate
