#pragma once
// JSON-RPC 2.0 as the Model Context Protocol carries it over Streamable HTTP: request and
// notification bodies, and the reply to one request read from either response form (a single
// JSON body or an SSE stream scoped to the request). Both MCP directions use it.

#include "domain/error.hpp"

#include <boost/json/object.hpp>
#include <boost/json/value.hpp>

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace agentgate::mcp {

// The revision agentgate speaks first; servers of the earlier, initialize-based revisions are
// spoken to in the version they answer with, if it is one of kLegacyVersions.
inline constexpr std::string_view kModernVersion = "2026-07-28";
inline constexpr std::string_view kLegacyVersion = "2025-11-25";  // asked for in initialize
bool IsLegacyVersion(std::string_view version);  // 2025-11-25, 2025-06-18, 2025-03-26

// Error codes (JSON-RPC's and the ones MCP reserves).
inline constexpr std::int64_t kParseError = -32700;
inline constexpr std::int64_t kInvalidRequest = -32600;
inline constexpr std::int64_t kMethodNotFound = -32601;
inline constexpr std::int64_t kInvalidParams = -32602;
inline constexpr std::int64_t kInternalError = -32603;
inline constexpr std::int64_t kHeaderMismatch = -32020;
inline constexpr std::int64_t kMissingClientCapability = -32021;
inline constexpr std::int64_t kUnsupportedProtocolVersion = -32022;

// The per-request metadata a modern (2026-07-28) request carries in params._meta.
boost::json::object ModernMeta(std::string_view client_name, std::string_view client_version);

std::string RequestBody(std::int64_t id, std::string_view method, boost::json::object params);
std::string NotificationBody(std::string_view method, boost::json::object params);

struct RpcError {
  std::int64_t code = 0;
  std::string message;
  boost::json::value data;
};

// The response to one request, and what else the stream said.
struct RpcReply {
  std::optional<boost::json::value> result;  // set on success
  std::optional<RpcError> error;             // set on a JSON-RPC error
  bool tools_list_changed = false;           // notifications/tools/list_changed came with it
};

// The `data:` payloads of an SSE stream, one per event (multi-line data joined by '\n').
std::vector<std::string> SseEvents(std::string_view stream);

// The reply to request `id` in a response body of `content_type` (application/json or
// text/event-stream). An error without the reply: the stream ended before it, or the body is not
// JSON-RPC.
Result<RpcReply> ReadReply(std::string_view content_type, std::string_view body, std::int64_t id);

// A JSON-RPC error body of a 4xx, if the body is one (for telling a modern server's refusal from
// a legacy server's).
std::optional<RpcError> ErrorInBody(std::string_view body);

// A modern server's refusal names one of the codes MCP reserves (or Method not found, which a
// modern server sends with 404); anything else on a 4xx comes from a legacy server.
bool IsModernError(const RpcError& error);

}  // namespace agentgate::mcp
