#pragma once
// The operator's use cases behind /admin/v1 (SPEC §4): each checks what needs the store
// (existence, conflicts) and writes one transaction.

#include "app/access/tenant_directory.hpp"
#include "config/config.hpp"
#include "crypto/crypto.hpp"
#include "domain/admin/admin_requests.hpp"
#include "ports/clock.hpp"
#include "runtime/spend_ledger.hpp"

#include <optional>
#include <set>
#include <string>

namespace agentgate {

// The configured providers and prices. A model on a paid provider needs a price: without one it
// is a configuration error, never a free model. The offline provider is free.
struct ProviderCatalog {
  std::map<std::string, std::string> kinds;  // provider name -> kind
  std::map<std::string, Price> prices;       // "provider/model"

  static ProviderCatalog FromConfig(const Config& config);
  Result<void> Check(const ModelSettings& model) const;  // errors name config.model.*

 private:
  Result<void> CheckOne(const std::string& provider, const std::string& name,
                        const std::string& path) const;
};

// A registered OAuth client and its secret, shown this once (only its hash is kept).
struct IssuedOAuthClient {
  OAuthClientRecord record;
  std::string secret;
};

struct IssuedToken {
  TokenRecord record;
  std::string token;  // shown once
  // The same token as an API key per environment it may use (its own, else every environment of
  // its organization when it was made): (env, key), shown once with it.
  std::vector<std::pair<std::string, std::string>> api_keys;
};

struct UsageReport {
  std::string month;
  std::optional<double> org_limit_usd;
  std::vector<UsageRow> agents;
};

struct ConversationTranscript {
  ConversationRecord conversation;
  std::vector<MessageRecord> messages;
  std::vector<TurnRecord> turns;
};

class AdminService {
 public:
  // `crm_allow_http`: [crm] allow_http, plain-http CRM URLs (test orgs only). `tenants` is told
  // of every write, so this server sees a revoked token or grant at once. `header_envs`: the
  // variables an agent's tool headers may read (none by default).
  AdminService(StoreRunner& store, TenantDirectory& tenants, SpendLedger& spend, const Clock& clock,
               ProviderCatalog providers, std::optional<crypto::MasterKey> master_key,
               bool crm_allow_http, bool webhooks_allow_private = false,
               HeaderEnvPolicy header_envs = {})
      : store_(store),
        tenants_(tenants),
        spend_(spend),
        clock_(clock),
        providers_(std::move(providers)),
        header_envs_(std::move(header_envs)),
        master_key_(master_key),
        crm_allow_http_(crm_allow_http),
        webhooks_allow_private_(webhooks_allow_private) {}

  boost::asio::awaitable<Result<OrgRecord>> CreateOrg(CreateOrgCommand cmd);
  // What an operator browses (lists are bounded by `limit`; orgs page by id after `after_id`).
  boost::asio::awaitable<Result<std::vector<OrgRecord>>> ListOrgs(std::string after_id, int limit);
  struct OrgDetail {
    OrgRecord org;
    std::vector<std::string> environments;
  };
  boost::asio::awaitable<Result<OrgDetail>> GetOrg(std::string org_id);
  boost::asio::awaitable<Result<std::vector<TokenRecord>>> ListTokens(std::string org_id,
                                                                      int limit);
  struct AgentListing {
    AgentVersionRecord latest;
    std::vector<DeploymentRecord> deployments;
  };
  boost::asio::awaitable<Result<std::vector<AgentListing>>> ListAgents(std::string org_id,
                                                                       int limit);
  struct AgentDetail {
    std::vector<AgentVersionRecord> versions;  // newest first, at most kMaxListedVersions
    std::vector<DeploymentRecord> deployments;
    std::vector<GrantRecord> grants;
    std::vector<InstanceRecord> instances;
  };
  static constexpr int kMaxListedVersions = 100;
  static constexpr int kMaxListedGrants = 1000;
  static constexpr int kMaxListedInstances = 1000;
  boost::asio::awaitable<Result<AgentDetail>> GetAgent(std::string org_id, std::string agent_id);
  boost::asio::awaitable<Result<std::vector<ConversationListing>>> ListConversations(
      ConversationFilter filter, int limit);
  // Every org's spend this month against its limit, and the last `days` UTC days (today
  // included) of turns by stop reason, turn durations and gateway calls by status.
  struct Overview {
    std::string month;
    std::vector<OrgRecord> orgs;  // by id, at most kMaxOverviewOrgs
    std::vector<OrgSpend> spend;  // by org id, orgs that spent or reserved this month
    std::int64_t first_day = 0;   // days since the Unix epoch
    std::vector<DailyCount> turns_per_day;
    DurationPercentiles durations;
    std::vector<DailyCount> gateway_calls_per_day;
  };
  static constexpr int kMaxOverviewOrgs = 1000;
  boost::asio::awaitable<Result<Overview>> GetOverview(int days);
  // What an environment's CRM credentials are, never their secrets: absent, or their kind and
  // URL (when the master key opens them), when they were set and how the last refresh went.
  struct CrmStatus {
    std::optional<CrmCredentialStatus> status;
    std::string kind;  // "refresh_token" or "static_session"; "" when they cannot be opened
    std::string url;   // the login URL, or a static session's instance URL
  };
  boost::asio::awaitable<Result<CrmStatus>> GetCrmStatus(std::string org_id, std::string env);
  boost::asio::awaitable<Result<OrgRecord>> SetOrgLimit(std::string org_id, SetOrgLimitCommand cmd);
  boost::asio::awaitable<Result<void>> CreateEnvironment(std::string org_id, std::string env);
  boost::asio::awaitable<Result<IssuedToken>> CreateToken(std::string org_id,
                                                          CreateTokenCommand cmd);
  boost::asio::awaitable<Result<void>> RevokeToken(std::string org_id, std::string token_id);
  // OAuth clients (docs/mcp.md, OAuth; admin_oauth_clients.cpp): registered for an environment,
  // bound to an API token of the organization that may use it (400 naming token_id otherwise);
  // listed without secrets; revoked by deleting them (404 for none).
  boost::asio::awaitable<Result<IssuedOAuthClient>> CreateOAuthClient(std::string org_id,
                                                                      std::string env,
                                                                      CreateOAuthClientCommand cmd);
  boost::asio::awaitable<Result<std::vector<OAuthClientRecord>>> ListOAuthClients(
      std::string org_id, std::string env);
  static constexpr int kMaxListedOAuthClients = 1000;
  boost::asio::awaitable<Result<void>> RevokeOAuthClient(std::string org_id, std::string env,
                                                         std::string client_id);
  boost::asio::awaitable<Result<std::string>> CreateAgent(std::string org_id,
                                                          CreateAgentCommand cmd);
  boost::asio::awaitable<Result<int>> AddAgentVersion(std::string org_id, std::string agent_id,
                                                      CreateAgentCommand cmd);
  boost::asio::awaitable<Result<void>> SetDeployment(std::string org_id, std::string agent_id,
                                                     std::string env, SetDeploymentCommand cmd);
  // Marks a deployment's A2A card anonymous or not (docs/a2a.md); 404 when the agent is not
  // deployed in the environment. Read back as it stands.
  boost::asio::awaitable<Result<void>> SetA2aDiscoverable(std::string org_id, std::string agent_id,
                                                          std::string env, bool discoverable);
  boost::asio::awaitable<Result<bool>> A2aDiscoverable(std::string org_id, std::string agent_id,
                                                       std::string env);
  boost::asio::awaitable<Result<void>> CreateInstance(std::string org_id, std::string agent_id,
                                                      CreateInstanceCommand cmd);
  boost::asio::awaitable<Result<void>> PutGrant(std::string org_id, PutGrantCommand cmd);
  // The metadata gateway's grants on an environment (docs/gateway.md "Permissions").
  boost::asio::awaitable<Result<void>> PutEnvironmentGrant(std::string org_id, std::string env,
                                                           PutEnvironmentGrantCommand cmd);
  boost::asio::awaitable<Result<std::vector<EnvironmentGrantRecord>>> ListEnvironmentGrants(
      std::string org_id, std::string env);
  static constexpr int kMaxListedEnvironmentGrants = 1000;
  boost::asio::awaitable<Result<void>> PutCrmCredentials(std::string org_id, std::string env,
                                                         CrmCredentials creds);
  // Tool secrets: sealed under the master key (503 without one), named by tool headers as
  // {"secret": NAME}; never read back.
  boost::asio::awaitable<Result<void>> PutToolSecret(std::string org_id, std::string name,
                                                     std::string value);
  boost::asio::awaitable<Result<void>> DeleteToolSecret(std::string org_id, std::string name);
  boost::asio::awaitable<Result<std::vector<ToolSecretRecord>>> ListToolSecrets(std::string org_id);
  // Webhooks of an environment (docs/webhooks.md): the URL checked (webhooks::CheckUrl), the
  // signing secret generated, sealed (503 without a master key) and returned here only.
  struct CreatedWebhook {
    WebhookRecord record;
    std::string secret;  // whsec_<base64>, shown once
  };
  boost::asio::awaitable<Result<CreatedWebhook>> CreateWebhook(std::string org_id, std::string env,
                                                               std::string url,
                                                               std::vector<std::string> events);
  boost::asio::awaitable<Result<std::vector<WebhookRecord>>> ListWebhooks(std::string org_id,
                                                                          std::string env);
  boost::asio::awaitable<Result<void>> DeleteWebhook(std::string org_id, std::string env,
                                                     std::string webhook_id);
  boost::asio::awaitable<Result<std::vector<WebhookDelivery>>> ListWebhookDeliveries(
      std::string org_id, std::string env, std::string webhook_id, int limit);
  // Long-term memory as the operator sees it: `filter.agent_id` is required to list; deleting
  // takes either an agent (its facts, narrowed by env and group) or one fact's id.
  struct MemoryPage {
    std::vector<MemoryEntry> memories;  // newest first
    std::optional<std::int64_t> next_before;
  };
  boost::asio::awaitable<Result<MemoryPage>> ListMemories(MemoryFilter filter,
                                                          std::optional<std::int64_t> before,
                                                          int limit);
  boost::asio::awaitable<Result<std::int64_t>> DeleteMemories(MemoryFilter filter,
                                                              std::optional<std::int64_t> id);
  boost::asio::awaitable<Result<UsageReport>> GetUsage(std::string org_id,
                                                       std::optional<std::string> month);
  boost::asio::awaitable<Result<TurnRecord>> GetTurn(std::string org_id, std::string turn_id);
  boost::asio::awaitable<Result<ConversationTranscript>> GetConversation(std::string org_id,
                                                                         std::string id);

 private:
  boost::asio::awaitable<Result<OrgRecord>> RequireOrg(const std::string& org_id);
  boost::asio::awaitable<Result<void>> RequireEnvironment(const std::string& org_id,
                                                          const std::string& env);
  boost::asio::awaitable<Result<void>> RequireAgent(const std::string& org_id,
                                                    const std::string& agent_id);
  // What a new version may not name: a model without a price, a header reading a variable the
  // policy refuses.
  Result<void> CheckServable(const AgentConfig& config) const;

  StoreRunner& store_;
  TenantDirectory& tenants_;
  SpendLedger& spend_;
  const Clock& clock_;
  ProviderCatalog providers_;
  HeaderEnvPolicy header_envs_;
  std::optional<crypto::MasterKey> master_key_;
  bool crm_allow_http_;
  bool webhooks_allow_private_;
};

}  // namespace agentgate
