#include "domain/auth/oauth_token_request.hpp"

#include "domain/auth/oauth_metadata.hpp"

#include "domain/resource_ids.hpp"
#include "domain/url_encoding.hpp"

#include <algorithm>
#include <map>
#include <vector>

namespace agentgate::oauth {
namespace {

constexpr std::string_view kOAuthErrorDetail = "oauth_error";

Error InvalidRequest(std::string description) {
  return Error(ErrorCode::kInvalidRequest, std::move(description));
}

Error Unauthenticated(std::string description) {
  return Error(ErrorCode::kUnauthenticated, std::move(description));
}

Error UnreadableBasic() {
  return Unauthenticated(
      "the Authorization header's Basic credentials are not the base64 of "
      "client_id:client_secret");
}

// RFC 6749 §3.2: a parameter sent without a value is treated as omitted; none may repeat.
Result<std::map<std::string, std::string>> ReadForm(std::string_view body) {
  std::map<std::string, std::string> params;
  while (!body.empty()) {
    const auto amp = body.find('&');
    const std::string_view pair = body.substr(0, amp);
    body = amp == std::string_view::npos ? std::string_view() : body.substr(amp + 1);
    if (pair.empty()) continue;
    const auto eq = pair.find('=');
    auto name = PercentDecode(pair.substr(0, eq), true);
    auto value = PercentDecode(eq == std::string_view::npos ? "" : pair.substr(eq + 1), true);
    if (!name || !value) return InvalidRequest("the form body has a malformed percent-escape");
    if (value->empty()) continue;
    const std::string named = *name;
    if (!params.emplace(std::move(*name), std::move(*value)).second)
      return InvalidRequest("parameter '" + named + "' is repeated");
  }
  return params;
}

Result<TokenRequest> ReadBasic(const std::optional<std::string>& decoded) {
  const auto colon = decoded ? decoded->find(':') : std::string::npos;
  if (colon == std::string::npos) return UnreadableBasic();
  auto id = PercentDecode(std::string_view(*decoded).substr(0, colon), true);
  auto secret = PercentDecode(std::string_view(*decoded).substr(colon + 1), true);
  if (!id || !secret || id->empty()) return UnreadableBasic();
  TokenRequest request;
  request.client_id = std::move(*id);
  request.client_secret = std::move(*secret);
  request.authentication = ClientAuthentication::kBasic;
  return request;
}

std::optional<std::string> Take(std::map<std::string, std::string>& params,
                                const std::string& name) {
  auto it = params.find(name);
  if (it == params.end()) return std::nullopt;
  std::string value = std::move(it->second);
  params.erase(it);
  return value;
}

}  // namespace

Result<TokenRequest> ReadTokenRequest(std::optional<std::string_view> content_type,
                                      std::string_view body,
                                      const ClientAuthorization& authorization) {
  const std::string_view type =
      content_type ? content_type->substr(0, content_type->find(';')) : std::string_view();
  if (type != "application/x-www-form-urlencoded") {
    return InvalidRequest(
        "the token request's body must be application/x-www-form-urlencoded (RFC 6749 §4.4.2)");
  }
  AG_TRY(auto params, ReadForm(body));

  const auto grant_type = Take(params, "grant_type");
  if (!grant_type) return InvalidRequest("parameter 'grant_type' is required");
  if (*grant_type != "client_credentials") {
    return OAuthRefusal(ErrorCode::kInvalidRequest, "unsupported_grant_type",
                        "grant_type '" + *grant_type +
                            "' is not supported: this authorization server issues tokens for "
                            "client_credentials only");
  }
  auto form_id = Take(params, "client_id");
  auto form_secret = Take(params, "client_secret");
  TokenRequest request;
  using Kind = ClientAuthorization::Kind;
  if (authorization.kind == Kind::kOther) {
    return Unauthenticated(
        "the Authorization header must use the Basic scheme (client_secret_basic), or be left "
        "out for client_secret_post");
  }
  if (authorization.kind == Kind::kBasic) {
    if (form_secret) {
      return InvalidRequest(
          "the client authenticated twice (Basic and client_secret): use one method");
    }
    AG_TRY(request, ReadBasic(authorization.basic));
    if (form_id && *form_id != request.client_id)
      return InvalidRequest("client_id differs from the Basic credentials' client");
  } else {
    if (!form_id || !form_secret) {
      return Unauthenticated(
          "client authentication is required: HTTP Basic (client_secret_basic) or client_id and "
          "client_secret in the body (client_secret_post)");
    }
    request.client_id = std::move(*form_id);
    request.client_secret = std::move(*form_secret);
    request.authentication = ClientAuthentication::kPost;
  }
  request.scope = Take(params, "scope");
  request.resource = Take(params, "resource");
  return request;
}

Result<std::string> GrantedScope(const std::optional<std::string>& requested) {
  if (!requested) return std::string(kMcpScope) + " " + std::string(kA2aScope);
  std::string_view rest = *requested;
  bool mcp = false;
  bool a2a = false;
  while (!rest.empty()) {
    const auto space = rest.find(' ');
    const std::string_view scope = rest.substr(0, space);
    rest = space == std::string_view::npos ? std::string_view() : rest.substr(space + 1);
    if (scope.empty()) continue;
    if (scope != kMcpScope && scope != kA2aScope) {
      return OAuthRefusal(ErrorCode::kInvalidRequest, "invalid_scope",
                          "scope '" + std::string(scope) + "' is not one this server grants (" +
                              std::string(kMcpScope) + ", " + std::string(kA2aScope) + ")");
    }
    (scope == kMcpScope ? mcp : a2a) = true;
  }
  if (!mcp && !a2a) {
    return OAuthRefusal(ErrorCode::kInvalidRequest, "invalid_scope",
                        "the scope parameter names no scope");
  }
  if (mcp && a2a) return std::string(kMcpScope) + " " + std::string(kA2aScope);
  return std::string(mcp ? kMcpScope : kA2aScope);
}

Result<TokenTarget> TargetOf(const std::optional<std::string>& resource, std::string_view granted,
                             std::string_view base) {
  const bool mcp = granted.find(kMcpScope) != std::string_view::npos;
  const bool a2a = granted.find(kA2aScope) != std::string_view::npos;
  if (!resource) {
    TokenTarget target{{}, std::string(granted)};
    if (mcp) target.audiences.push_back(ResourceOf(base));
    if (a2a) target.audiences.push_back(A2aResourceOf(base));
    return target;
  }
  if (*resource == ResourceOf(base) && mcp) return TokenTarget{{*resource}, std::string(kMcpScope)};
  if (*resource == A2aResourceOf(base) && a2a)
    return TokenTarget{{*resource}, std::string(kA2aScope)};
  return OAuthRefusal(ErrorCode::kInvalidRequest, "invalid_target",
                      "resource '" + *resource +
                          "' is not served here within the scope asked; this server's are '" +
                          ResourceOf(base) + "' (scope mcp) and '" + A2aResourceOf(base) +
                          "' (scope a2a)");
}

Error InvalidClient() {
  return Unauthenticated("the client is unknown or its secret is wrong");
}

Error OAuthRefusal(ErrorCode code, std::string_view oauth_error, std::string description) {
  Error refusal(code, std::move(description));
  refusal.With(std::string(kOAuthErrorDetail), std::string(oauth_error));
  return refusal;
}

std::string_view OAuthErrorName(const Error& error) {
  for (const auto& [key, value] : error.details) {
    if (key == kOAuthErrorDetail && std::holds_alternative<std::string>(value))
      return std::get<std::string>(value);
  }
  switch (error.code) {
    case ErrorCode::kInvalidRequest:
    case ErrorCode::kPayloadTooLarge:
      return "invalid_request";
    case ErrorCode::kUnauthenticated:
      return "invalid_client";
    case ErrorCode::kUnavailable:
      return "temporarily_unavailable";
    default:
      return "server_error";
  }
}

int OAuthStatusOf(const Error& error) {
  switch (error.code) {
    case ErrorCode::kInvalidRequest:
    case ErrorCode::kPayloadTooLarge:
    case ErrorCode::kUnauthenticated:
    case ErrorCode::kUnavailable:
      return HttpStatusOf(error.code);
    default:
      return 500;
  }
}

bool ChallengesBasic(const Error& error, const ClientAuthorization& authorization) {
  return error.code == ErrorCode::kUnauthenticated &&
         authorization.kind != ClientAuthorization::Kind::kNone;
}

bool IsClientIdShaped(std::string_view client_id) {
  constexpr std::string_view kPrefix = ids::kOAuthClient;
  if (!client_id.starts_with(kPrefix) || client_id.size() == kPrefix.size() ||
      client_id.size() > kPrefix.size() + 60)
    return false;
  return std::all_of(client_id.begin() + kPrefix.size(), client_id.end(), [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_';
  });
}

}  // namespace agentgate::oauth
