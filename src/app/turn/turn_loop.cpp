// The turn's second phase: the model and its tools, step by step as the Turn state machine says,
// until it finishes (SPEC §5 stop rules). The soft deadline is checked between steps; a model
// call that fails is retried, or moved to another key or model, as the fallback rules say
// (app/model_chain), within the soft deadline.
#include "app/turn/invoke_agent.hpp"
#include "app/turn/turn_run.hpp"
#include "domain/agent/prompt.hpp"
#include "domain/agent/user_question.hpp"
#include "domain/tracing/genai_content.hpp"

#include <boost/asio/steady_timer.hpp>
#include <boost/asio/this_coro.hpp>
#include <boost/asio/use_awaitable.hpp>

#include <algorithm>

namespace agentgate {
namespace {

namespace asio = boost::asio;
using std::chrono::milliseconds;

// A model call's own deadline lies this far past the cap: a call still running at the cap is
// ended by the cap (504), never by a timeout the turn would report as llm_error.
constexpr milliseconds kPastTheCap{1000};

milliseconds Until(SteadyTime t, const Clock& clock) {
  return std::chrono::duration_cast<milliseconds>(t - clock.SteadyNow());
}

// Each of these is a coroutine of its own so that its locals (a timer, the results being
// gathered) take room in memory only while it runs.

// A pause before a model call is retried.
asio::awaitable<void> Pause(milliseconds wait) {
  asio::steady_timer timer(co_await asio::this_coro::executor, wait);
  co_await timer.async_wait(asio::use_awaitable);
}

// With content capture on (docs/tracing.md): what the agent's safety checks withhold is never
// on a span.
tracing::ContentRules ContentRulesOf(const TurnRun& run) {
  const SafetyChecker& safety = run.agent.safety;
  return tracing::ContentRules{
      [&safety](std::string_view text) { return safety.Blocks(text); },
      run.agent.config.safety.placeholder,
      [&safety](std::string_view arguments) { return safety.BlocksArguments(arguments); }};
}

}  // namespace

asio::awaitable<std::vector<ToolResult>> RunToolCalls(ToolRunner& runner,
                                                      const std::vector<ToolCall>& calls,
                                                      const TurnRun& run, const Clock& clock,
                                                      bool approved) {
  std::vector<ToolResult> results;
  for (const auto& call : calls) {
    run.Report([&] { return run_events::ToolStarted(call.id, call.name); });
    const auto started = clock.SteadyNow();
    Span span =
        run.StartChild([&] { return "execute_tool " + call.name; }, tracing::SpanKind::kInternal);
    if (span.recording()) {
      span.Set("gen_ai.operation.name", std::string("execute_tool"));
      span.Set("gen_ai.tool.name", call.name);
      span.Set("gen_ai.tool.call.id", call.id);
      span.Set("gen_ai.tool.type", std::string("function"));
    }
    results.push_back(co_await runner.Run(call, run.tools, span.context_ptr(), approved));
    if (span.recording() && run.CapturesContent()) {
      const tracing::ContentRules rules = ContentRulesOf(run);
      span.Set("gen_ai.tool.call.arguments", rules.arguments_withheld(call.arguments_json)
                                                 ? rules.placeholder
                                                 : call.arguments_json);
      span.Set("gen_ai.tool.call.result",
               rules.withheld(results.back().content) ? rules.placeholder : results.back().content);
    }
    if (ToolFailed(results.back())) span.Fail("the tool could not answer");
    span.End();
    run.Report([&] {
      const auto ms = std::chrono::duration_cast<milliseconds>(clock.SteadyNow() - started).count();
      return run_events::ToolFinished(call.id, call.name, !ToolFailed(results.back()), ms);
    });
  }
  co_return results;
}

namespace {

void CountUsage(TurnRun& run, const ModelReply& reply, double cost_usd) {
  run.result.usage.input_tokens += reply.usage.input_tokens;
  run.result.usage.output_tokens += reply.usage.output_tokens;
  run.result.usage.cached_input_tokens += reply.usage.cached_input_tokens;
  run.result.usage.cache_write_tokens += reply.usage.cache_write_tokens;
  run.result.cost_usd += cost_usd;
}

// A model call's `chat` span (the GenAI conventions' inference span), under the turn's.
Span StartChatSpan(const TurnRun& run, const ChainEntry& model, const ModelRequest& request) {
  Span span = run.StartChild([&] { return "chat " + model.model; }, tracing::SpanKind::kClient);
  if (span.recording()) {
    span.Set("gen_ai.operation.name", std::string("chat"));
    span.Set("gen_ai.provider.name", model.provider);
    span.Set("gen_ai.request.model", model.model);
    if (run.CapturesContent()) {
      span.Set("gen_ai.system_instructions", tracing::SystemInstructionsJson(request.system));
      span.Set("gen_ai.input.messages",
               tracing::InputMessagesJson(request.messages, ContentRulesOf(run)));
    }
  }
  return span;
}

// How the call went, on its span: its usage, or why it failed (the kind, never the provider's
// own message).
void DescribeOnSpan(Span& span, const MeteredCall& call, const TurnRun& run) {
  if (const auto* reply = std::get_if<ModelReply>(&call.result); reply && run.CapturesContent())
    span.Set("gen_ai.output.messages", tracing::OutputMessagesJson(*reply, ContentRulesOf(run)));
  if (call.refused) {
    span.Set("error.type", std::string("spend_limit_reached"));
    span.Fail("spend_limit_reached");
  } else if (const auto* reply = std::get_if<ModelReply>(&call.result)) {
    if (!reply->response_model.empty()) span.Set("gen_ai.response.model", reply->response_model);
    span.Set("gen_ai.usage.input_tokens", reply->usage.input_tokens);
    span.Set("gen_ai.usage.output_tokens", reply->usage.output_tokens);
    if (!reply->finish_reason.empty())
      span.Set("gen_ai.response.finish_reasons", std::vector<std::string>{reply->finish_reason});
  } else {
    const std::string kind(FailureKindName(std::get<ModelFailure>(call.result).kind));
    span.Set("error.type", kind);
    span.Fail(kind);
  }
}

bool NeedsApproval(const TurnRun& run, const std::string& call_id) {
  return std::find(run.needs_approval.begin(), run.needs_approval.end(), call_id) !=
         run.needs_approval.end();
}

// 402 for a turn that cannot reserve its first model call.
Error SpendLimitReached(const SpendDecision& refused, std::int64_t now_ms) {
  return governance::SpendLimitError(
      governance::LimitReached{refused.scope, refused.limit_usd, refused.spent_usd}, now_ms);
}

}  // namespace

void InvokeAgent::NoteNeeds(TurnRun& run, const std::vector<ToolCall>& calls) {
  for (const auto& call : calls) {
    // A question the model could not ask well is the tool's error for it, not a pause.
    if (call.name == kAskUserTool && run.agent.config.ask_user &&
        ReadUserQuestion(call.arguments_json)) {
      run.needs_answer.push_back(call.id);
    } else if (d_.tools.NeedsApproval(call, run.tools)) {
      run.needs_approval.push_back(call.id);
    }
  }
}

Turn::Step InvokeAgent::PauseForNeeds(TurnRun& run, const std::vector<ToolCall>& calls) {
  // Arguments (a question) the safety policy blocks are never shown to the person asked, nor
  // anywhere a paused call is shown: such a step ends the turn blocked.
  const bool withheld = std::any_of(calls.begin(), calls.end(), [&](const ToolCall& call) {
    const bool waits = NeedsApproval(run, call.id) ||
                       std::find(run.needs_answer.begin(), run.needs_answer.end(), call.id) !=
                           run.needs_answer.end();
    return waits && run.agent.safety.BlocksArguments(call.arguments_json);
  });
  if (withheld) {
    run.needs_approval.clear();
    run.needs_answer.clear();
    return run.turn->OnApprovalWithheld();
  }
  run.paused_calls = calls;
  // Stored as they are shown, so what was checked is what a person reads and approves.
  for (auto& call : run.paused_calls) call.arguments_json = ShownArguments(call.arguments_json);
  return run.turn->OnApprovalNeeded(!run.needs_answer.empty());
}

Turn::Step InvokeAgent::AfterToolResults(TurnRun& run, const std::vector<ToolCall>& calls,
                                         std::vector<ToolResult> results) {
  const bool asked = std::any_of(results.begin(), results.end(),
                                 [](const ToolResult& r) { return r.ask.has_value(); });
  if (!asked) return run.turn->OnToolResults(results);
  run.ran.clear();
  for (auto& result : results) {
    if (!result.ask) {
      run.ran.push_back(std::move(result));
      continue;
    }
    // A question the safety policy blocks is never shown: the turn ends blocked.
    if (run.agent.safety.Blocks(result.ask->question)) {
      run.asks.clear();
      run.needs_answer.clear();
      return run.turn->OnApprovalWithheld();
    }
    run.needs_answer.push_back(result.call_id);
    run.asks[result.call_id] = std::move(*result.ask);
  }
  run.paused_calls = calls;
  for (auto& call : run.paused_calls) call.arguments_json = ShownArguments(call.arguments_json);
  return run.turn->OnApprovalNeeded(true);
}

asio::awaitable<Result<void>> InvokeAgent::RunModelAndTools(TurnRun& run) {
  Turn& turn = *run.turn;
  auto step = run.first_step ? std::move(*run.first_step) : turn.Start();
  run.first_step.reset();
  while (!std::holds_alternative<Turn::Finish>(step)) {
    // Stopped (the cap, or the caller's cancel) while the last step ran: its tools and calls end
    // with errors rather than throwing, so no further step starts here.
    if ((co_await asio::this_coro::cancellation_state).cancelled() != asio::cancellation_type::none)
      co_return Error(ErrorCode::kCanceled, "the turn was stopped");
    if (d_.clock.SteadyNow() >= run.deadlines.soft) {
      step = turn.OnSoftDeadline();
      continue;
    }
    if (const auto* tools = std::get_if<Turn::RunTools>(&step)) {
      // A step any of whose calls needs a person's approval, or asks the user a question, pauses
      // before any of them runs.
      NoteNeeds(run, tools->calls);
      if (!run.needs_approval.empty() || !run.needs_answer.empty()) {
        step = PauseForNeeds(run, tools->calls);
        continue;
      }
      auto results = co_await RunToolCalls(d_.tools, tools->calls, run, d_.clock, false);
      step = AfterToolResults(run, tools->calls, std::move(results));
      continue;
    }
    const ModelRequest& request = *std::get<Turn::CallModel>(step).request;
    AG_CO_TRY(auto next, co_await CallModel(run, request));
    step = std::move(next);
  }
  run.outcome = std::move(std::get<Turn::Finish>(step).outcome);
  co_return Result<void>{};
}

asio::awaitable<Result<Turn::Step>> InvokeAgent::CallModel(TurnRun& run,
                                                           const ModelRequest& request) {
  Turn& turn = *run.turn;
  MeteredCall answer;        // each call's outcome, in turn
  ModelCallOptions options;  // how each is made
  ModelChain& chain = run.metered.chain();
  chain.StartStep();
  for (;;) {
    const milliseconds call_deadline = Until(run.deadlines.hard, d_.clock) + kPastTheCap;
    const int call = ++run.model_calls_started;
    run.Report([&] {
      return run_events::ModelStarted(call, chain.entry().provider, chain.entry().model);
    });
    if (run.reply_stream) run.reply_stream->CallStarted(call);
    Span span = StartChatSpan(run, chain.entry(), request);
    // An answer held to a schema is shown once it keeps to it, never as the model writes it: a
    // first answer its repair replaces would have been streamed as the reply.
    options.on_text = request.answer_format ? nullptr : run.TextSinkOrNull();
    if (const auto* context = span.context_ptr()) options.traceparent = context->Traceparent();
    const SpanContext* trace = span.context_ptr();
    AG_CO_TRYV(co_await run.metered.Complete(request, call_deadline, answer, options, trace));
    if (span.recording()) DescribeOnSpan(span, answer, run);
    span.End();
    if (answer.refused) {
      run.Report([&] { return run_events::ModelFailed(call, "spend_limit_reached"); });
      // A turn that cannot pay for its first call is refused, as is one whose calls so far all
      // failed (it has nothing to answer with: a fallback's dearer call, say); a later one
      // answers with what it has (a summary's call made first counts as one).
      if (!run.metered.AnyAnswered() && !run.SummaryCalled())
        co_return SpendLimitReached(*answer.refused, d_.clock.NowMs());
      co_return turn.OnSpendExhausted();
    }
    run.call_log.push_back(answer.record);
    if (const auto* reply = std::get_if<ModelReply>(&answer.result)) {
      run.Report([&] {
        return run_events::ModelFinished(call, reply->usage.input_tokens,
                                         reply->usage.output_tokens, answer.cost_usd);
      });
      CountUsage(run, *reply, answer.cost_usd);
      if (run.reply_stream)
        run.ReportAll(run.reply_stream->CallEnded(true, !reply->tool_calls.empty()));
      co_return turn.OnModelReply(*reply);
    }
    const auto& failure = std::get<ModelFailure>(answer.result);
    run.Report([&] { return run_events::ModelFailed(call, FailureKindName(failure.kind)); });
    if (run.reply_stream) run.ReportAll(run.reply_stream->CallEnded(false, false));
    // Retried, or on the chain's next model, or the turn stops (fallback::Move).
    const auto decision = chain.AfterFailure(failure, Until(run.deadlines.soft, d_.clock));
    if (decision.move == fallback::Move::kStop)
      co_return turn.OnModelFailed(decision.stop, failure.message);
    if (decision.wait.count() > 0) co_await Pause(decision.wait);
  }
}

}  // namespace agentgate
