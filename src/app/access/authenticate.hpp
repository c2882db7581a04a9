#pragma once
// Header authentication for product endpoints (SPEC §3): fl-api-org, fl-api-token, fl-api-env.

#include "app/access/tenant_directory.hpp"
#include "domain/error.hpp"
#include "domain/gateway/gateway_request.hpp"

#include <optional>
#include <string>

namespace agentgate {

// The caller's credentials: the three fl-api headers, or the same three out of an API key
// (`Authorization: Bearer agk_...`, domain/auth/api_token).
struct CallerHeaders {
  std::optional<std::string> org;
  std::optional<std::string> token;
  std::optional<std::string> env;
  bool unreadable_key = false;  // a Bearer credential that is not an API key
};

struct Caller {
  std::string org_id;
  std::string env;
  std::string token_id;
};

// 401 unauthenticated: missing org/token, unknown org, malformed, wrong or revoked token, a
// Bearer credential that is not an API key.
// 400 missing_header: no env. 403 forbidden: token not valid for this env. The messages never
// repeat the token.
boost::asio::awaitable<Result<Caller>> Authenticate(TenantDirectory& tenants,
                                                    const CallerHeaders& headers);

// Whether a caller authenticated earlier (a stream's) is still admitted: 401 once its token was
// revoked, 403 once it is no longer valid for its environment. From the tenant cache, as a new
// call's check.
boost::asio::awaitable<Result<void>> StillAdmitted(TenantDirectory& tenants, const Caller& caller);

// 403 unless the caller's token holds `permission` on the agent.
boost::asio::awaitable<Result<void>> Authorize(TenantDirectory& tenants, const Caller& caller,
                                               const std::string& agent_id,
                                               const std::string& permission);

// Authorize as a yes or no, for what a caller without the grant must not learn exists: false
// when refused for the caller's reasons, the error only when the service failed.
boost::asio::awaitable<Result<bool>> MayUse(TenantDirectory& tenants, const Caller& caller,
                                            const std::string& agent_id,
                                            const std::string& permission);

// 403 unless the caller's token holds the permission `call` needs on its environment
// (domain/gateway/metadata_grant), naming the permission.
boost::asio::awaitable<Result<void>> AuthorizeMetadataCall(TenantDirectory& tenants,
                                                           const Caller& caller,
                                                           const GatewayCall& call);

}  // namespace agentgate
