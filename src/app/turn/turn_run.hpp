#pragma once
// A turn's state: where it runs, what it carries from its prompt to its commit, and the commit's
// outcome. It is held once, on the heap, for the turn's whole life, and each phase is a coroutine
// of its own that refers to it: no frame in the chain from the caller to the model call keeps a
// copy of the turn's parts, and the phases before the first model call and after the last hold
// no memory while the turn waits on its model, most of its life.

#include "app/turn/history_summarizer.hpp"
#include "app/turn/invoke_agent.hpp"
#include "app/turn/metered_model.hpp"
#include "app/turn/turn_place.hpp"
#include "domain/agent/turn.hpp"
#include "domain/governance/governance.hpp"
#include "domain/runs/event_pace.hpp"
#include "domain/runs/paused_turn.hpp"
#include "domain/runs/reply_stream.hpp"

#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace agentgate {

// Runs `calls` in order, each reported as it starts and finishes (turn_loop.cpp); `approved`: a
// person approved those that needed it.
boost::asio::awaitable<std::vector<ToolResult>> RunToolCalls(ToolRunner& runner,
                                                             const std::vector<ToolCall>& calls,
                                                             const struct TurnRun& run,
                                                             const Clock& clock, bool approved);

struct TurnRun {
  TurnRun(InvokeDeps& d, const InvokeCommand& command_in, TurnPlace& place_in,
          TurnDeadlines deadlines_in, ModelChain chain)
      : command(command_in),
        agent(*command_in.agent.loaded()),
        place(place_in),
        deadlines(deadlines_in),
        started_ms(d.clock.NowMs()),
        started(d.clock.SteadyNow()),
        metered(d.spend, d.clock, d.metrics, std::move(chain),
                SpendAccount{command_in.caller.org_id, command_in.agent_id,
                             governance::MonthOf(started_ms), agent.config.monthly_spend_limit_usd,
                             agent.config.model.max_output_tokens},
                d.tracer),
        tools{agent,
              MemoryScope{command_in.caller.org_id, command_in.caller.env, command_in.agent_id,
                          command_in.request.group_key.value_or("")},
              deadlines_in.soft,
              &remembered,
              &mcp_tools,
              &answering,
              &a2a_tools,
              [this](RunEvent event) {
                if (command.observer != nullptr) command.observer->Report(std::move(event));
              }} {
    result.conversation_id = place_in.conversation_id;
    if (command.observer != nullptr && command.observer->FollowsText()) {
      reply_stream.emplace(agent.safety, d.max_run_events / 2);
      // Every piece is added; what may be shown goes out at one event per kTextEventGap on
      // average (what arrives meanwhile goes with the next), so a fast model makes no storm of
      // events, and a model as fast as the gap is not held back by its jitter.
      text_sink = [this, &clock = d.clock](std::string_view piece) {
        reply_stream->Add(piece);
        if (!text_pace.Allows(clock.SteadyNow())) return;
        if (auto event = reply_stream->Release()) {
          text_pace.Spend();
          command.observer->Report(std::move(*event));
        }
      };
    }
  }
  TurnRun(const TurnRun&) = delete;  // its text sink points at it
  TurnRun& operator=(const TurnRun&) = delete;

  const InvokeCommand& command;
  const LoadedAgent& agent;  // the command's, which holds it for the turn
  TurnPlace& place;
  const TurnDeadlines deadlines;
  const std::int64_t started_ms;
  const SteadyTime started;
  MeteredModel metered;
  McpTurnTools mcp_tools;  // its notes are every remote tool's left out (remote agents' too)
  A2aTurnTools a2a_tools;
  std::unique_ptr<SummaryStep> summary_step;  // a summarize agent's, when its history was folded
  std::string recorded_system;                // the prompt's system text as the transcript keeps it
  std::size_t history_sent = 0;
  std::optional<Turn> turn;
  std::optional<TurnOutcome> outcome;  // how the model/tool loop finished
  InvokeResult result;
  std::vector<ModelCallRecord> call_log;
  std::vector<RememberedFact> remembered;  // stored with the turn, or not at all
  const ToolContext tools;                 // what the turn's tools run with

  int model_calls_started = 0;  // numbers the model.* events, retries included

  // Tool approvals (docs/daemon.md): the step the turn paused at (its calls, and which of them
  // wait for a decision), and, for a turn that goes on from a pause, where it was and its first
  // step (the paused step's results given).
  std::vector<ToolCall> paused_calls;
  std::vector<std::string> needs_approval;
  std::vector<std::string> needs_answer;  // questions to the user (ask_user, an MCP server's)
  // A step paused after it ran, for what its MCP servers asked the user: their questions by call
  // id, and the results of its calls that answered.
  std::map<std::string, ToolAsk> asks;
  std::vector<ToolResult> ran;
  // A turn going on from such a pause: the user's answers, sent to those servers with the calls.
  std::map<std::string, McpToolbox::InputAnswer> answering;
  const PausedTurn* resumed = nullptr;
  std::optional<Turn::Step> first_step;
  // A follower that shows the reply as it is written: what of it may be shown, and the sink the
  // model calls stream into. A plain turn has neither.
  std::optional<ReplyStream> reply_stream;
  TextSink text_sink;
  EventPace text_pace{std::chrono::milliseconds(20)};

  const TextSink* TextSinkOrNull() const { return reply_stream ? &text_sink : nullptr; }

  // Tracing (docs/tracing.md): the turn's own span, when tracing is on; its steps' spans go under
  // it. `make_name` runs only then, so a turn without tracing builds no span name.
  const Tracer* tracer = nullptr;
  Span* span = nullptr;
  // [tracing] capture_content: prompt and reply text go on the turn's spans (docs/tracing.md).
  bool CapturesContent() const { return tracer != nullptr && tracer->capture_content(); }
  template <class MakeName>
  Span StartChild(const MakeName& make_name, tracing::SpanKind kind) const {
    if (span == nullptr || span->context_ptr() == nullptr) return Span();
    return tracer->Start(make_name(), kind, span->context_ptr());
  }
  // Reports each of `events` to the observer.
  void ReportAll(std::vector<RunEvent> events) const {
    for (auto& event : events) command.observer->Report(std::move(event));
  }

  // A summary's call made before the turn's first counts as one of its calls.
  bool SummaryCalled() const { return summary_step && summary_step->record.called; }
  // Tells the turn's observer, if it has one, the event `make()` builds (only then built).
  template <class Make>
  void Report(const Make& make) const {
    if (command.observer != nullptr) command.observer->Report(make());
  }
};

// One turn's state from its place to its answer (InvokeAgent::Invoke holds it). Not movable: the
// run refers to the place.
struct TurnState {
  TurnState() = default;
  TurnState(const TurnState&) = delete;
  TurnState& operator=(const TurnState&) = delete;

  TurnPlace place;
  std::optional<TurnRun> run;  // made once the place is taken
  // Set as soon as the commit has an outcome: then the answer is `run->result` or this error, even
  // when the hard cap passed while the commit ran (a committed turn is never answered 504).
  std::optional<Result<void>> committed;
};

// The remote A2A agents of the run's agent fetched as its tools (turn_prepare): a turn and a
// resumed one offer and call them alike.
boost::asio::awaitable<void> OfferRemoteAgents(InvokeDeps& d, TurnRun& run);

}  // namespace agentgate
