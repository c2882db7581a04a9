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

}  // namespace agentgate
