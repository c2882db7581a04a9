#include "app/access/tenant_directory.hpp"

#include <chrono>

namespace agentgate {
namespace {

namespace asio = boost::asio;

std::int64_t SteadyMs(const Clock& clock) {
  return std::chrono::duration_cast<std::chrono::milliseconds>(clock.SteadyNow().time_since_epoch())
      .count();
}

std::string Key(std::string_view a, std::string_view b, std::string_view c = {}) {
  std::string key;
  key.append(a).append("\n").append(b).append("\n").append(c);
  return key;
}

}  // namespace

template <class Value, class Read>
asio::awaitable<Result<Value>> TenantDirectory::ReadThrough(ReadCache<Value>& cache,
                                                            const std::string& key,
                                                            const Read& read) {
  const std::int64_t now = SteadyMs(clock_);
  if (auto hit = cache.Get(key, now)) co_return std::move(*hit);
  const auto ticket = cache.BeginRead(now);
  Result<Value> value = co_await store_.Run(read);
  if (value) cache.Put(key, *value, ticket);
  co_return value;
}

asio::awaitable<Result<std::optional<TokenRecord>>> TenantDirectory::Token(
    const std::string& token_id) {
  co_return co_await ReadThrough(tokens_, token_id, [&](Store& s) { return s.GetToken(token_id); });
}

asio::awaitable<Result<std::optional<OAuthClientRecord>>> TenantDirectory::OAuthClient(
    const std::string& client_id) {
  co_return co_await ReadThrough(oauth_clients_, client_id,
                                 [&](Store& s) { return s.GetOAuthClient(client_id); });
}

asio::awaitable<Result<bool>> TenantDirectory::HasEnvironment(const std::string& org_id,
                                                              const std::string& env) {
  const std::string key = Key(org_id, env);
  co_return co_await ReadThrough(environments_, key,
                                 [&](Store& s) { return s.HasEnvironment(org_id, env); });
}

asio::awaitable<Result<std::vector<std::string>>> TenantDirectory::Grant(
    const std::string& token_id, const std::string& agent_id) {
  const std::string key = Key(token_id, agent_id);
  co_return co_await ReadThrough(grants_, key,
                                 [&](Store& s) { return s.GetGrant(token_id, agent_id); });
}

asio::awaitable<Result<std::vector<std::string>>> TenantDirectory::EnvironmentGrant(
    const std::string& token_id, const std::string& env) {
  const std::string key = Key(token_id, env);
  co_return co_await ReadThrough(environment_grants_, key,
                                 [&](Store& s) { return s.GetEnvironmentGrant(token_id, env); });
}

asio::awaitable<Result<std::optional<int>>> TenantDirectory::Deployment(const std::string& org_id,
                                                                        const std::string& agent_id,
                                                                        const std::string& env) {
  const std::string key = Key(org_id, agent_id, env);
  co_return co_await ReadThrough(deployments_, key,
                                 [&](Store& s) { return s.GetDeployment(org_id, agent_id, env); });
}

asio::awaitable<Result<bool>> TenantDirectory::A2aDiscoverable(const std::string& org_id,
                                                               const std::string& agent_id,
                                                               const std::string& env) {
  const std::string key = Key(org_id, agent_id, env);
  co_return co_await ReadThrough(
      discoverable_, key, [&](Store& s) { return s.IsA2aDiscoverable(org_id, agent_id, env); });
}

asio::awaitable<Result<std::optional<std::int64_t>>> TenantDirectory::CrmCredentialVersion(
    const std::string& org_id, const std::string& env) {
  const std::string key = Key(org_id, env);
  co_return co_await ReadThrough(crm_versions_, key,
                                 [&](Store& s) { return s.GetCrmCredentialVersion(org_id, env); });
}

void TenantDirectory::Invalidate() {
  tokens_.InvalidateAll();
  oauth_clients_.InvalidateAll();
  environments_.InvalidateAll();
  grants_.InvalidateAll();
  environment_grants_.InvalidateAll();
  deployments_.InvalidateAll();
  discoverable_.InvalidateAll();
  crm_versions_.InvalidateAll();
}

std::size_t TenantDirectory::CachedBytes() const {
  return tokens_.bytes() + oauth_clients_.bytes() + environments_.bytes() + grants_.bytes() +
         environment_grants_.bytes() + deployments_.bytes() + discoverable_.bytes() +
         crm_versions_.bytes();
}

}  // namespace agentgate
