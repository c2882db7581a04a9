// A turn that goes on from a pause for approval (docs/daemon.md, Tool approvals): what the model
// was shown and what the turn had done come back from the run's stored state, the paused step's
// calls are run (the approved ones and those that needed no approval) or answered as denied, and
// the turn goes on at the model call after them.
#include "app/turn/invoke_agent.hpp"
#include "app/turn/turn_run.hpp"

#include <algorithm>

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
  std::set<std::string> action_names;
  for (const auto& action : config.actions) action_names.insert(action.name);
  run.turn.emplace(paused.request, std::move(action_names), config.max_iterations, paused.progress);

  // Each call of the paused step in its order: denied ones are told to the model, the rest run.
  std::vector<ToolCall> to_run;
  std::vector<ToolResult> denied;
  for (const auto& call : paused.to_run) {
    const auto decision =
        std::find_if(decisions.begin(), decisions.end(),
                     [&](const ApprovalDecision& d) { return d.call_id == call.id; });
    if (decision != decisions.end() && !decision->approve) {
      denied.push_back(ToolResult{call.id, call.name, DeniedResult(*decision)});
    } else {
      to_run.push_back(call);
    }
  }
  std::vector<ToolResult> results = co_await RunToolCalls(d_.tools, to_run, run, d_.clock, true);
  results.insert(results.end(), std::make_move_iterator(denied.begin()),
                 std::make_move_iterator(denied.end()));
  run.first_step = run.turn->OnToolResults(results);
  co_return Result<void>{};
}

}  // namespace agentgate
