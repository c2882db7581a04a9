#include "app/admin/admin_service.hpp"

#include "app/seal_contexts.hpp"
#include "domain/resource_ids.hpp"
#include "domain/runs/webhook_rules.hpp"

#include "domain/admin/names.hpp"
#include "domain/auth/api_token.hpp"
#include "domain/governance/governance.hpp"
#include "domain/json_text.hpp"

#include <algorithm>
#include <limits>

namespace agentgate {

namespace asio = boost::asio;

// Each run end is one request per webhook of its environment: a bound on that fan-out.
constexpr std::size_t kMaxWebhooksPerEnvironment = 16;

asio::awaitable<Result<OrgRecord>> AdminService::RequireOrg(const std::string& org_id) {
  auto org = co_await store_.Run([&](Store& s) { return s.GetOrg(org_id); });
  if (!org) co_return org.error();
  if (!*org) co_return Error{ErrorCode::kNotFound, "organization '" + org_id + "' not found"};
  co_return std::move(**org);
}

asio::awaitable<Result<void>> AdminService::RequireEnvironment(const std::string& org_id,
                                                               const std::string& env) {
  auto exists = co_await store_.Run([&](Store& s) { return s.HasEnvironment(org_id, env); });
  if (!exists) co_return exists.error();
  if (!*exists)
    co_return Error{ErrorCode::kNotFound,
                    "environment '" + env + "' not found in organization '" + org_id + "'"};
  co_return Result<void>{};
}

asio::awaitable<Result<void>> AdminService::RequireAgent(const std::string& org_id,
                                                         const std::string& agent_id) {
  // Every agent has version 1 from its creation on.
  auto first =
      co_await store_.Run([&](Store& s) { return s.GetAgentVersion(org_id, agent_id, 1); });
  if (!first) co_return first.error();
  if (!*first) co_return Error{ErrorCode::kAgentNotFound, "agent '" + agent_id + "' not found"};
  co_return Result<void>{};
}

ProviderCatalog ProviderCatalog::FromConfig(const Config& config) {
  ProviderCatalog catalog;
  for (const auto& p : config.providers) catalog.kinds[p.name] = p.kind;
  catalog.prices = config.prices;
  return catalog;
}

Result<void> ProviderCatalog::CheckOne(const std::string& provider, const std::string& name,
                                       const std::string& path) const {
  auto kind = kinds.find(provider);
  if (kind == kinds.end())
    return InvalidField(path + ".provider", "'" + provider + "' is not a configured provider");
  if (kind->second != "offline" && !prices.contains(provider + "/" + name)) {
    return InvalidField(path + ".name", "'" + provider + "/" + name +
                                            "' has no price; add [prices.\"" + provider + "/" +
                                            name + "\"] to the server's config");
  }
  return {};
}

Result<void> ProviderCatalog::Check(const ModelSettings& model) const {
  AG_TRYV(CheckOne(model.provider, model.name, "config.model"));
  for (std::size_t i = 0; i < model.fallbacks.size(); ++i) {
    const auto& fallback = model.fallbacks[i];
    AG_TRYV(CheckOne(fallback.provider, fallback.name,
                     "config.model.fallbacks[" + std::to_string(i) + "]"));
  }
  return {};
}

Result<void> AdminService::CheckServable(const AgentConfig& config) const {
  AG_TRYV(providers_.Check(config.model));
  return CheckHeaderEnvs(config, header_envs_);
}

asio::awaitable<Result<OrgRecord>> AdminService::CreateOrg(CreateOrgCommand cmd) {
  OrgRecord org{cmd.id.value_or(ids::Make(ids::kOrg, crypto::RandomHex(6))), cmd.name,
                cmd.monthly_spend_limit_usd, clock_.NowMs()};
  auto created = co_await store_.Run([&](Store& s) { return s.CreateOrg(org); });
  tenants_.Invalidate();
  if (!created) {
    if (created.error().code == ErrorCode::kConflict) {
      co_return Error{ErrorCode::kConflict, "organization '" + org.id + "' already exists"};
    }
    co_return created.error();
  }
  co_return org;
}

asio::awaitable<Result<OrgRecord>> AdminService::SetOrgLimit(std::string org_id,
                                                             SetOrgLimitCommand cmd) {
  auto updated = co_await store_.Run(
      [&](Store& s) { return s.SetOrgSpendLimit(org_id, cmd.monthly_spend_limit_usd); });
  tenants_.Invalidate();
  spend_.ForgetOrg(org_id);  // the next call leases under the new limit
  if (!updated) co_return updated.error();
  co_return co_await RequireOrg(org_id);
}

asio::awaitable<Result<void>> AdminService::CreateEnvironment(std::string org_id, std::string env) {
  if (auto org = co_await RequireOrg(org_id); !org) co_return org.error();
  auto created = co_await store_.Run([&](Store& s) { return s.CreateEnvironment(org_id, env); });
  tenants_.Invalidate();
  if (!created && created.error().code == ErrorCode::kConflict) {
    co_return Error{ErrorCode::kConflict, "environment '" + env + "' already exists"};
  }
  co_return created;
}

asio::awaitable<Result<IssuedToken>> AdminService::CreateToken(std::string org_id,
                                                               CreateTokenCommand cmd) {
  if (auto org = co_await RequireOrg(org_id); !org) co_return org.error();
  for (std::size_t i = 0; i < cmd.environments.size(); ++i) {
    if (auto env = co_await RequireEnvironment(org_id, cmd.environments[i]); !env) {
      co_return InvalidField("environments[" + std::to_string(i) + "]", env.error().message);
    }
  }
  const ApiTokenParts parts{crypto::RandomHex(8), crypto::RandomBase64Url(32)};
  TokenRecord record{parts.id,         org_id,         cmd.name, crypto::Sha256(parts.secret),
                     cmd.environments, clock_.NowMs(), false};
  auto created = co_await store_.Run([&](Store& s) { return s.CreateToken(record); });
  tenants_.Invalidate();
  if (!created) co_return created.error();
  IssuedToken issued{record, FormatApiToken(parts), {}};
  std::vector<std::string> environments = cmd.environments;
  if (environments.empty()) {
    AG_CO_TRY(environments,
              co_await store_.Run([&](Store& s) { return s.ListEnvironments(org_id); }));
  }
  for (const auto& env : environments)
    issued.api_keys.emplace_back(env, WrapApiKey(ApiKeyParts{org_id, env, issued.token}));
  co_return issued;
}

asio::awaitable<Result<void>> AdminService::RevokeToken(std::string org_id, std::string token_id) {
  auto revoked = co_await store_.Run([&](Store& s) { return s.RevokeToken(org_id, token_id); });
  tenants_.Invalidate();
  if (!revoked) co_return revoked.error();
  if (!*revoked) co_return Error{ErrorCode::kNotFound, "token '" + token_id + "' not found"};
  co_return Result<void>{};
}

asio::awaitable<Result<std::string>> AdminService::CreateAgent(std::string org_id,
                                                               CreateAgentCommand cmd) {
  if (auto ok = CheckServable(cmd.config); !ok) co_return ok.error();
  if (auto org = co_await RequireOrg(org_id); !org) co_return org.error();
  AgentVersionRecord v{org_id, cmd.id.value_or(ids::Make(ids::kAgent, crypto::RandomHex(6))), 1,
                       json_text::Write(cmd.config_json), clock_.NowMs()};
  auto created = co_await store_.Run([&](Store& s) { return s.CreateAgent(v); });
  if (!created) {
    if (created.error().code == ErrorCode::kConflict)
      co_return Error{ErrorCode::kConflict, "agent '" + v.agent_id + "' already exists"};
    co_return created.error();
  }
  co_return v.agent_id;
}

asio::awaitable<Result<int>> AdminService::AddAgentVersion(std::string org_id, std::string agent_id,
                                                           CreateAgentCommand cmd) {
  if (auto ok = CheckServable(cmd.config); !ok) co_return ok.error();
  const std::string config = json_text::Write(cmd.config_json);
  const std::int64_t now = clock_.NowMs();
  auto version = co_await store_.Run(
      [&](Store& s) { return s.AddAgentVersion(org_id, agent_id, config, now); });
  if (!version) co_return version.error();
  if (!*version) co_return Error{ErrorCode::kAgentNotFound, "agent '" + agent_id + "' not found"};
  co_return **version;
}

asio::awaitable<Result<void>> AdminService::SetDeployment(std::string org_id, std::string agent_id,
                                                          std::string env,
                                                          SetDeploymentCommand cmd) {
  if (auto agent = co_await RequireAgent(org_id, agent_id); !agent) co_return agent.error();
  if (auto e = co_await RequireEnvironment(org_id, env); !e) co_return e.error();
  auto set = co_await store_.Run(
      [&](Store& s) { return s.SetDeployment(org_id, agent_id, env, cmd.version); });
  tenants_.Invalidate();
  if (!set && set.error().code == ErrorCode::kNotFound) {
    co_return InvalidField(
        "version", "agent '" + agent_id + "' has no version " + std::to_string(cmd.version));
  }
  co_return set;
}

asio::awaitable<Result<void>> AdminService::SetA2aDiscoverable(std::string org_id,
                                                               std::string agent_id,
                                                               std::string env, bool discoverable) {
  if (auto agent = co_await RequireAgent(org_id, agent_id); !agent) co_return agent.error();
  AG_CO_TRY(const bool set, co_await store_.Run([&](Store& s) {
    return s.SetA2aDiscoverable(org_id, agent_id, env, discoverable);
  }));
  tenants_.Invalidate();
  if (!set) {
    co_return Error(ErrorCode::kNotFound,
                    "agent '" + agent_id + "' is not deployed in environment '" + env + "'");
  }
  co_return Result<void>();
}

asio::awaitable<Result<bool>> AdminService::A2aDiscoverable(std::string org_id,
                                                            std::string agent_id, std::string env) {
  if (auto agent = co_await RequireAgent(org_id, agent_id); !agent) co_return agent.error();
  AG_CO_TRY(const auto deployed,
            co_await store_.Run([&](Store& s) { return s.GetDeployment(org_id, agent_id, env); }));
  if (!deployed) {
    co_return Error(ErrorCode::kNotFound,
                    "agent '" + agent_id + "' is not deployed in environment '" + env + "'");
  }
  co_return co_await store_.Run(
      [&](Store& s) { return s.IsA2aDiscoverable(org_id, agent_id, env); });
}

asio::awaitable<Result<void>> AdminService::CreateInstance(std::string org_id, std::string agent_id,
                                                           CreateInstanceCommand cmd) {
  if (auto agent = co_await RequireAgent(org_id, agent_id); !agent) co_return agent.error();
  InstanceRecord record{org_id, agent_id, cmd.instance_id, cmd.instructions};
  auto created = co_await store_.Run([&](Store& s) { return s.CreateInstance(record); });
  if (!created && created.error().code == ErrorCode::kConflict) {
    co_return Error{ErrorCode::kConflict, "instance '" + cmd.instance_id + "' already exists"};
  }
  co_return created;
}

asio::awaitable<Result<void>> AdminService::PutGrant(std::string org_id, PutGrantCommand cmd) {
  auto token = co_await store_.Run([&](Store& s) { return s.GetToken(cmd.token_id); });
  if (!token) co_return token.error();
  if (!*token || (*token)->org_id != org_id)
    co_return InvalidField("token_id", "no such token in this organization");
  if (auto agent = co_await RequireAgent(org_id, cmd.agent_id); !agent) {
    co_return InvalidField("agent_id", agent.error().message);
  }
  auto put = co_await store_.Run(
      [&](Store& s) { return s.PutGrant(org_id, cmd.token_id, cmd.agent_id, cmd.permissions); });
  tenants_.Invalidate();
  co_return put;
}

asio::awaitable<Result<void>> AdminService::PutEnvironmentGrant(std::string org_id, std::string env,
                                                                PutEnvironmentGrantCommand cmd) {
  AG_CO_TRYV(co_await RequireEnvironment(org_id, env));
  auto token = co_await store_.Run([&](Store& s) { return s.GetToken(cmd.token_id); });
  if (!token) co_return token.error();
  if (!*token || (*token)->org_id != org_id)
    co_return InvalidField("token_id", "no such token in this organization");
  auto put = co_await store_.Run(
      [&](Store& s) { return s.PutEnvironmentGrant(org_id, env, cmd.token_id, cmd.permissions); });
  tenants_.Invalidate();
  co_return put;
}

asio::awaitable<Result<std::vector<EnvironmentGrantRecord>>> AdminService::ListEnvironmentGrants(
    std::string org_id, std::string env) {
  AG_CO_TRYV(co_await RequireEnvironment(org_id, env));
  co_return co_await store_.Run(
      [&](Store& s) { return s.ListEnvironmentGrants(org_id, env, kMaxListedEnvironmentGrants); });
}

asio::awaitable<Result<void>> AdminService::PutCrmCredentials(std::string org_id, std::string env,
                                                              CrmCredentials creds) {
  AG_CO_TRYV(CheckCrmUrls(creds, crm_allow_http_));
  if (!master_key_) {
    co_return Error{
        ErrorCode::kUnavailable,
        "no master key is configured (secrets.master_key_env); CRM secrets cannot be stored"};
  }
  if (auto e = co_await RequireEnvironment(org_id, env); !e) co_return e.error();
  CrmCredentialRecord record{
      org_id, env,
      crypto::Seal(*master_key_, SerializeCrmCredentials(creds), CrmSealContext(org_id, env)),
      clock_.NowMs()};
  AG_CO_TRYV(co_await store_.Run([&](Store& s) { return s.PutCrmCredential(record); }));
  tenants_.Invalidate();  // the next gateway call on this server uses them
  co_return Result<void>{};
}

asio::awaitable<Result<void>> AdminService::PutToolSecret(std::string org_id, std::string name,
                                                          std::string value) {
  if (!names::IsValidId(name)) co_return InvalidField("name", "must match [A-Za-z0-9_-]{1,64}");
  if (value.empty() || value.size() > 8192)
    co_return InvalidField("value", "must be 1-8192 characters");
  if (value.find_first_of("\r\n") != std::string::npos || value.find('\0') != std::string::npos)
    co_return InvalidField("value", "must not contain line breaks (it is sent as a header value)");
  if (!master_key_) {
    co_return Error{
        ErrorCode::kUnavailable,
        "no master key is configured (secrets.master_key_env); tool secrets cannot be stored"};
  }
  if (auto org = co_await RequireOrg(org_id); !org) co_return org.error();
  const ToolSecretRecord record{
      org_id, name, crypto::Seal(*master_key_, value, ToolSecretSealContext(org_id, name)),
      clock_.NowMs()};
  co_return co_await store_.Run([&](Store& s) { return s.PutToolSecret(record); });
}

asio::awaitable<Result<void>> AdminService::DeleteToolSecret(std::string org_id, std::string name) {
  if (auto org = co_await RequireOrg(org_id); !org) co_return org.error();
  AG_CO_TRY(bool deleted,
            co_await store_.Run([&](Store& s) { return s.DeleteToolSecret(org_id, name); }));
  if (!deleted) co_return Error(ErrorCode::kNotFound, "no tool secret named '" + name + "'");
  co_return Result<void>{};
}

asio::awaitable<Result<std::vector<ToolSecretRecord>>> AdminService::ListToolSecrets(
    std::string org_id) {
  if (auto org = co_await RequireOrg(org_id); !org) co_return org.error();
  co_return co_await store_.Run([&](Store& s) { return s.ListToolSecrets(org_id); });
}

asio::awaitable<Result<AdminService::CreatedWebhook>> AdminService::CreateWebhook(
    std::string org_id, std::string env, std::string url, std::vector<std::string> events) {
  AG_CO_TRYV(webhooks::CheckUrl(url, webhooks_allow_private_));
  if (!master_key_) {
    co_return Error{
        ErrorCode::kUnavailable,
        "no master key is configured (secrets.master_key_env); webhook secrets cannot be stored"};
  }
  if (auto e = co_await RequireEnvironment(org_id, env); !e) co_return e.error();
  AG_CO_TRY(auto existing,
            co_await store_.Run([&](Store& s) { return s.ListWebhooks(org_id, env); }));
  if (existing.size() >= kMaxWebhooksPerEnvironment) {
    co_return Error(ErrorCode::kConflict, "environment '" + env + "' has " +
                                              std::to_string(kMaxWebhooksPerEnvironment) +
                                              " webhooks already; delete one first");
  }
  // Values, not a reference into `created`: GCC 12 loses a coroutine's local references across a
  // suspension (the sanitized build read garbage through one).
  const std::string secret =
      ids::Make(ids::kWebhookSecret, crypto::Base64(crypto::RandomBytes(24)));
  WebhookRecord record;
  record.id = ids::Make(ids::kWebhook, crypto::RandomHex(12));
  record.org_id = org_id;
  record.env = env;
  record.url = std::move(url);
  record.events = std::move(events);
  record.created_at_ms = clock_.NowMs();
  record.sealed_secret =
      crypto::Seal(*master_key_, secret, WebhookSealContext(org_id, env, record.id));
  AG_CO_TRYV(co_await store_.Run([&](Store& s) { return s.CreateWebhook(record); }));
  CreatedWebhook created{std::move(record), secret};
  co_return created;
}

asio::awaitable<Result<std::vector<WebhookRecord>>> AdminService::ListWebhooks(std::string org_id,
                                                                               std::string env) {
  if (auto e = co_await RequireEnvironment(org_id, env); !e) co_return e.error();
  co_return co_await store_.Run([&](Store& s) { return s.ListWebhooks(org_id, env); });
}

asio::awaitable<Result<void>> AdminService::DeleteWebhook(std::string org_id, std::string env,
                                                          std::string webhook_id) {
  if (auto e = co_await RequireEnvironment(org_id, env); !e) co_return e.error();
  AG_CO_TRY(const bool deleted, co_await store_.Run([&](Store& s) {
    return s.DeleteWebhook(org_id, env, webhook_id);
  }));
  if (!deleted) co_return Error(ErrorCode::kNotFound, "no webhook '" + webhook_id + "' in " + env);
  co_return Result<void>{};
}

asio::awaitable<Result<std::vector<WebhookDelivery>>> AdminService::ListWebhookDeliveries(
    std::string org_id, std::string env, std::string webhook_id, int limit) {
  AG_CO_TRY(const auto hooks, co_await ListWebhooks(org_id, env));
  const bool found = std::any_of(hooks.begin(), hooks.end(),
                                 [&](const WebhookRecord& w) { return w.id == webhook_id; });
  if (!found) co_return Error(ErrorCode::kNotFound, "no webhook '" + webhook_id + "' in " + env);
  co_return co_await store_.Run(
      [&](Store& s) { return s.ListWebhookDeliveries(webhook_id, limit); });
}

namespace {

Result<void> CheckMemoryFilter(const MemoryFilter& filter, bool agent_required) {
  if (agent_required && !filter.agent_id) return InvalidField("agent", "is required");
  if (filter.agent_id && !names::IsValidId(*filter.agent_id))
    return InvalidField("agent", "must match [A-Za-z0-9_-]{1,64}");
  if (filter.env && !names::IsValidEnvironment(*filter.env))
    return InvalidField("env", "is not a valid environment name");
  if (filter.group_key && !filter.group_key->empty() && !names::IsValidGroupKey(*filter.group_key))
    return InvalidField("group_key",
                        "must be 1-128 of letters, digits, . _ - @ (or empty: the default group)");
  return {};
}

}  // namespace

asio::awaitable<Result<AdminService::MemoryPage>> AdminService::ListMemories(
    MemoryFilter filter, std::optional<std::int64_t> before, int limit) {
  AG_CO_TRYV(CheckMemoryFilter(filter, true));
  if (limit < 1 || limit > 1000) co_return InvalidField("limit", "must be between 1 and 1000");
  if (auto org = co_await RequireOrg(filter.org_id); !org) co_return org.error();
  const std::int64_t below = before.value_or(std::numeric_limits<std::int64_t>::max());
  AG_CO_TRY(auto memories,
            co_await store_.Run([&](Store& s) { return s.ListMemoryPage(filter, below, limit); }));
  MemoryPage page{std::move(memories), std::nullopt};
  if (static_cast<int>(page.memories.size()) == limit) page.next_before = page.memories.back().id;
  co_return page;
}

asio::awaitable<Result<std::int64_t>> AdminService::DeleteMemories(MemoryFilter filter,
                                                                   std::optional<std::int64_t> id) {
  AG_CO_TRYV(CheckMemoryFilter(filter, !id));
  if (auto org = co_await RequireOrg(filter.org_id); !org) co_return org.error();
  AG_CO_TRY(auto deleted,
            co_await store_.Run([&](Store& s) { return s.DeleteMemories(filter, id); }));
  if (id && deleted == 0)
    co_return Error(ErrorCode::kNotFound, "no memory with id " + std::to_string(*id));
  co_return deleted;
}

asio::awaitable<Result<UsageReport>> AdminService::GetUsage(std::string org_id,
                                                            std::optional<std::string> month) {
  if (month && !names::IsValidMonth(*month)) co_return InvalidField("month", "must be YYYY-MM");
  auto org = co_await RequireOrg(org_id);
  if (!org) co_return org.error();
  const std::string m = month.value_or(governance::MonthOf(clock_.NowMs()));
  auto rows = co_await store_.Run([&](Store& s) { return s.GetUsage(org_id, m); });
  if (!rows) co_return rows.error();
  co_return UsageReport{m, org->monthly_spend_limit_usd, std::move(*rows)};
}

asio::awaitable<Result<TurnRecord>> AdminService::GetTurn(std::string org_id, std::string turn_id) {
  auto turn = co_await store_.Run([&](Store& s) { return s.GetTurn(turn_id); });
  if (!turn) co_return turn.error();
  if (!*turn || (*turn)->org_id != org_id)
    co_return Error(ErrorCode::kNotFound, "turn '" + turn_id + "' not found");
  co_return std::move(**turn);
}

asio::awaitable<Result<ConversationTranscript>> AdminService::GetConversation(std::string org_id,
                                                                              std::string id) {
  auto conversation = co_await store_.Run([&](Store& s) { return s.GetConversation(id); });
  if (!conversation) co_return conversation.error();
  if (!*conversation || (*conversation)->org_id != org_id) {
    co_return Error{ErrorCode::kConversationNotFound, "conversation '" + id + "' not found"};
  }
  auto messages = co_await store_.Run([&](Store& s) { return s.LoadMessages(id); });
  if (!messages) co_return messages.error();
  auto turns = co_await store_.Run([&](Store& s) { return s.ListTurns(id); });
  if (!turns) co_return turns.error();
  co_return ConversationTranscript{std::move(**conversation), std::move(*messages),
                                   std::move(*turns)};
}

}  // namespace agentgate
