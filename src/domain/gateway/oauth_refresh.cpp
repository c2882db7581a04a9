#include "domain/gateway/oauth_refresh.hpp"

#include "domain/url_encoding.hpp"

#include <boost/json/parse.hpp>

namespace agentgate {

OAuthRefreshRequest RefreshRequestFor(const CrmCredentials& c) {
  std::string login = c.login_url;
  while (!login.empty() && login.back() == '/') login.pop_back();
  return OAuthRefreshRequest{
      login + "/services/oauth2/token",
      "grant_type=refresh_token&client_id=" + PercentEncode(c.client_id) +
          (c.client_secret.empty() ? "" : "&client_secret=" + PercentEncode(c.client_secret)) +
          "&refresh_token=" + PercentEncode(c.refresh_token)};
}

Result<OAuthGrant> ParseRefreshAnswer(int status, std::string_view body) {
  boost::system::error_code ec;
  const auto json = boost::json::parse(body, ec);
  const auto field = [&](const char* name) -> std::string {
    if (ec || !json.is_object()) return "";
    const auto* v = json.as_object().if_contains(name);
    return v != nullptr && v->is_string() ? std::string(v->get_string()) : "";
  };
  if (status != 200) {
    const std::string error = field("error");
    Error failed(ErrorCode::kCrmAuthFailed,
                 "the OAuth refresh failed: HTTP " + std::to_string(status) +
                     (error.empty() ? "" : ": " + error + ": " + field("error_description")));
    if (!error.empty()) failed.With("oauth_error", error);
    return failed;
  }
  OAuthGrant grant{field("access_token"), field("instance_url"), field("refresh_token")};
  if (grant.access_token.empty() || grant.instance_url.empty()) {
    return Error(ErrorCode::kCrmAuthFailed,
                 "the OAuth refresh answered without access_token and instance_url");
  }
  return grant;
}

}  // namespace agentgate
