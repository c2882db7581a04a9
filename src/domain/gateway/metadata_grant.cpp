#include "domain/gateway/metadata_grant.hpp"

#include <algorithm>

namespace agentgate::gateway {

std::optional<std::string> MissingMetadataPermission(const std::vector<std::string>& permissions,
                                                     const GatewayCall& call) {
  auto holds = [&](std::string_view p) {
    return std::find(permissions.begin(), permissions.end(), p) != permissions.end();
  };
  if (holds("metadata_write")) return std::nullopt;
  const bool reads = call.kind == GatewayCall::Kind::kRest && call.method == "GET";
  if (reads && holds("metadata_read")) return std::nullopt;
  return std::string(reads ? "metadata_read" : "metadata_write");
}

}  // namespace agentgate::gateway
