#include "domain/gateway/envelope.hpp"

#include <boost/json/parse.hpp>

namespace agentgate {

boost::json::object RenderEnvelope(const GatewayEnvelope& e) {
  boost::json::object out{{"ok", e.ok},
                          {"status", e.status},
                          {"endpoint", e.endpoint},
                          {"platformResponse", e.platform_response}};
  if (e.platform_request_id) out["platformRequestId"] = *e.platform_request_id;
  return out;
}

boost::json::value PlatformResponseOf(int status, const std::string& body) {
  if (status == 204 || body.find_first_not_of(" \t\r\n") == std::string::npos)
    return boost::json::object{};
  // Salesforce JSON can nest deeper than Boost.JSON's default 32 levels; deeper than this, or not
  // UTF-8, it comes back as raw text (the writer repairs bad bytes).
  boost::json::parse_options options;
  options.max_depth = 1024;
  boost::system::error_code ec;
  auto parsed = boost::json::parse(body, ec, {}, options);
  if (!ec && (parsed.is_object() || parsed.is_array())) return parsed;
  return boost::json::object{{"raw", body}};
}

}  // namespace agentgate
