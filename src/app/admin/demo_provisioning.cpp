#include "app/admin/demo_provisioning.hpp"

#include <boost/json/parse.hpp>

namespace agentgate {

namespace asio = boost::asio;

namespace {

constexpr const char* kDemoAgentConfig = R"json({
  "name": "Demo assistant",
  "instructions": "You are the agentgate demo assistant. Answer from the trusted resources.",
  "model": {"provider": "offline", "name": "offline-1", "max_output_tokens": 512},
  "memory": "none",
  "max_iterations": 4,
  "resources": [
    {"id": "about", "title": "What agentgate is",
     "text": "agentgate puts LLM agents and CRM metadata behind one authenticated API. Call an agent with POST /api/agents/{agent_id}/invoke and the fl-api-org, fl-api-token and fl-api-env headers."},
    {"id": "limits", "title": "Limits",
     "text": "A turn lasts at most 120 seconds. A stateful conversation accepts 200 calls per 2 minutes."}
  ]
})json";

}  // namespace

asio::awaitable<Result<std::optional<DemoCredentials>>> ProvisionDemo(AdminService& admin,
                                                                      StoreRunner& store) {
  AG_CO_TRY(const std::int64_t orgs, co_await store.Run([](Store& s) { return s.CountOrgs(); }));
  if (orgs > 0) co_return std::optional<DemoCredentials>{};

  // Commands are named locals: GCC 12 destroys braced aggregate temporaries in co_await twice.
  DemoCredentials demo{"demo", "dev", "", "demo-agent"};
  CreateOrgCommand org{demo.org_id, "Demo organization", std::nullopt};
  AG_CO_TRYV(co_await admin.CreateOrg(std::move(org)));
  AG_CO_TRYV(co_await admin.CreateEnvironment(demo.org_id, demo.env));
  CreateTokenCommand token{"demo token", {}};
  AG_CO_TRY(auto issued, co_await admin.CreateToken(demo.org_id, std::move(token)));
  demo.token = issued.token;
  boost::json::object body;
  body["id"] = demo.agent_id;
  body["config"] = boost::json::parse(kDemoAgentConfig);
  AG_CO_TRY(auto agent, ParseCreateAgent(body));
  AG_CO_TRYV(co_await admin.CreateAgent(demo.org_id, std::move(agent)));
  const SetDeploymentCommand first_version{1};
  AG_CO_TRYV(co_await admin.SetDeployment(demo.org_id, demo.agent_id, demo.env, first_version));
  PutGrantCommand grant{issued.record.id, demo.agent_id, std::vector<std::string>{"chat"}};
  AG_CO_TRYV(co_await admin.PutGrant(demo.org_id, std::move(grant)));
  // The README's metadata gateway example works with the demo token.
  PutEnvironmentGrantCommand gateway{issued.record.id, {"metadata_write"}};
  AG_CO_TRYV(co_await admin.PutEnvironmentGrant(demo.org_id, demo.env, std::move(gateway)));
  co_return std::optional<DemoCredentials>(demo);
}

}  // namespace agentgate
