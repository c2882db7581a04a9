#pragma once
// The flow action's request (SPEC §6): the Daemon's inputs under the flow's camelCase names, with
// hostContextJson as a JSON *string*. Errors name the flow's own fields.

#include "domain/agent/invoke_request.hpp"

#include <optional>
#include <string>

namespace agentgate {

struct FlowInvokeRequest {
  std::string agent_id;  // agentExternalId
  InvokeRequest request;
  std::optional<std::string> idempotency_key;  // idempotencyKey
};

Result<FlowInvokeRequest> ParseFlowInvokeRequest(const boost::json::value& body);

}  // namespace agentgate
