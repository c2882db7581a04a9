#include "adapters/http_server/handlers/route_deps.hpp"

namespace agentgate::http {

Router BuildRouter(RouteDeps& deps) {
  Router router;
  AddOperatorRoutes(router, deps);
  AddAdminOrgRoutes(router, deps);
  AddAdminTokenRoutes(router, deps);
  AddAdminOAuthClientRoutes(router, deps);
  AddAdminAgentRoutes(router, deps);
  AddAdminAgentListRoutes(router, deps);
  AddAdminConversationListRoutes(router, deps);
  AddAdminOverviewRoutes(router, deps);
  AddAdminCrmRoutes(router, deps);
  AddAdminWebhookRoutes(router, deps);
  AddAdminRunRoutes(router, deps);
  AddInvokeRoutes(router, deps);
  AddRunRoutes(router, deps);
  AddFlowActionRoutes(router, deps);
  AddMetadataGatewayRoutes(router, deps);
  AddMcpRoutes(router, deps);
  AddA2aRoutes(router, deps);
  AddOAuthServerRoutes(router, deps);
  AddOpenAiRoutes(router, deps);
  AddOpenAiResponseRoutes(router, deps);
  AddOpenAiConversationRoutes(router, deps);
  AddAdminMemoryRoutes(router, deps);
  AddConsoleRoutes(router, deps);
  return router;
}

}  // namespace agentgate::http
