#include "app/access/authenticate.hpp"

#include "crypto/crypto.hpp"
#include "domain/auth/api_token.hpp"
#include "domain/gateway/metadata_grant.hpp"

#include <algorithm>

namespace agentgate {

boost::asio::awaitable<Result<Caller>> Authenticate(TenantDirectory& tenants,
                                                    const CallerHeaders& h) {
  const Error unauthenticated{ErrorCode::kUnauthenticated, "the organization or token was refused"};
  if (h.unreadable_key) {
    co_return Error{ErrorCode::kUnauthenticated,
                    "the Authorization header's Bearer credential is not an agentgate API key "
                    "(agk_<org>.<env>.<token>, as token creation answers)"};
  }
  if (!h.org || h.org->empty() || !h.token || h.token->empty()) {
    co_return Error{ErrorCode::kUnauthenticated,
                    "fl-api-org and fl-api-token headers are required"};
  }
  if (!h.env || h.env->empty())
    co_return Error{ErrorCode::kMissingHeader, "header 'fl-api-env' is required"};

  const auto parts = ParseApiToken(*h.token);
  if (!parts) co_return unauthenticated;
  const std::string token_id = parts->id;
  auto record = co_await tenants.Token(token_id);
  if (!record) co_return record.error();
  // Hash the presented secret even when the id is unknown, so timing does not reveal ids.
  const std::string presented = crypto::Sha256(parts->secret);
  const std::string expected =
      *record ? (*record)->secret_hash : std::string(presented.size(), '\0');
  const bool secret_ok = crypto::ConstantTimeEquals(presented, expected);
  if (!*record || !secret_ok || (*record)->revoked || (*record)->org_id != *h.org)
    co_return unauthenticated;

  const auto& token = **record;
  const std::string org = *h.org;
  const std::string env = *h.env;
  auto env_exists = co_await tenants.HasEnvironment(org, env);
  if (!env_exists) co_return env_exists.error();
  if (!*env_exists)
    co_return Error{ErrorCode::kForbidden,
                    "environment '" + env + "' does not exist in this organization"};
  if (!token.environments.empty() && std::find(token.environments.begin(), token.environments.end(),
                                               env) == token.environments.end()) {
    co_return Error{ErrorCode::kForbidden, "this token is not valid for environment '" + env + "'"};
  }
  co_return Caller{org, env, token.id};
}

boost::asio::awaitable<Result<void>> StillAdmitted(TenantDirectory& tenants, const Caller& caller) {
  auto record = co_await tenants.Token(caller.token_id);
  if (!record) co_return record.error();
  if (!*record || (*record)->revoked || (*record)->org_id != caller.org_id)
    co_return Error{ErrorCode::kUnauthenticated, "the token was revoked"};
  const auto& environments = (*record)->environments;
  if (!environments.empty() &&
      std::find(environments.begin(), environments.end(), caller.env) == environments.end()) {
    co_return Error{ErrorCode::kForbidden,
                    "the token is no longer valid for environment '" + caller.env + "'"};
  }
  co_return Result<void>{};
}

boost::asio::awaitable<Result<void>> Authorize(TenantDirectory& tenants, const Caller& caller,
                                               const std::string& agent_id,
                                               const std::string& permission) {
  auto grant = co_await tenants.Grant(caller.token_id, agent_id);
  if (!grant) co_return grant.error();
  if (std::find(grant->begin(), grant->end(), permission) == grant->end()) {
    co_return Error{ErrorCode::kForbidden,
                    "this token has no '" + permission + "' grant on agent '" + agent_id + "'"};
  }
  co_return Result<void>{};
}

boost::asio::awaitable<Result<bool>> MayUse(TenantDirectory& tenants, const Caller& caller,
                                            const std::string& agent_id,
                                            const std::string& permission) {
  const auto granted = co_await Authorize(tenants, caller, agent_id, permission);
  if (granted) co_return true;
  if (IsServiceFailure(granted.error())) co_return granted.error();
  co_return false;
}

boost::asio::awaitable<Result<void>> AuthorizeMetadataCall(TenantDirectory& tenants,
                                                           const Caller& caller,
                                                           const GatewayCall& call) {
  auto grant = co_await tenants.EnvironmentGrant(caller.token_id, caller.env);
  if (!grant) co_return grant.error();
  if (auto missing = gateway::MissingMetadataPermission(*grant, call)) {
    co_return Error{ErrorCode::kForbidden,
                    "this token has no '" + *missing + "' grant on environment '" + caller.env +
                        "' (PUT /admin/v1/orgs/{org}/environments/{env}/grants)"};
  }
  co_return Result<void>{};
}

}  // namespace agentgate
