#pragma once
// The tools an agent's MCP servers offer, as one turn sees them. A server's tool list is fetched
// when a turn first needs it and kept until the server's ttlMs hint passes (clamped to 10 s to
// 10 min; 5 min without one) or the server says notifications/tools/list_changed; it is not
// fetched on every turn. A server that cannot be reached leaves its tools out of the turn, which
// goes on and notes it in the transcript; the failure is kept 5 s so a dead server does not slow
// every turn.

#include "app/turn/fresh_cache.hpp"
#include "app/turn/tool_headers.hpp"
#include "domain/admin/agent_config.hpp"
#include "domain/agent/model_types.hpp"
#include "domain/agent/turn.hpp"
#include "domain/mcp/mcp_tools.hpp"
#include "ports/clock.hpp"
#include "ports/mcp_caller.hpp"

#include <chrono>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace agentgate {

struct McpToolTarget {
  McpEndpoint endpoint;
  mcp::McpTool tool;
  std::chrono::milliseconds timeout{30000};
  Approval approval = Approval::kNever;  // its server's
};

// What one turn may call of its agent's MCP servers.
struct McpTurnTools {
  std::vector<ToolSpec> offered;                       // named "<server>__<tool>"
  std::map<std::string, McpToolTarget> by_model_name;  // model's name -> server and tool
  std::vector<std::string> notes;                      // servers or tools left out, and why
};

class McpToolbox {
 public:
  static constexpr std::size_t kMaxCachedServers = 1024;
  static constexpr int kMaxPages = 20;

  McpToolbox(McpCaller& client, ToolHeaders& headers, const Clock& clock,
             std::size_t max_servers = kMaxCachedServers)
      : client_(client), headers_(headers), clock_(clock), lists_(max_servers) {}

  // The tools of `config`'s MCP servers for a turn of `org_id`; fetches what is not cached, within
  // `deadline`. `trace`: the span a fetch's requests go under (none: not traced).
  boost::asio::awaitable<McpTurnTools> ToolsFor(const std::string& org_id,
                                                const AgentConfig& config, SteadyTime deadline,
                                                const SpanContext* trace = nullptr);

  // The user's answer to a server's question (its input_required), sent with the call again:
  // the form's content, or none when the user declined.
  struct InputAnswer {
    ToolAsk ask;
    std::optional<boost::json::value> content;
  };
  struct Answer {
    std::string text;                           // what the model reads (errors as "error: ...")
    std::optional<ToolAsk> ask = std::nullopt;  // the server asks the user first: no text yet
  };
  // A tools/call, or its retry with `answering`'s answer and the server's exact request state.
  boost::asio::awaitable<Answer> Call(const McpToolTarget& target,
                                      const std::string& arguments_json, SteadyTime deadline,
                                      std::size_t max_chars, const SpanContext* trace = nullptr,
                                      const InputAnswer* answering = nullptr);

  std::size_t CachedServers();

 private:
  struct ToolList {
    std::vector<mcp::McpTool> tools;
    std::vector<std::string> rejected;
    std::string failure;  // set when the fetch failed
    std::int64_t fresh_until_ms = 0;
  };

  boost::asio::awaitable<std::shared_ptr<const ToolList>> ListOf(const McpEndpoint& endpoint,
                                                                 std::chrono::milliseconds timeout,
                                                                 const SpanContext* trace);
  boost::asio::awaitable<ToolList> Fetch(const McpEndpoint& endpoint,
                                         std::chrono::milliseconds timeout,
                                         const SpanContext* trace);
  void Forget(const std::string& key);

  McpCaller& client_;
  ToolHeaders& headers_;
  const Clock& clock_;
  FreshCache<ToolList> lists_;  // by endpoint
};

}  // namespace agentgate
