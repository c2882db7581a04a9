#pragma once
// The agent versions deployed per environment, parsed once: versions are immutable, so a parsed
// config, its safety checker and its resource index are cached by (org, agent, version).

#include "app/access/authenticate.hpp"
#include "app/access/tenant_directory.hpp"
#include "domain/admin/agent_config.hpp"
#include "domain/agent/resource_search.hpp"
#include "domain/agent/safety.hpp"

#include <map>
#include <memory>
#include <mutex>
#include <string>

namespace agentgate {

struct LoadedAgent {
  LoadedAgent(int v, AgentConfig c, std::int64_t created_ms = 0)
      : version(v),
        created_at_ms(created_ms),
        config(std::move(c)),
        safety(config.safety),
        resources(config.resources) {}
  int version;
  std::int64_t created_at_ms;  // when the version was made
  AgentConfig config;
  SafetyChecker safety;
  ResourceIndex resources;  // points into config.resources: never moved
};

class AgentCatalog {
 public:
  // Parsed versions kept at most; past that the cache starts again (versions are re-read).
  static constexpr std::size_t kMaxParsed = 4096;

  AgentCatalog(StoreRunner& store, TenantDirectory& tenants) : store_(store), tenants_(tenants) {}

  // The version deployed in `env`; kAgentNotFound when none is.
  boost::asio::awaitable<Result<std::shared_ptr<const LoadedAgent>>> Deployed(
      const std::string& org_id, const std::string& agent_id, const std::string& env);

  // One version of the agent, deployed or not (a paused run goes on with the version it began
  // with).
  boost::asio::awaitable<Result<std::shared_ptr<const LoadedAgent>>> Version(
      const std::string& org_id, const std::string& agent_id, int version);

  struct ChatAgent {
    std::string agent_id;
    std::shared_ptr<const LoadedAgent> agent;
  };
  // The agents the caller's token may chat with in its environment, by id (read from the store
  // each time: a grant revoked anywhere is gone from the next list).
  boost::asio::awaitable<Result<std::vector<ChatAgent>>> ChatAgents(const Caller& caller);

 private:
  Result<std::shared_ptr<const LoadedAgent>> Parsed(const AgentVersionRecord& record);

  StoreRunner& store_;
  TenantDirectory& tenants_;
  std::mutex mutex_;
  std::map<std::string, std::shared_ptr<const LoadedAgent>> cache_;
};

}  // namespace agentgate
