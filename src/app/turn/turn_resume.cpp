// A turn that goes on from a pause for approval (docs/daemon.md, Tool approvals): what the model
// was shown and what the turn had done come back from the run's stored state, the paused step's
// calls are run (the approved ones and those that needed no approval) or answered as denied, and
// the turn goes on at the model call after them.
#include "app/turn/invoke_agent.hpp"
#include "app/turn/turn_run.hpp"

#include <boost/json/parse.hpp>

#include <algorithm>
#include <map>

namespace agentgate {

namespace asio = boost::asio;

asio::awaitable<Result<void>> InvokeAgent::Restore(TurnRun& run) {
  const ResumedRunsTurn& resumed = *run.command.Resumed();
  const PausedTurn& paused = *resumed.paused;
  const std::vector<ApprovalDecision>& decisions = *resumed.decisions;
  const auto& config = run.agent.config;
  run.resumed = &paused;
  run.recorded_system = paused.recorded_system;
  run.history_sent = paused.history_sent;
  if (!config.mcp_servers.empty()) {
    const SpanContext* trace = run.span != nullptr ? run.span->context_ptr() : nullptr;
    run.mcp_tools =
        co_await d_.mcp.ToolsFor(run.command.caller.org_id, config, run.deadlines.soft, trace);
  }
  co_await OfferRemoteAgents(d_, run);
  std::set<std::string> action_names;
  for (const auto& action : config.actions) action_names.insert(action.name);
  // A /v1 caller's own functions are not offered once the run goes on without that caller.
  ModelRequest request = paused.request;
  std::erase_if(request.tools, [&](const ToolSpec& tool) {
    return std::find(paused.caller_tools.begin(), paused.caller_tools.end(), tool.name) !=
           paused.caller_tools.end();
  });
  run.turn.emplace(std::move(request), std::move(action_names), config.max_iterations,
                   paused.progress);

  // Each call of the paused step in its order: denied ones are told to the model, the rest run,
  // an edited one with the arguments approved (the model's own stay in the transcript).
  std::vector<ToolCall> to_run;
  std::vector<ToolResult> denied = paused.ran;  // a step that ran before it paused: as it ran
  std::map<std::string, std::string> edited;    // call id -> arguments approved
  for (const auto& call : paused.to_run) {
    const bool ran = std::any_of(paused.ran.begin(), paused.ran.end(),
                                 [&](const ToolResult& r) { return r.call_id == call.id; });
    if (ran) continue;
    const auto decision =
        std::find_if(decisions.begin(), decisions.end(),
                     [&](const ApprovalDecision& d) { return d.call_id == call.id; });
    if (auto ask = paused.asks.find(call.id); ask != paused.asks.end()) {
      // Its MCP server asked the user: the call is made again with the answer (or the decline).
      std::optional<boost::json::value> content;
      if (decision != decisions.end() && decision->answer && !decision->declined)
        content = boost::json::parse(*decision->answer);
      run.answering[call.id] = McpToolbox::InputAnswer{ask->second, std::move(content)};
      to_run.push_back(call);
      continue;
    }
    if (decision != decisions.end() && !decision->approve) {
      denied.push_back(ToolResult{call.id, call.name, DeniedResult(*decision)});
      continue;
    }
    if (decision != decisions.end() && decision->answer) {
      denied.push_back(ToolResult{call.id, call.name, *decision->answer});  // the user's answer
      continue;
    }
    to_run.push_back(call);
    if (decision != decisions.end() && decision->arguments) {
      to_run.back().arguments_json = *decision->arguments;
      edited[call.id] = *decision->arguments;
    }
  }
  // Edited arguments the safety policy blocks end the turn blocked, none of its calls run, as
  // a paused call's blocked arguments do.
  for (const auto& [id, arguments] : edited) {
    if (run.agent.safety.BlocksArguments(arguments)) {
      run.first_step = run.turn->OnApprovalWithheld();
      co_return Result<void>{};
    }
  }
  std::vector<ToolResult> results = co_await RunToolCalls(d_.tools, to_run, run, d_.clock, true);
  for (auto& result : results) {
    if (auto it = edited.find(result.call_id); it != edited.end())
      result.content = EditedResult(it->second, result.content);
  }
  results.insert(results.end(), std::make_move_iterator(denied.begin()),
                 std::make_move_iterator(denied.end()));
  run.first_step = AfterToolResults(run, paused.to_run, std::move(results));
  co_return Result<void>{};
}

}  // namespace agentgate
