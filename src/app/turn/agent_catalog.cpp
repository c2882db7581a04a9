#include "app/turn/agent_catalog.hpp"

#include <boost/json/parse.hpp>

namespace agentgate {

boost::asio::awaitable<Result<std::shared_ptr<const LoadedAgent>>> AgentCatalog::Deployed(
    const std::string& org_id, const std::string& agent_id, const std::string& env) {
  auto deployed = co_await tenants_.Deployment(org_id, agent_id, env);
  if (!deployed) co_return deployed.error();
  if (!*deployed) {
    co_return Error(ErrorCode::kAgentNotFound,
                    "agent '" + agent_id + "' is not deployed in environment '" + env + "'");
  }
  co_return co_await Version(org_id, agent_id, **deployed);
}

boost::asio::awaitable<Result<std::shared_ptr<const LoadedAgent>>> AgentCatalog::Version(
    const std::string& org_id, const std::string& agent_id, int version) {
  {
    const std::string key = org_id + "\n" + agent_id + "\n" + std::to_string(version);
    std::lock_guard lock(mutex_);
    if (auto it = cache_.find(key); it != cache_.end()) co_return it->second;
  }
  auto record =
      co_await store_.Run([&](Store& s) { return s.GetAgentVersion(org_id, agent_id, version); });
  if (!record) co_return record.error();
  if (!*record) co_return Error(ErrorCode::kAgentNotFound, "agent '" + agent_id + "' not found");
  co_return Parsed(**record);
}

boost::asio::awaitable<Result<std::vector<AgentCatalog::ChatAgent>>> AgentCatalog::ChatAgents(
    const Caller& caller) {
  auto records = co_await store_.Run(
      [&](Store& s) { return s.ListChatAgents(caller.org_id, caller.env, caller.token_id); });
  if (!records) co_return records.error();
  std::vector<ChatAgent> out;
  for (const auto& record : *records) {
    auto loaded = Parsed(record);
    if (!loaded) co_return loaded.error();
    out.push_back(ChatAgent{record.agent_id, std::move(*loaded)});
  }
  co_return out;
}

Result<std::shared_ptr<const LoadedAgent>> AgentCatalog::Parsed(const AgentVersionRecord& record) {
  const std::string key =
      record.org_id + "\n" + record.agent_id + "\n" + std::to_string(record.version);
  {
    std::lock_guard lock(mutex_);
    if (auto it = cache_.find(key); it != cache_.end()) return it->second;
  }
  boost::system::error_code ec;
  const auto json = boost::json::parse(record.config_json, ec);
  if (ec) return Error(ErrorCode::kInternal, "stored agent config is not JSON");
  auto config = ParseAgentConfig(json);
  if (!config)
    return Error(ErrorCode::kInternal, "stored agent config is invalid: " + config.error().message);
  auto loaded =
      std::make_shared<const LoadedAgent>(record.version, std::move(*config), record.created_at_ms);
  std::lock_guard lock(mutex_);
  if (cache_.size() >= kMaxParsed) cache_.clear();
  cache_.emplace(key, loaded);
  return loaded;
}

}  // namespace agentgate
