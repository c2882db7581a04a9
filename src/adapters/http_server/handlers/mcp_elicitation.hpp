#pragma once
// A paused run asks the MCP client that started it (docs/mcp.md, "Elicitation"), in the client's
// revision: a 2026-07-28 client gets an input_required result and answers by retrying its call
// with the sealed requestState; a 2025 client gets elicitation/create on its call's SSE stream and
// answers with a JSON-RPC response POSTed to /mcp, which any server takes and stores (the run goes
// on in the background, and the stream that asked follows it to its end). Also: a turn's answer as
// a tool result, for every way /mcp answers a call.

#include "adapters/http_server/handlers/invoke_common.hpp"
#include "adapters/http_server/handlers/route_deps.hpp"
#include "domain/mcp/mcp_server.hpp"

#include <boost/json/object.hpp>

#include <optional>
#include <string>

namespace agentgate::http::mcp_elicitation {

// A JSON-RPC message of ours as an HTTP response.
Response RpcResponse(int status, std::string body);

// The invoke body (SPEC §5) as a tools/call result: a stop reason or a withheld reply is an error
// result naming it, a pause says what waits and where to answer; a refusal names its status.
boost::json::object BodyAsToolResult(boost::json::object body);
boost::json::object TurnAsToolResult(const Result<InvokeResult>& result);

// Whom a paused call's needs are asked of: a client that takes forms, when a master key can seal
// the state (else nobody: the pause is told as text).
struct Elicits {
  const McpRequestStates* states = nullptr;
  bool legacy = false;  // a 2025 session: asked on the call's SSE stream
  Caller caller;
  std::string agent_id;
  mcp::Era era;
};
Elicits ElicitsOf(const RouteDeps& deps, const Request& r, const Caller& caller,
                  const std::string& agent_id, const mcp::IncomingMessage& message,
                  const mcp::Era& era);

// The answer to a call whose turn paused, when its client is asked: the input_required result, or
// (2025) an SSE stream that asks, then follows the run to its end or its next pause. nullopt: the
// pause is answered as any result is.
std::optional<Response> Elicited(RouteDeps& deps, const boost::json::value& id,
                                 const Elicits& elicits, const Result<InvokeResult>& result);

// A 2026-07-28 retried tools/call with the client's inputResponses and the sealed requestState:
// the run is decided and goes on here; the call is answered with its end or its next pause.
boost::asio::awaitable<Response> AnswerInput(RouteDeps& deps, const Caller& caller,
                                             const std::string& agent_id,
                                             const mcp::IncomingMessage& message,
                                             const InvokeRenderer& render);

// A 2025 client's response to our elicitation/create: the run is decided and queued to go on
// (202); the stream that asked writes its end.
boost::asio::awaitable<Response> AnswerElicitation(RouteDeps& deps, const Caller& caller,
                                                   const mcp::IncomingMessage& response);

}  // namespace agentgate::http::mcp_elicitation
