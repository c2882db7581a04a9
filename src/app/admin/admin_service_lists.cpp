// The operator's read-only lists: what the console shows and scripts can page through.
#include "app/admin/admin_service.hpp"
#include "app/seal_contexts.hpp"
#include "ports/clock.hpp"

#include "crypto/crypto.hpp"
#include "domain/governance/governance.hpp"

namespace agentgate {

namespace asio = boost::asio;

asio::awaitable<Result<std::vector<OrgRecord>>> AdminService::ListOrgs(std::string after_id,
                                                                       int limit) {
  co_return co_await store_.Run([&](Store& s) { return s.ListOrgs(after_id, limit); });
}

asio::awaitable<Result<AdminService::OrgDetail>> AdminService::GetOrg(std::string org_id) {
  AG_CO_TRY(auto org, co_await RequireOrg(org_id));
  AG_CO_TRY(auto environments,
            co_await store_.Run([&](Store& s) { return s.ListEnvironments(org_id); }));
  co_return OrgDetail{std::move(org), std::move(environments)};
}

asio::awaitable<Result<std::vector<TokenRecord>>> AdminService::ListTokens(std::string org_id,
                                                                           int limit) {
  if (auto org = co_await RequireOrg(org_id); !org) co_return org.error();
  co_return co_await store_.Run([&](Store& s) { return s.ListTokens(org_id, limit); });
}

asio::awaitable<Result<std::vector<AdminService::AgentListing>>> AdminService::ListAgents(
    std::string org_id, int limit) {
  if (auto org = co_await RequireOrg(org_id); !org) co_return org.error();
  // One hop to the blocking pool for both reads.
  co_return co_await store_.Run([&](Store& s) -> Result<std::vector<AgentListing>> {
    AG_TRY(auto agents, s.ListAgents(org_id, limit));
    AG_TRY(auto deployments, s.ListDeployments(org_id));
    std::vector<AgentListing> out;
    for (auto& agent : agents) {
      AgentListing listing{std::move(agent), {}};
      for (const auto& d : deployments) {
        if (d.agent_id == listing.latest.agent_id) listing.deployments.push_back(d);
      }
      out.push_back(std::move(listing));
    }
    return out;
  });
}

asio::awaitable<Result<AdminService::AgentDetail>> AdminService::GetAgent(std::string org_id,
                                                                          std::string agent_id) {
  if (auto agent = co_await RequireAgent(org_id, agent_id); !agent) co_return agent.error();
  co_return co_await store_.Run([&](Store& s) -> Result<AgentDetail> {
    AgentDetail detail;
    AG_TRY(detail.versions, s.ListAgentVersions(org_id, agent_id, kMaxListedVersions));
    AG_TRY(auto deployments, s.ListDeployments(org_id));
    for (auto& d : deployments) {
      if (d.agent_id == agent_id) detail.deployments.push_back(std::move(d));
    }
    AG_TRY(detail.grants, s.ListGrants(org_id, agent_id, kMaxListedGrants));
    AG_TRY(detail.instances, s.ListInstances(org_id, agent_id, kMaxListedInstances));
    return detail;
  });
}

asio::awaitable<Result<std::vector<ConversationListing>>> AdminService::ListConversations(
    ConversationFilter filter, int limit) {
  if (auto org = co_await RequireOrg(filter.org_id); !org) co_return org.error();
  co_return co_await store_.Run([&](Store& s) { return s.ListConversations(filter, limit); });
}

asio::awaitable<Result<AdminService::Overview>> AdminService::GetOverview(int days) {
  const std::int64_t now = clock_.NowMs();
  Overview overview;
  overview.month = governance::MonthOf(now);
  overview.first_day = now / kMsPerDay - (days - 1);
  co_return co_await store_.Run([&](Store& s) -> Result<Overview> {
    AG_TRY(overview.orgs, s.ListOrgs("", kMaxOverviewOrgs));
    AG_TRY(overview.spend, s.SpendPerOrg(overview.month));
    const std::int64_t since_ms = overview.first_day * kMsPerDay;
    AG_TRY(overview.turns_per_day, s.CountTurnsPerDay(since_ms));
    AG_TRY(overview.durations, s.TurnDurationPercentiles(since_ms));
    AG_TRY(overview.gateway_calls_per_day, s.GatewayCallsPerDay(overview.first_day));
    return std::move(overview);
  });
}

asio::awaitable<Result<AdminService::CrmStatus>> AdminService::GetCrmStatus(std::string org_id,
                                                                            std::string env) {
  if (auto e = co_await RequireEnvironment(org_id, env); !e) co_return e.error();
  CrmStatus out;
  std::optional<CrmCredentialRecord> record;
  AG_CO_TRYV(co_await store_.Run([&](Store& s) -> Result<void> {
    AG_TRY(out.status, s.GetCrmCredentialStatus(org_id, env));
    AG_TRY(record, s.GetCrmCredential(org_id, env));
    return {};
  }));
  if (record && master_key_) {
    if (auto opened = crypto::Open(*master_key_, record->sealed, CrmSealContext(org_id, env))) {
      if (auto creds = DeserializeCrmCredentials(*opened)) {
        out.kind = creds->IsStatic() ? "static_session" : "refresh_token";
        out.url = creds->IsStatic() ? creds->instance_url : creds->login_url;
      }
    }
  }
  co_return out;
}

}  // namespace agentgate
