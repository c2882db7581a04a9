#pragma once
// What A2A's two bindings share (docs/a2a.md): the caller admitted at an agent's interface and
// the card (a2a_access.cpp), and each operation, answered as a result, a protocol error, or a
// stream (a2a_operations.cpp). The JSON-RPC and HTTP+JSON
// routes (a2a_server.cpp) only read their requests and render these answers their way.

#include "adapters/http_server/handlers/route_deps.hpp"
#include "domain/a2a/protocol.hpp"

#include <boost/json/value.hpp>

#include <memory>
#include <optional>
#include <string>
#include <variant>

namespace agentgate::http {

// An agent's interface, and who calls it.
struct A2aInterface {
  std::string org;
  std::string env;
  std::string agent_id;
  std::optional<std::string> instance_id;  // the URL's agent_id:instance_id, as on /v1
  Caller caller;
  // A JSON-RPC request's id: its stream's frames are JSON-RPC responses to it. None for REST.
  std::optional<boost::json::value> rpc_id;
  bool legacy = false;  // a 0.3 request: its answers are written in 0.3's shapes
  // The agent's deployed version, when the caller may chat with it (none: its messages are
  // REJECTED tasks and its card is not shown).
  std::shared_ptr<const LoadedAgent> agent = {};
};

// The A2A-Version a request asked for: its header, else its `A2A-Version` query parameter.
std::optional<std::string> A2aVersionAsked(const Request& r);

// A result, an error in the protocol's terms, or an answer of its own (a stream).
using A2aAnswer = std::variant<boost::json::value, a2a::ProtocolError, Response>;

// The agent and instance an interface's path segment names ("bot", or "bot:berlin"); none for
// one that names no agent.
std::optional<std::pair<std::string, std::optional<std::string>>> A2aAgentOf(
    const std::string& segment);

// A refusal before any operation, in the binding's shape (`rpc`: a JSON-RPC error object).
Response A2aRefusal(bool rpc, int status, const a2a::ProtocolError& error);

// The caller of /a2a/{org}/{env}/{agent}/...: an API key as Bearer or the fl-api headers, of that
// organization and environment (any other is told there is no such agent: 404), at a protocol
// version served (the card is read at any). The refusal is in the binding's shape (`rpc`:
// JSON-RPC's).
boost::asio::awaitable<std::variant<A2aInterface, Response>> AdmitA2aCaller(
    RouteDeps& deps, Request& r, bool rpc, bool any_version = false);

// The card: anonymously for an agent marked discoverable, else for a caller admitted to the
// interface (404 for an agent it may not chat with).
boost::asio::awaitable<Response> AgentCardResponse(RouteDeps& deps, Request& r);

// SendMessage (`stream`: SendStreamingMessage), GetTask, CancelTask, SubscribeToTask.
boost::asio::awaitable<A2aAnswer> SendMessageOp(RouteDeps& deps, Request& r, const A2aInterface& at,
                                                const boost::json::value& params, bool stream);
boost::asio::awaitable<A2aAnswer> GetTaskOp(RouteDeps& deps, const A2aInterface& at,
                                            const boost::json::value& params);
boost::asio::awaitable<A2aAnswer> CancelTaskOp(RouteDeps& deps, const A2aInterface& at,
                                               const boost::json::value& params);
// ListTasks: a caller without chat on the agent sees none.
boost::asio::awaitable<A2aAnswer> ListTasksOp(RouteDeps& deps, const A2aInterface& at,
                                              const boost::json::value& params);
boost::asio::awaitable<A2aAnswer> SubscribeOp(RouteDeps& deps, Request& r, const A2aInterface& at,
                                              const boost::json::value& params);

// Create, Get, List and DeleteTaskPushNotificationConfig (`method`, 1.0's name), on a task the
// caller may follow; PushNotificationNotSupported where configs cannot be kept.
boost::asio::awaitable<A2aAnswer> PushConfigOp(RouteDeps& deps, const A2aInterface& at,
                                               std::string_view method,
                                               const boost::json::value& params);
// The operations this release does not offer, each with the protocol's error for it.
a2a::ProtocolError NotOffered(std::string_view operation);

// The content type an HTTP+JSON answer is written in: the protocol's own when the caller sent or
// accepts it, else plain JSON.
std::string_view RestContentType(const Request& r);

}  // namespace agentgate::http
