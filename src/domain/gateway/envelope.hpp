#pragma once
// The gateway's answer (the source's envelope table): ok, status, endpoint, platformResponse and,
// when the platform sent one, platformRequestId.

#include <boost/json/object.hpp>
#include <boost/json/value.hpp>

#include <optional>
#include <string>
#include <string_view>

namespace agentgate {

struct GatewayEnvelope {
  bool ok = false;
  int status = 0;
  std::string endpoint;
  boost::json::value platform_response;
  std::optional<std::string> platform_request_id;
};

boost::json::object RenderEnvelope(const GatewayEnvelope& envelope);

// The platform's body as JSON: {} for a 204 or an empty body, the parsed JSON (objects or the
// arrays its errors come in), else {"raw": "<text>"}.
boost::json::value PlatformResponseOf(int status, const std::string& body);

}  // namespace agentgate
