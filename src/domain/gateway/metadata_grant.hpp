#pragma once
// Who may call the metadata gateway (docs/gateway.md "Permissions"): a token needs a grant on the
// environment, `metadata_read` for reads (GET) and `metadata_write` for every other call; write
// implies read. An agent's crm_metadata tool is governed by its config instead. Pure.

#include "domain/gateway/gateway_request.hpp"

#include <optional>
#include <string>
#include <vector>

namespace agentgate::gateway {

// nullopt when `permissions` let the call through; else the permission it lacks.
std::optional<std::string> MissingMetadataPermission(const std::vector<std::string>& permissions,
                                                     const GatewayCall& call);

}  // namespace agentgate::gateway
