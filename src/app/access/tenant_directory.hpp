#pragma once
// The tenant reads every call makes (a token, an environment, a grant on an agent or an
// environment, a deployment, the version of an environment's CRM credentials), served from memory
// instead of the store (spend limits are not among them: an org's limit is read where spend is
// reserved, in the store's transaction). A value is used for at most kFreshForMs after the store
// read that produced it began, so a change made through another server (a revoked token or grant)
// is seen within 1 s; the admin operations of this server call Invalidate(), so a change made here
// is seen at once (SPEC §5).

#include "ports/clock.hpp"
#include "runtime/read_cache.hpp"
#include "runtime/store_runner.hpp"

#include <optional>
#include <string>
#include <vector>

namespace agentgate {

class TenantDirectory {
 public:
  static constexpr std::int64_t kFreshForMs = 1000;
  static constexpr std::size_t kCapacity = 100000;  // per kind of record

  TenantDirectory(StoreRunner& store, const Clock& clock) : store_(store), clock_(clock) {}

  boost::asio::awaitable<Result<std::optional<TokenRecord>>> Token(const std::string& token_id);
  // An OAuth client (with its secret's hash), for the token endpoint and access tokens' checks.
  boost::asio::awaitable<Result<std::optional<OAuthClientRecord>>> OAuthClient(
      const std::string& client_id);
  boost::asio::awaitable<Result<bool>> HasEnvironment(const std::string& org_id,
                                                      const std::string& env);
  boost::asio::awaitable<Result<std::vector<std::string>>> Grant(const std::string& token_id,
                                                                 const std::string& agent_id);
  // The token's permissions on a whole environment (the metadata gateway's).
  boost::asio::awaitable<Result<std::vector<std::string>>> EnvironmentGrant(
      const std::string& token_id, const std::string& env);
  boost::asio::awaitable<Result<std::optional<int>>> Deployment(const std::string& org_id,
                                                                const std::string& agent_id,
                                                                const std::string& env);
  // Whether the agent's A2A card is read anonymously there (docs/a2a.md): cached as the rest, so
  // strangers' card reads cost no store read past the first each second.
  boost::asio::awaitable<Result<bool>> A2aDiscoverable(const std::string& org_id,
                                                       const std::string& agent_id,
                                                       const std::string& env);
  // The version of the (org, env) CRM credentials in force; nullopt when none are set.
  boost::asio::awaitable<Result<std::optional<std::int64_t>>> CrmCredentialVersion(
      const std::string& org_id, const std::string& env);

  // Every value read before now is stale: call after any tenant write.
  void Invalidate();

  // What the caches hold, in bytes (/metrics): bounded whatever ids strangers send.
  std::size_t CachedBytes() const;

 private:
  template <class Value, class Read>
  boost::asio::awaitable<Result<Value>> ReadThrough(ReadCache<Value>& cache, const std::string& key,
                                                    const Read& read);

  StoreRunner& store_;
  const Clock& clock_;  // freshness is on its steady time: a wall-clock step keeps nothing longer
  ReadCache<std::optional<TokenRecord>> tokens_{kFreshForMs, kCapacity};
  ReadCache<std::optional<OAuthClientRecord>> oauth_clients_{kFreshForMs, kCapacity};
  ReadCache<bool> environments_{kFreshForMs, kCapacity};
  ReadCache<std::vector<std::string>> grants_{kFreshForMs, kCapacity};
  ReadCache<std::vector<std::string>> environment_grants_{kFreshForMs, kCapacity};
  ReadCache<std::optional<int>> deployments_{kFreshForMs, kCapacity};
  ReadCache<bool> discoverable_{kFreshForMs, kCapacity};
  ReadCache<std::optional<std::int64_t>> crm_versions_{kFreshForMs, kCapacity};
};

}  // namespace agentgate
