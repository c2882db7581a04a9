// The operator's OAuth clients (docs/mcp.md, OAuth): a machine client of the built-in
// authorization server acts as the API token it is bound to, in one environment.
#include "app/admin/admin_service.hpp"
#include "crypto/crypto.hpp"
#include "domain/resource_ids.hpp"

#include <algorithm>

namespace agentgate {

namespace asio = boost::asio;

asio::awaitable<Result<IssuedOAuthClient>> AdminService::CreateOAuthClient(
    std::string org_id, std::string env, CreateOAuthClientCommand cmd) {
  if (!master_key_) {
    co_return Error{ErrorCode::kUnavailable,
                    "no master key is configured (secrets.master_key_env); the authorization "
                    "server's signing keys cannot be stored, so its clients could get no token"};
  }
  AG_CO_TRYV(co_await RequireEnvironment(org_id, env));
  AG_CO_TRY(const auto token,
            co_await store_.Run([&](Store& s) { return s.GetToken(cmd.token_id); }));
  if (!token || token->org_id != org_id)
    co_return InvalidField("token_id", "no such token in this organization");
  if (token->revoked) co_return InvalidField("token_id", "the token is revoked");
  const auto& envs = token->environments;
  if (!envs.empty() && std::find(envs.begin(), envs.end(), env) == envs.end())
    co_return InvalidField("token_id", "the token may not use environment '" + env + "'");
  IssuedOAuthClient issued;
  issued.secret = ids::Make(ids::kOAuthClientSecret, crypto::RandomBase64Url(32));
  issued.record = OAuthClientRecord{ids::Make(ids::kOAuthClient, crypto::RandomHex(8)),
                                    org_id,
                                    env,
                                    cmd.token_id,
                                    cmd.name,
                                    crypto::Sha256(issued.secret),
                                    clock_.NowMs()};
  AG_CO_TRYV(co_await store_.Run([&](Store& s) { return s.CreateOAuthClient(issued.record); }));
  issued.record.secret_hash.clear();  // the secret is shown once; its hash stays in the store
  co_return issued;
}

asio::awaitable<Result<std::vector<OAuthClientRecord>>> AdminService::ListOAuthClients(
    std::string org_id, std::string env) {
  AG_CO_TRYV(co_await RequireEnvironment(org_id, env));
  co_return co_await store_.Run(
      [&](Store& s) { return s.ListOAuthClients(org_id, env, kMaxListedOAuthClients); });
}

asio::awaitable<Result<void>> AdminService::RevokeOAuthClient(std::string org_id, std::string env,
                                                              std::string client_id) {
  AG_CO_TRY(const bool deleted, co_await store_.Run([&](Store& s) {
    return s.DeleteOAuthClient(org_id, env, client_id);
  }));
  tenants_.Invalidate();
  if (!deleted) co_return Error(ErrorCode::kNotFound, "OAuth client '" + client_id + "' not found");
  co_return Result<void>{};
}

}  // namespace agentgate
