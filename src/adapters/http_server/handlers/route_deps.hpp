#pragma once
// What the handlers need, handed over by the wiring. Handlers translate HTTP to use-case calls
// and back; they never touch a store directly except through the app layer.

#include "adapters/http_server/router.hpp"
#include "app/access/authorization_server.hpp"
#include "app/access/console_sessions.hpp"
#include "app/admin/admin_service.hpp"
#include "app/gateway/metadata_gateway.hpp"
#include "app/mcp/request_state.hpp"
#include "app/runs/runs.hpp"
#include "app/turn/invoke_agent.hpp"
#include "observability/metrics.hpp"
#include "runtime/gateway_call_tally.hpp"
#include "runtime/store_runner.hpp"
#include "runtime/tracer.hpp"

#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace agentgate::a2a {
class TaskPushConfigs;
}

namespace agentgate::http {

struct RouteDeps {
  AdminService& admin;
  InvokeAgent& invoke;
  AuthorizationServer& oauth;  // the built-in authorization server (docs/mcp.md, OAuth)
  Runs& runs;
  StreamRoster& streams;  // the event streams open here: their limits, their right to go on
  MetadataGateway& gateway;
  StoreRunner& store;
  TenantDirectory& tenants;
  Metrics& metrics;
  ConsoleSessions& console;         // operator console sign-ins (their cookie also opens /admin/v1)
  GatewayCallTally& gateway_calls;  // per status, for the overview
  std::optional<std::string>
      admin_token_hash;  // SHA-256 of the admin token; nullopt = admin API off
  std::function<bool()> draining;
  const Tracer* tracer = nullptr;  // handlers' own spans (MCP's); none: tracing off
  std::string public_url = {};     // [server] public_url: absolute URLs start with it ("": none)
  std::vector<std::string> allowed_origins =
      {};  // [server] allowed_origins: /mcp's browser callers
  // Every listener is on loopback: without a public_url, a request's Host may name the server.
  bool loopback_only = true;
  // Seals and opens the requestState of /mcp's input_required results (none: a paused call says
  // where to answer instead).
  const McpRequestStates* mcp_request_states = nullptr;
  // A2A tasks' push notification configs (none: push notifications are not offered).
  a2a::TaskPushConfigs* a2a_push = nullptr;
};

void AddOperatorRoutes(Router& router, RouteDeps& deps);
void AddAdminOrgRoutes(Router& router, RouteDeps& deps);
void AddAdminTokenRoutes(Router& router, RouteDeps& deps);
void AddAdminOAuthClientRoutes(Router& router, RouteDeps& deps);
void AddAdminAgentRoutes(Router& router, RouteDeps& deps);
void AddAdminAgentListRoutes(Router& router, RouteDeps& deps);
void AddAdminConversationListRoutes(Router& router, RouteDeps& deps);
void AddAdminOverviewRoutes(Router& router, RouteDeps& deps);
void AddAdminCrmRoutes(Router& router, RouteDeps& deps);
void AddAdminWebhookRoutes(Router& router, RouteDeps& deps);
void AddAdminRunRoutes(Router& router, RouteDeps& deps);
void AddInvokeRoutes(Router& router, RouteDeps& deps);
void AddRunRoutes(Router& router, RouteDeps& deps);
void AddFlowActionRoutes(Router& router, RouteDeps& deps);
void AddMetadataGatewayRoutes(Router& router, RouteDeps& deps);
void AddMcpRoutes(Router& router, RouteDeps& deps);
void AddA2aRoutes(Router& router, RouteDeps& deps);
void AddOAuthServerRoutes(Router& router, RouteDeps& deps);
void AddOpenAiRoutes(Router& router, RouteDeps& deps);
void AddOpenAiResponseRoutes(Router& router, RouteDeps& deps);
void AddOpenAiConversationRoutes(Router& router, RouteDeps& deps);
void AddAdminMemoryRoutes(Router& router, RouteDeps& deps);
void AddConsoleRoutes(Router& router, RouteDeps& deps);

// Every route of the server, in one table (the OpenAPI test compares against it).
Router BuildRouter(RouteDeps& deps);

}  // namespace agentgate::http
