#pragma once
// agentgate as an MCP client over Streamable HTTP. A request is first sent as the current
// revision (2026-07-28: per-request _meta, no session); a server that refuses it without a modern
// JSON-RPC error is a legacy server, spoken to after an initialize handshake in the version it
// answers (2025-11-25, 2025-06-18 or 2025-03-26), with its session. What was found is kept per
// server, so the probe and the handshake happen once. Every upstream call goes through HttpCaller.

#include "domain/mcp/json_rpc.hpp"
#include "ports/http_caller.hpp"
#include "ports/mcp_caller.hpp"
#include "runtime/tracer.hpp"

#include <boost/asio/awaitable.hpp>

#include <atomic>
#include <chrono>
#include <map>
#include <mutex>
#include <string>

namespace agentgate {

class McpClient final : public McpCaller {
 public:
  // Servers remembered at most; past that the memory starts again (a server is probed anew).
  static constexpr std::size_t kMaxServers = 1024;
  static constexpr std::size_t kMaxResponseBytes = 1024 * 1024;

  // `tracer`: with tracing on, a request made under a span (McpCall::trace) gets a client span
  // of its own, whose traceparent goes in the HTTP header and in params._meta (docs/tracing.md).
  explicit McpClient(HttpCaller& http, const Tracer* tracer = nullptr,
                     std::size_t max_servers = kMaxServers)
      : http_(http), tracer_(tracer), max_servers_(max_servers) {}

  // One request, answered within `timeout` (handshake included). The reply may carry a JSON-RPC
  // error; transport failures and non-MCP answers are kUnavailable. When a tools/call to a legacy
  // server fails or its turn is canceled, the server is sent notifications/cancelled.
  boost::asio::awaitable<Result<mcp::RpcReply>> Request(const McpEndpoint& endpoint,
                                                        const McpCall& call,
                                                        std::chrono::milliseconds timeout) override;

  std::size_t ServersKnown();

 private:
  enum class Era { kUnknown, kModern, kLegacy };
  struct ServerState {
    Era era = Era::kUnknown;
    std::string version;     // legacy: negotiated
    std::string session_id;  // legacy: may be empty (a stateless legacy server)
  };
  using Deadline = std::chrono::steady_clock::time_point;

  boost::asio::awaitable<Result<mcp::RpcReply>> Send(const McpEndpoint& endpoint,
                                                     const McpCall& call,
                                                     std::chrono::milliseconds timeout);

  boost::asio::awaitable<Result<HttpClientResponse>> Post(const McpEndpoint& endpoint,
                                                          const std::string& body,
                                                          const HeaderList& headers,
                                                          Deadline deadline);
  boost::asio::awaitable<Result<ServerState>> Initialize(const McpEndpoint& endpoint,
                                                         Deadline deadline);
  boost::asio::awaitable<Result<mcp::RpcReply>> SendLegacy(const McpEndpoint& endpoint,
                                                           const McpCall& call, Deadline deadline);
  ServerState StateOf(const std::string& key);
  void Remember(const std::string& key, ServerState state);

  HttpCaller& http_;
  const Tracer* tracer_;
  const std::size_t max_servers_;  // past it the memory starts again
  std::atomic<std::int64_t> next_id_{1};
  std::mutex mutex_;
  std::map<std::string, ServerState> servers_;
};

}  // namespace agentgate
