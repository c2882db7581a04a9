#pragma once
// The metadata gateway's request (the source's table, SPEC §7), normalised before anything is
// sent: a method from the allow-list, the API version, the body (`metadata`, alias `payload`),
// and one of the three path forms resolved to a path under the org's /services/ tree. Anything
// that could leave that tree is refused here, so it never reaches the platform.

#include "domain/error.hpp"

#include <boost/json/value.hpp>

#include <optional>
#include <string>

namespace agentgate {

struct GatewayCall {
  enum class Kind { kRest, kDeleteMetadata };
  Kind kind = Kind::kRest;
  std::string method;       // GET, POST, PATCH, PUT, DELETE
  std::string api_version;  // "64.0"
  std::string path;         // e.g. /services/data/v64.0/tooling/sobjects/ValidationRule?q=...
  std::optional<std::string> body_json;  // REST POST/PATCH/PUT with metadata
  std::string metadata_type;             // kDeleteMetadata: e.g. CustomField
  std::string full_name;                 // kDeleteMetadata: e.g. Account.Legacy_Code__c
};

Result<GatewayCall> NormalizeGatewayRequest(const boost::json::value& body);

// Why a path is refused, or nullopt when it stays inside /services/ (exposed for the fuzzer).
std::optional<std::string> UnsafePathReason(std::string_view path);

}  // namespace agentgate
