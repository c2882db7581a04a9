#pragma once
// Requests to MCP servers as the use cases see them: one JSON-RPC request to one endpoint,
// answered within a timeout. The adapter is McpClient (adapters/mcp_client), which speaks
// Streamable HTTP, negotiates the protocol revision and keeps sessions, through HttpCaller.

#include "domain/mcp/json_rpc.hpp"
#include "ports/http_caller.hpp"

#include <boost/asio/awaitable.hpp>
#include <boost/json/object.hpp>

#include <chrono>
#include <string>

namespace agentgate {

struct SpanContext;  // runtime/tracer.hpp

struct McpEndpoint {
  std::string url;
  HeaderList headers;  // the operator's, resolved

  // One entry per (url, headers) in what is kept per server.
  std::string Key() const {
    std::string key = url;
    for (const auto& [name, value] : headers) key += "\n" + name + ": " + value;
    return key;
  }
};

struct McpCall {
  std::string method;
  boost::json::object params;
  HeaderList extra_headers;  // Mcp-Name, Mcp-Param-*
  // The span the request is made under (an execute_tool span, or the turn's): the client's span
  // goes under it and passes its traceparent on. None: not traced.
  const SpanContext* trace = nullptr;
};

class McpCaller {
 public:
  virtual ~McpCaller() = default;
  // The reply may carry a JSON-RPC error; transport failures and non-MCP answers are
  // kUnavailable. Canceling the awaiting coroutine cancels the request.
  virtual boost::asio::awaitable<Result<mcp::RpcReply>> Request(
      const McpEndpoint& endpoint, const McpCall& call, std::chrono::milliseconds timeout) = 0;
};

}  // namespace agentgate
