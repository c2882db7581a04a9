#pragma once
// The OAuth 2.0 refresh-token grant as Salesforce's token endpoint speaks it: a form POST to
// {login_url}/services/oauth2/token, answered in JSON. app/crm_sessions sends it.

#include "domain/admin/admin_requests.hpp"
#include "domain/error.hpp"

#include <string>
#include <string_view>

namespace agentgate {

struct OAuthRefreshRequest {
  std::string url;
  std::string form_body;  // application/x-www-form-urlencoded
};

// What the token endpoint granted.
struct OAuthGrant {
  std::string access_token;
  std::string instance_url;
  std::string rotated_refresh_token;  // empty when the refresh token was not rotated
};

OAuthRefreshRequest RefreshRequestFor(const CrmCredentials& credentials);

// The grant, or kCrmAuthFailed with Salesforce's error and description (never the request's
// secrets); a refusal names its OAuth error in the detail "oauth_error" (invalid_grant: the
// refresh token itself was refused).
Result<OAuthGrant> ParseRefreshAnswer(int status, std::string_view body);

}  // namespace agentgate
