// The turn's last phases: settle what it answers (its stop reason, the safety verdict, its usage)
// and the record it stores, then commit it all or nothing (SPEC §5, docs/cancellation.md).
#include "app/turn/invoke_agent.hpp"
#include "app/turn/turn_run.hpp"
#include "crypto/crypto.hpp"
#include "domain/agent/prompt.hpp"
#include "domain/agent/stored_messages.hpp"
#include "domain/agent/transcript.hpp"
#include "domain/resource_ids.hpp"
#include "domain/runs/run_events.hpp"
#include "domain/tracing/genai_content.hpp"

#include <boost/asio/this_coro.hpp>

#include <algorithm>

namespace agentgate {
namespace {

namespace asio = boost::asio;

// The operator's record of the turn: who ran what, how it stopped, what it used and its
// transcript (withheld text never in it).
TurnRecord RecordOf(const TurnRun& run, const TurnOutcome& outcome, std::string id,
                    std::int64_t duration_ms) {
  const InvokeResult& result = run.result;
  const auto summary = run.summary_step ? std::optional(run.summary_step->record) : std::nullopt;
  return TurnRecord{
      std::move(id),
      run.place.conversation_id.value_or(""),
      run.command.caller.org_id,
      run.command.caller.env,
      run.command.agent_id,
      run.agent.version,
      run.started_ms,
      duration_ms,
      std::string(StopReasonName(outcome.stop_reason).value_or("")),
      result.blocked,
      result.model_calls,
      result.usage.input_tokens,
      result.usage.output_tokens,
      result.cost_usd,
      TranscriptJson(run.recorded_system, run.turn->transcript(), run.history_sent, run.call_log,
                     outcome, result.blocked, run.mcp_tools.notes, summary)};
}

// The reply as its followers see it: its text (the rest of it, when it streamed), then its
// actions; none of it when the safety policy withheld it (the run's terminal event carries the
// placeholder), and what streamed of it taken back.
void ReportReply(TurnRun& run, const TurnOutcome& outcome) {
  if (run.reply_stream) {
    run.ReportAll(run.reply_stream->Settled(outcome.reply_text, run.result.blocked));
  } else if (!run.result.blocked && !outcome.reply_text.empty()) {
    run.Report([&] { return run_events::TextDelta(outcome.reply_text); });
  }
  if (run.result.blocked) return;
  for (const auto& action : outcome.actions)
    run.Report([&] { return run_events::Action(action.name, action.arguments); });
}

// What the turn's span says of how it ended.
void DescribeOnSpan(Span& span, const TurnRun& run) {
  const InvokeResult& result = run.result;
  if (result.conversation_id) span.Set("gen_ai.conversation.id", *result.conversation_id);
  if (result.stop_reason)
    span.Set("agentgate.terminated_reason", std::string(StopReasonName(*result.stop_reason)));
  span.Set("agentgate.blocked", result.blocked);
  span.Set("agentgate.cost_usd", result.cost_usd);
  span.Set("gen_ai.usage.input_tokens", result.usage.input_tokens);
  span.Set("gen_ai.usage.output_tokens", result.usage.output_tokens);
  span.Set("agentgate.turn_id", result.turn_id);
  if (run.CapturesContent()) {
    // The answer as the caller got it: the placeholder when the reply was withheld.
    span.Set("gen_ai.input.messages",
             tracing::TextMessageJson("user", run.command.request.message));
    span.Set("gen_ai.output.messages", tracing::TextMessageJson("assistant", result.response));
  }
}

// A turn that goes on from a pause answers for its whole run: the usage of the parts before it is
// added to its own (its turn record keeps its own part, so spend is counted once).
void AddEarlierParts(InvokeResult& result, const PausedTurn& earlier) {
  result.usage.input_tokens += earlier.usage.input_tokens;
  result.usage.output_tokens += earlier.usage.output_tokens;
  result.usage.cached_input_tokens += earlier.usage.cached_input_tokens;
  result.usage.cache_write_tokens += earlier.usage.cache_write_tokens;
  result.cost_usd += earlier.cost_usd;
  result.model_calls += earlier.model_calls;
  std::vector<ModelUsage> models = earlier.models;
  for (const auto& m : result.models) {
    auto same = std::find_if(models.begin(), models.end(), [&](const ModelUsage& o) {
      return o.provider == m.provider && o.model == m.model;
    });
    if (same == models.end()) {
      models.push_back(m);
      continue;
    }
    same->calls += m.calls;
    same->failed_calls += m.failed_calls;
    same->tokens.input_tokens += m.tokens.input_tokens;
    same->tokens.output_tokens += m.tokens.output_tokens;
    same->tokens.cached_input_tokens += m.tokens.cached_input_tokens;
    same->tokens.cache_write_tokens += m.tokens.cache_write_tokens;
    same->cost_usd += m.cost_usd;
  }
  result.models = std::move(models);
}

// A turn that paused for approval: the run a person decides, written with the turn's commit (a
// new run for a plain call, else the run it is), and what the answer says of it.
RunPause PauseOf(TurnRun& run, std::int64_t now, std::chrono::milliseconds timeout) {
  InvokeResult& result = run.result;
  PausedTurn paused;
  paused.request = run.turn->request();
  paused.progress = run.turn->Progress();
  paused.to_run = run.paused_calls;
  paused.needs_approval = run.needs_approval;
  paused.needs_answer = run.needs_answer;
  paused.asks = run.asks;
  paused.ran = run.ran;
  for (const auto& tool : run.command.request.caller_tools)
    paused.caller_tools.push_back(tool.name);
  paused.recorded_system = run.recorded_system;
  paused.history_sent = run.history_sent;
  paused.usage = result.usage;
  paused.cost_usd = result.cost_usd;
  paused.model_calls = result.model_calls;
  paused.models = result.models;
  boost::json::object invoke = InvokeRequestJson(run.command.request);
  if (run.place.conversation_id) {
    invoke["conversation_id"] = *run.place.conversation_id;
    invoke["stateful"] = true;
  }
  paused.invoke = std::move(invoke);
  paused.agent_version = run.agent.version;

  const InvokeCommand& command = run.command;
  const std::string_view existing =
      command.observer != nullptr ? command.observer->RunId() : std::string_view();
  RunPause pause;
  pause.create =
      existing.empty() || (command.RunEnd() != nullptr && !command.RunEnd()->RunStored());
  RunRecord& record = pause.run;
  record.id = existing.empty() ? ids::Make(ids::kRun, crypto::TimeOrderedHex(now, 8))
                               : std::string(existing);
  record.org_id = command.caller.org_id;
  record.env = command.caller.env;
  record.agent_id = command.agent_id;
  record.token_id = command.caller.token_id;
  record.status = RunStatus::kRequiresAction;
  record.conversation_id = run.place.conversation_id.value_or("");
  record.created_at_ms = now;
  record.started_at_ms = run.started_ms;
  record.paused_json = PausedTurnJson(paused);
  record.expires_at_ms = now + timeout.count();

  result.run_id = record.id;
  auto listed = [](const std::vector<std::string>& ids, const std::string& id) {
    return std::find(ids.begin(), ids.end(), id) != ids.end();
  };
  for (const auto& call : paused.to_run) {
    if (listed(paused.needs_approval, call.id) || listed(paused.needs_answer, call.id))
      result.pending_actions.push_back(call);
  }
  result.questions = paused.needs_answer;
  result.asks = paused.asks;
  return pause;
}

// `message` as the conversation keeps it: its text, then each call of a caller's function (a
// reply that only calls them has no text to keep); a tool message is a function's output.
void AddRecords(std::vector<MessageRecord>& out, const ChatMessage& message, std::int64_t at_ms,
                const std::string& turn_id) {
  if (message.role == Role::kTool) {
    out.push_back(MessageRecord{
        0, std::string(stored_messages::kFunctionCallOutput),
        stored_messages::FunctionCallOutputContent(message.tool_call_id, message.content), at_ms,
        turn_id});
    return;
  }
  const bool assistant = message.role == Role::kAssistant;
  if (!message.content.empty() || message.tool_calls.empty())
    out.push_back(
        MessageRecord{0, assistant ? "assistant" : "user", message.content, at_ms, turn_id});
  for (const auto& call : message.tool_calls) {
    out.push_back(MessageRecord{0, std::string(stored_messages::kFunctionCall),
                                stored_messages::FunctionCallContent(call), at_ms, turn_id});
  }
}

// What the turn answers, once the safety policy has seen it: its text (the placeholder when
// withheld), its parsed output, and the caller's function calls, checked as a paused call's
// arguments are.
void SettleAnswer(TurnRun& run, const TurnOutcome& outcome) {
  InvokeResult& result = run.result;
  result.response = RenderResponse(outcome);
  const auto& calls = outcome.caller_calls;
  const bool arguments_withheld = std::any_of(calls.begin(), calls.end(), [&](const ToolCall& c) {
    return run.agent.safety.BlocksArguments(c.arguments_json);
  });
  result.blocked =
      outcome.approval_withheld || arguments_withheld || run.agent.safety.Blocks(result.response);
  // The withheld text is never stored, logged or answered.
  if (result.blocked) {
    result.response = run.agent.config.safety.placeholder;
    return;
  }
  result.output = outcome.output;
  result.tool_calls = calls;
}

}  // namespace

TurnCommit InvokeAgent::Settle(TurnRun& run, const TurnOutcome& outcome) {
  InvokeResult& result = run.result;
  result.stop_reason = outcome.stop_reason;
  // A turn going on from a pause counts its own steps; its answer adds the earlier parts' below.
  const int earlier_steps = run.resumed != nullptr ? run.resumed->progress.model_calls : 0;
  result.model_calls = run.turn->model_calls() - earlier_steps + (run.SummaryCalled() ? 1 : 0);
  result.models = run.metered.TakeUsageByModel();
  SettleAnswer(run, outcome);

  const std::int64_t now = d_.clock.NowMs();
  const auto duration =
      std::chrono::duration_cast<std::chrono::milliseconds>(d_.clock.SteadyNow() - run.started);
  // Time-ordered: the store's index of turn ids then grows at its edge, one page a batch, instead
  // of a random page per turn (docs/decisions.md). A run's answering turn takes its run's id
  // ("run_X" answers with "turn_X"): a response is found by either (docs/openai.md). A pause's
  // record is a part of the run, with an id of its own.
  const std::string_view run_id =
      run.command.observer != nullptr ? run.command.observer->RunId() : std::string_view();
  const bool pauses = Pauses(outcome.stop_reason);
  result.turn_id = !pauses && run_id.starts_with(ids::kRun)
                       ? ids::TurnOfRun(run_id)
                       : ids::Make(ids::kTurn, crypto::TimeOrderedHex(now, 8));
  TurnCommit commit;
  commit.turn = RecordOf(run, outcome, result.turn_id, duration.count());
  if (run.resumed != nullptr) AddEarlierParts(result, *run.resumed);
  if (pauses) {
    // Its conversation gets the message and the reply when the run completes.
    commit.pause = PauseOf(run, now, d_.approval_timeout);
  } else if (run.place.conversation_id) {
    // A new conversation starts with the history its first call brought, as much as the agent's
    // history window holds (a client that keeps its own history, docs/openai.md).
    const InvokeRequest& request = run.command.request;
    const auto& brought = request.history;
    if (run.place.new_conversation && !brought.empty()) {
      const std::size_t from = SeedFrom(brought, HistoryBudgetOf(run.agent.config));
      for (std::size_t i = from; i < brought.size(); ++i)
        AddRecords(commit.messages, brought[i], run.started_ms, result.turn_id);
    }
    // A continuation has no message of its own: the results it brought follow the calls.
    if (!request.message.empty() || request.continuation.empty()) {
      commit.messages.push_back(
          MessageRecord{0, "user", request.message, run.started_ms, result.turn_id});
    }
    for (const auto& m : request.continuation)
      AddRecords(commit.messages, m, run.started_ms, result.turn_id);
    const ChatMessage reply{Role::kAssistant, result.response, result.tool_calls, {}, {}};
    AddRecords(commit.messages, reply, now, result.turn_id);
  }
  if (const auto& idempotency = run.command.idempotency) {
    StoredResponse answer = idempotency->answer(result);
    commit.idempotency =
        IdempotencyCompletion{idempotency->key.scope, idempotency->key.claimed_at_ms, answer.status,
                              std::move(answer.body), Idempotency::ReplayUntil(now)};
  }
  commit.settlements = run.metered.Settlements();
  commit.new_conversation = std::move(run.place.new_conversation);
  commit.facts = std::move(run.remembered);
  // A summary is kept for a stored conversation's next turns; a stateless call's history (one it
  // brought) is summarized for this turn alone.
  if (run.summary_step && run.place.conversation_id) commit.summary = run.summary_step->made;
  if (run.place.ticket_guard) commit.queue_ticket = run.place.ticket_guard->ticket();
  if (commit.pause && commit.pause->create && run_id.empty()) {
    // A plain call's run begins at its pause: its followers read how it began and why it waits.
    const RunRecord& paused = commit.pause->run;
    RunEvent started = run_events::Started(paused.id, paused.conversation_id, paused.agent_id);
    started.seq = 1;
    RunEvent waits = run_events::RequiresAction(InvokeBodyText(result));
    waits.seq = 2;
    commit.pause->events = {std::move(started), std::move(waits)};
  }
  return commit;
}

asio::awaitable<Result<void>> InvokeAgent::Commit(TurnRun& run, TurnState& state) {
  TurnCommit commit = Settle(run, *run.outcome);
  ReportReply(run, *run.outcome);
  if (run.span != nullptr && run.span->recording()) DescribeOnSpan(*run.span, run);
  // A turn that reaches its commit at or past the hard cap, or that the cap canceled while its
  // last step ran (a canceled or timed-out model call returns a failure, not an exception), stores
  // nothing. Past this check the commit is queued in the same step, and its outcome is the answer
  // even if the cap passes while it runs (docs/cancellation.md).
  const auto cancellation = co_await asio::this_coro::cancellation_state;
  if (d_.clock.SteadyNow() >= run.deadlines.hard ||
      cancellation.cancelled() != asio::cancellation_type::none)
    co_return Error(ErrorCode::kTurnTimeout,
                    "the turn passed turn_timeout_seconds and was canceled");
  RunEndInCommit* run_end = run.command.RunEnd();
  if (run_end != nullptr && !commit.pause && !run_end->RunStored())
    commit.ended_run = run_end->EndWithTurn(InvokeBodyText(run.result), d_.clock.NowMs());
  Span span =
      run.StartChild([] { return std::string("commit_turn"); }, tracing::SpanKind::kInternal);
  const Result<void> committed = co_await d_.committer.Commit(commit);
  if (commit.ended_run) run_end->TurnCommitted(committed.has_value());
  if (span.recording()) {
    span.Set("db.operation.name", std::string("commit_turn"));
    if (!committed) {
      const std::string kind(ErrorCodeName(committed.error().code));
      span.Set("error.type", kind);
      span.Fail(kind);
    }
  }
  span.End();
  if (!committed) {
    // Only a turn that outlived its cap can lose its claim or its reservations. A conversation
    // purged as idle while its turn ran is 404, like one never found (docs/decisions.md).
    state.committed =
        committed.error().code == ErrorCode::kConflict
            ? Error(ErrorCode::kTurnTimeout,
                    "the turn passed turn_timeout_seconds and its idempotency key or spend "
                    "reservation was taken over")
            : committed.error();
    co_return Result<void>();
  }
  run.metered.Committed();
  if (run.place.ticket_guard) run.place.ticket_guard->GivenUp();  // the commit removed it
  d_.metrics.Add(
      "agentgate_turn_stops_total",
      {{"reason", std::string(StopReasonName(run.result.stop_reason).value_or("none"))}});
  state.committed.emplace();
  co_return Result<void>();
}

}  // namespace agentgate
