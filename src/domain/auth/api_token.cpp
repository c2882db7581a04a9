#include "domain/auth/api_token.hpp"

namespace agentgate {
namespace {

constexpr std::string_view kPrefix = "agt_";
constexpr std::string_view kKeyPrefix = "agk_";
constexpr std::size_t kIdLength = 16;
constexpr std::size_t kSecretLength = 43;

bool IsLowerHex(char c) {
  return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f');
}
bool IsBase64Url(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '-' ||
         c == '_';
}

}  // namespace

std::string FormatApiToken(const ApiTokenParts& parts) {
  return std::string(kPrefix) + parts.id + "." + parts.secret;
}

std::optional<ApiTokenParts> ParseApiToken(std::string_view token) {
  if (token.size() != kPrefix.size() + kIdLength + 1 + kSecretLength) return std::nullopt;
  if (!token.starts_with(kPrefix)) return std::nullopt;
  const std::string_view id = token.substr(kPrefix.size(), kIdLength);
  if (token[kPrefix.size() + kIdLength] != '.') return std::nullopt;
  const std::string_view secret = token.substr(kPrefix.size() + kIdLength + 1);
  for (char c : id) {
    if (!IsLowerHex(c)) return std::nullopt;
  }
  for (char c : secret) {
    if (!IsBase64Url(c)) return std::nullopt;
  }
  return ApiTokenParts{std::string(id), std::string(secret)};
}

std::string WrapApiKey(const ApiKeyParts& parts) {
  return std::string(kKeyPrefix) + parts.org + "." + parts.env + "." + parts.token;
}

std::optional<ApiKeyParts> UnwrapApiKey(std::string_view key) {
  if (!key.starts_with(kKeyPrefix)) return std::nullopt;
  key.remove_prefix(kKeyPrefix.size());
  const auto org_end = key.find('.');
  if (org_end == std::string_view::npos || org_end == 0) return std::nullopt;
  const auto env_end = key.find('.', org_end + 1);
  if (env_end == std::string_view::npos || env_end == org_end + 1) return std::nullopt;
  const std::string_view token = key.substr(env_end + 1);
  if (token.empty()) return std::nullopt;
  return ApiKeyParts{std::string(key.substr(0, org_end)),
                     std::string(key.substr(org_end + 1, env_end - org_end - 1)),
                     std::string(token)};
}

std::optional<std::string_view> BearerCredential(std::string_view authorization) {
  constexpr std::string_view kScheme = "bearer";
  if (authorization.size() <= kScheme.size() || authorization[kScheme.size()] != ' ')
    return std::nullopt;
  for (std::size_t i = 0; i < kScheme.size(); ++i) {
    const char c = authorization[i];
    if ((c >= 'A' && c <= 'Z' ? static_cast<char>(c - 'A' + 'a') : c) != kScheme[i])
      return std::nullopt;
  }
  std::string_view credential = authorization.substr(kScheme.size());
  while (!credential.empty() && credential.front() == ' ') credential.remove_prefix(1);
  if (credential.empty()) return std::nullopt;
  return credential;
}

}  // namespace agentgate
