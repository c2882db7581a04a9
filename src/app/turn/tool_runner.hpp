#pragma once
// Runs the tools a model asked for: search over trusted resources, remember (shared memory),
// the operator's http tools (only their configured URL is ever called), the tools of the agent's
// MCP servers, its remote A2A agents, and crm_metadata.
// Tool failures are told to the model as text; they never end the turn.

#include "app/gateway/metadata_gateway.hpp"
#include "app/turn/a2a_toolbox.hpp"
#include "app/turn/agent_catalog.hpp"
#include "app/turn/mcp_toolbox.hpp"
#include "domain/agent/turn.hpp"
#include "ports/clock.hpp"
#include "ports/http_caller.hpp"
#include "runtime/tracer.hpp"

#include <chrono>
#include <functional>

namespace agentgate {

struct ToolContext {
  const LoadedAgent& agent;
  MemoryScope memory_scope;
  SteadyTime deadline;                      // the turn's soft deadline (on the Clock's steady time)
  std::vector<RememberedFact>* remembered;  // `remember` adds here; the turn's commit saves
  const McpTurnTools* mcp_tools;            // this turn's tools of MCP servers
  // A resumed turn's answers to what MCP servers and remote A2A agents asked its user, by call
  // id: those calls are made again with them.
  const std::map<std::string, McpToolbox::InputAnswer>* answering = nullptr;
  const A2aTurnTools* a2a_tools = nullptr;  // this turn's remote A2A agents
  // Tells the turn's observer, if it has one then, of a remote agent's progress.
  std::function<void(RunEvent)> report = nullptr;
};

class ToolRunner {
 public:
  ToolRunner(StoreRunner& store, HttpCaller& http, const Clock& clock, MetadataGateway& gateway,
             McpToolbox& mcp, ToolHeaders& headers, A2aToolbox* a2a = nullptr)
      : store_(store),
        http_(http),
        clock_(clock),
        gateway_(gateway),
        mcp_(mcp),
        headers_(headers),
        a2a_(a2a) {}

  // `trace`: the tool call's span when tracing is on (none when off): an http tool is sent its
  // traceparent; an MCP server's and the CRM gateway's spans go under it. A call that needs a
  // person's approval runs only when `approved` (the turn pauses for it first); unapproved, it is
  // refused and never made.
  boost::asio::awaitable<ToolResult> Run(const ToolCall& call, const ToolContext& context,
                                         const SpanContext* trace, bool approved);

  // Whether the call waits for a person's approval before it runs (docs/daemon.md, Tool
  // approvals): its tool's `approval` says so, for this call.
  bool NeedsApproval(const ToolCall& call, const ToolContext& context) const;

  static constexpr std::size_t kMaxToolResponseBytes = 64 * 1024;
  static constexpr std::size_t kMaxResultChars = 8000;

 private:
  // A tool of one of the agent's MCP servers or remote A2A agents.
  bool IsRemote(const ToolCall& call, const ToolContext& context) const;
  boost::asio::awaitable<McpToolbox::Answer> CallRemote(const ToolCall& call,
                                                        const ToolContext& context,
                                                        const SpanContext* trace);
  boost::asio::awaitable<std::string> CallHttpTool(const HttpTool& tool,
                                                   const std::string& arguments,
                                                   const ToolContext& context,
                                                   const SpanContext* trace);

  StoreRunner& store_;
  HttpCaller& http_;
  const Clock& clock_;
  MetadataGateway& gateway_;
  McpToolbox& mcp_;
  ToolHeaders& headers_;
  A2aToolbox* a2a_;  // none: no remote agents are called
};

}  // namespace agentgate
