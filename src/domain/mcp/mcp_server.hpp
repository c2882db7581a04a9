#pragma once
// agentgate's agents as an MCP server (Streamable HTTP): an incoming message read and checked
// against the transport's headers, the era it speaks (2026-07-28 per-request metadata, or the
// initialize-based 2025-11-25 / 2025-06-18 / 2025-03-26), and the results it is answered with.

#include "domain/mcp/json_rpc.hpp"

#include <boost/json/object.hpp>
#include <boost/json/value.hpp>

#include <optional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

namespace agentgate::mcp {

struct IncomingMessage {
  boost::json::value id;  // null for a notification
  bool notification = false;
  std::string method;
  boost::json::object params;
  // A response to a request of ours (a 2025 client's answer to an elicitation): its result, or
  // null when it is an error.
  bool response = false;
  boost::json::value result = nullptr;
};

// An error the client is told: the HTTP status and the JSON-RPC error (id null if unknown).
struct Refusal {
  int http_status = 400;
  RpcError error;
};

// Reads one JSON-RPC request, notification or response (batches are refused).
std::variant<IncomingMessage, Refusal> ReadIncoming(std::string_view body);

struct TransportHeaders {
  std::optional<std::string> protocol_version;  // MCP-Protocol-Version
  std::optional<std::string> method;            // Mcp-Method
  std::optional<std::string> name;              // Mcp-Name (may be base64-sentinel encoded)
};

struct Era {
  bool modern = false;
  std::string version;  // the revision this request is answered in
};

// The era of a request, or why it is refused: a modern request's headers must match its body
// (HeaderMismatch) and name a version served here (UnsupportedProtocolVersion, with the list).
std::variant<Era, Refusal> EraOf(const IncomingMessage& message, const TransportHeaders& headers);

// Revisions served, newest first.
const std::vector<std::string>& SupportedVersions();

// The answer to initialize: the client's version when served here, else the newest legacy one.
boost::json::object InitializeResult(const boost::json::object& params,
                                     std::string_view server_version);
boost::json::object DiscoverResult(std::string_view server_version);

// A described tool (name, description, input schema).
struct ToolDescription {
  std::string name;
  std::string description;
  boost::json::value input_schema;
  std::optional<boost::json::value> output_schema = {};  // listed as outputSchema when set
};
boost::json::object ToolsListResult(const std::vector<ToolDescription>& tools);

// The input schema of an agent's tool: the invoke request's fields (instance_id required for
// per-instance agents).
boost::json::value AgentInputSchema(bool per_instance);

// The output schema of the tool of an agent whose version has an output_schema: its results'
// structured content (the invoke body but `response`) with `output` held to that schema, or null
// (a turn that stopped early or was blocked has none).
boost::json::value AgentOutputSchema(const boost::json::value& answer_schema);

// A tools/call result: text, structured content, and whether it is an error.
boost::json::object CallToolResult(std::string text, boost::json::object structured, bool is_error);

// A modern result carries resultType; a legacy one does not.
boost::json::object Finished(boost::json::object result, const Era& era);

std::string ResultBody(const boost::json::value& id, boost::json::object result);
std::string ErrorBody(const boost::json::value& id, const RpcError& error);

// Progress (docs/mcp.md): a tools/call whose params carry `_meta.progressToken` (a string or an
// integer) is answered as an SSE stream of notifications/progress, one per step of its turn, then
// its result. The token, or nullopt when the call has none (or one of another type).
std::optional<boost::json::value> ProgressToken(const boost::json::object& params);
// What a step of the turn says to the client, or nullopt for a step it is not told
// (runs' events: model.started, model.finished, tool.started, tool.finished, text.delta).
std::optional<std::string> ProgressMessage(std::string_view event_type, std::string_view data);
// The notification, as one JSON-RPC message: `progress` counts from 1 and only grows.
std::string ProgressNotification(const boost::json::value& token, std::int64_t progress,
                                 std::string_view message);
// One JSON-RPC message as a Server-Sent Event of the Streamable HTTP transport.
std::string SseMessage(std::string_view json_rpc);

}  // namespace agentgate::mcp
