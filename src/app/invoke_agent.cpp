#include "app/invoke_agent.hpp"

#include "app/handoff_wait.hpp"
#include "app/history_summarizer.hpp"
#include "app/metered_model.hpp"
#include "crypto/crypto.hpp"
#include "domain/agent/memory_recall.hpp"
#include "domain/agent/prompt.hpp"
#include "domain/agent/retry_policy.hpp"
#include "domain/agent/transcript.hpp"
#include "domain/governance/governance.hpp"

#include <boost/asio/as_tuple.hpp>
#include <boost/asio/bind_cancellation_slot.hpp>
#include <boost/asio/cancellation_signal.hpp>
#include <boost/asio/co_spawn.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/this_coro.hpp>
#include <boost/asio/use_awaitable.hpp>

#include <algorithm>

namespace agentgate {
namespace {

namespace asio = boost::asio;
using SteadyClock = std::chrono::steady_clock;
using std::chrono::milliseconds;

constexpr milliseconds kPastTheCap{1000};
constexpr int kMemoriesShown = 10;
// How often a turn queued behind one running on another server looks again: soon at first (most
// turns are short), then backing off so long turns cost the store little.
constexpr milliseconds kTurnQueueFirstPoll{5};
constexpr milliseconds kTurnQueueMaxPoll{100};

// Removes a conversation ticket when its turn ends, canceled or not: posted to the blocking pool
// because a canceled coroutine can no longer co_await.
class TicketGuard {
 public:
  TicketGuard(StoreRunner& store, std::int64_t ticket) : store_(store), ticket_(ticket) {}
  ~TicketGuard() {
    const std::int64_t ticket = ticket_;
    store_.Post([ticket](Store& s) { (void)s.DequeueTurn(ticket); });
  }
  TicketGuard(const TicketGuard&) = delete;
  TicketGuard& operator=(const TicketGuard&) = delete;

 private:
  StoreRunner& store_;
  std::int64_t ticket_;
};

milliseconds Until(SteadyClock::time_point t) {
  return std::chrono::duration_cast<milliseconds>(t - SteadyClock::now());
}

// The next two are coroutines of their own so that their locals (a timer, the results being
// gathered) take room in memory only while they run, not in RunTurn's frame for a turn's life.

// A pause before a model call is retried.
asio::awaitable<void> Pause(milliseconds wait) {
  asio::steady_timer timer(co_await asio::this_coro::executor, wait);
  co_await timer.async_wait(asio::use_awaitable);
}

// The tool calls of one model reply, run in order.
asio::awaitable<std::vector<ToolResult>> RunTools(ToolRunner& runner,
                                                  const std::vector<ToolCall>& calls,
                                                  const ToolContext& context) {
  std::vector<ToolResult> results;
  for (const auto& call : calls) results.push_back(co_await runner.Run(call, context));
  co_return results;
}

// Takes this turn's place on an existing conversation: at most 200 calls in any 120 s on it (its
// first call included; refused calls do not count), then one turn at a time in arrival order, first
// in this server (no store traffic while waiting), then across servers through the store. The wait
// counts against the turn's cap; `lease` and `ticket_guard` hold the place until the turn ends.
asio::awaitable<Result<void>> WaitForTurn(InvokeDeps& d, const std::string& conversation_id,
                                          SteadyClock::time_point hard_cap,
                                          std::optional<ConversationQueue::Lease>& lease,
                                          std::optional<TicketGuard>& ticket_guard) {
  const std::int64_t now = d.clock.NowMs();
  AG_CO_TRY(const auto window, co_await d.store.Run([&](Store& s) {
    return s.RecordConversationCall(conversation_id, now, governance::kConversationWindowMs,
                                    governance::kConversationCallLimit);
  }));
  if (!window.allowed) {
    d.metrics.Add("agentgate_rate_limited_total", {});
    Error limited(ErrorCode::kRateLimited,
                  "this conversation passed 200 calls in 2 minutes; retry after " +
                      std::to_string(window.retry_after_seconds) + " s");
    limited.retry_after_seconds = window.retry_after_seconds;
    co_return limited;
  }
  auto acquired = co_await d.conversations.Acquire(conversation_id);
  if (!acquired)
    co_return Error(ErrorCode::kTurnTimeout,
                    "canceled while waiting for the conversation's previous turn");
  lease.emplace(std::move(*acquired));
  const std::int64_t expires = d.clock.NowMs() + Until(hard_cap).count();
  AG_CO_TRY(const std::int64_t ticket, co_await d.store.Run([&](Store& s) {
    return s.EnqueueTurn(conversation_id, expires);
  }));
  ticket_guard.emplace(d.store, ticket);  // gives the place up however this turn ends
  for (milliseconds wait = kTurnQueueFirstPoll;; wait = std::min(wait * 2, kTurnQueueMaxPoll)) {
    const std::int64_t at = d.clock.NowMs();
    AG_CO_TRY(const bool head, co_await d.store.Run([&](Store& s) {
      return s.IsTurnAtHead(conversation_id, ticket, at);
    }));
    if (head) break;
    asio::steady_timer poll(co_await asio::this_coro::executor, wait);
    co_await poll.async_wait(asio::use_awaitable);
  }
  co_return Result<void>{};
}

// What may end a turn before its body does: the hard cap's timer and the caller's cancellation.
// Their handlers hold it, as they may run after the turn has returned; all of them run on the
// turn's own event loop.
struct TurnStop {
  enum class Reason { kNone, kHardCap, kCanceled };
  void Fire(Reason why) {
    if (finished || reason != Reason::kNone) return;
    reason = why;
    signal.emit(asio::cancellation_type::terminal);
  }
  asio::cancellation_signal signal;
  Reason reason = Reason::kNone;
  bool finished = false;  // the body has returned: nothing is left to cancel
};

// The instructions of the caller's instance `instance_id` of the agent (a per-instance agent).
// Its own coroutine, as are the lookups below: what they read is gone from memory while the turn
// runs.
asio::awaitable<Result<std::string>> InstanceInstructions(InvokeDeps& d,
                                                          const InvokeCommand& command,
                                                          const std::string& instance_id) {
  AG_CO_TRY(auto instance, co_await d.store.Run([&](Store& s) {
    return s.GetInstance(command.caller.org_id, command.agent_id, instance_id);
  }));
  if (!instance)
    co_return Error(ErrorCode::kInstanceNotFound, "instance '" + instance_id + "' not found");
  co_return std::move(instance->instructions);
}

// The id of the existing conversation the request names, when it is the caller's with this agent
// (and instance); 404 otherwise, the same for one that does not exist.
asio::awaitable<Result<std::optional<std::string>>> FindConversation(
    InvokeDeps& d, const InvokeCommand& command, const std::string& instance_id) {
  const std::string& wanted = *command.request.conversation_id;
  AG_CO_TRY(auto found, co_await d.store.Run([&](Store& s) { return s.GetConversation(wanted); }));
  if (!found || found->org_id != command.caller.org_id || found->env != command.caller.env ||
      found->agent_id != command.agent_id || found->instance_id != instance_id) {
    co_return Error(ErrorCode::kConversationNotFound, "conversation '" + wanted + "' not found");
  }
  co_return std::optional<std::string>(std::move(found->id));
}

// 402 for a turn that cannot reserve its first model call.
Error SpendLimitReached(const SpendDecision& refused, std::int64_t now_ms) {
  Error error(ErrorCode::kSpendLimitReached,
              "the " + refused.scope + "'s monthly spend limit is reached");
  error.With("scope", refused.scope)
      .With("limit_usd", refused.limit_usd)
      .With("spent_usd", refused.spent_usd)
      .With("resets_at", governance::IsoUtc(governance::NextMonthStartMs(now_ms)));
  return error;
}

}  // namespace

asio::awaitable<Result<AdmittedAgent>> InvokeAgent::Admit(const Caller& caller,
                                                          const std::string& agent_id) {
  AG_CO_TRY(auto agent, co_await d_.catalog.Deployed(caller.org_id, agent_id, caller.env));
  AG_CO_TRYV(co_await Authorize(d_.tenants, caller, agent_id, "chat"));
  co_return AdmittedAgent(std::move(agent));
}

asio::awaitable<Result<InvokeResult>> InvokeAgent::Invoke(const InvokeCommand& command) {
  const auto started = SteadyClock::now();
  const Deadlines deadlines{started + d_.timing.answer_early, started + d_.timing.hard_cap};
  // Counted for the hand-off spinning (a lone turn from a busy server) and the turns gauge.
  const RunningTurn running;
  const auto executor = co_await asio::this_coro::executor;
  // The hard cap cancels the body, and with it every upstream call it has in flight; so does the
  // caller's cancellation (an MCP client's). A store call cannot be canceled: the body ends when
  // it returns, so a commit that began before the cap finishes, and its outcome is the answer
  // (docs/cancellation.md). A timer's handler and a signal, not a race of coroutines: the turn
  // holds no coroutine frames for them while it waits on its model.
  const auto stop = std::make_shared<TurnStop>();
  asio::steady_timer cap(executor, deadlines.hard);
  cap.async_wait([stop](const boost::system::error_code& ec) {
    if (!ec) stop->Fire(TurnStop::Reason::kHardCap);
  });
  if (command.cancel) command.cancel->OnCancel([stop] { stop->Fire(TurnStop::Reason::kCanceled); });
  CommitOutcome outcome;
  auto ended = co_await asio::co_spawn(
      executor, Body(command, deadlines, outcome),
      asio::bind_cancellation_slot(stop->signal.slot(), asio::as_tuple(asio::use_awaitable)));
  stop->finished = true;
  cap.cancel();
  d_.metrics.Observe("agentgate_turn_duration_seconds", {},
                     std::chrono::duration<double>(SteadyClock::now() - started).count());
  if (stop->reason == TurnStop::Reason::kNone) {
    if (std::get<0>(ended)) std::rethrow_exception(std::get<0>(ended));
    co_return std::move(std::get<1>(ended));
  }
  // Stopped: what the body returned, or threw, as its operations were canceled is not the answer,
  // unless its commit had an outcome.
  if (outcome) co_return std::move(*outcome);
  if (stop->reason == TurnStop::Reason::kCanceled) {
    d_.metrics.Add("agentgate_turn_stops_total", {{"reason", "canceled"}});
    co_return Error(ErrorCode::kCanceled, "the caller canceled the turn");
  }
  d_.metrics.Add("agentgate_turn_stops_total", {{"reason", "hard_cap"}});
  co_return Error(ErrorCode::kTurnTimeout,
                  "the turn passed turn_timeout_seconds (" +
                      std::to_string(d_.timing.hard_cap.count() / 1000) +
                      " s) and was canceled; split the work into smaller calls");
}

asio::awaitable<Result<InvokeResult>> InvokeAgent::Body(const InvokeCommand& command,
                                                        Deadlines deadlines,
                                                        CommitOutcome& outcome) {
  const Caller& caller = command.caller;
  const auto agent = command.agent.loaded();
  const auto& request = command.request;

  std::string instance_id;
  std::string instance_instructions;
  if (agent->config.per_instance) {
    if (!request.instance_id || request.instance_id->empty()) {
      co_return InvalidField("instance_id", "is required: agent '" + command.agent_id +
                                                "' is configured per instance");
    }
    instance_id = *request.instance_id;
    AG_CO_TRY(instance_instructions, co_await InstanceInstructions(d_, command, instance_id));
  }

  // What the turn runs on: no conversation (stateless), a new one its commit creates, or an
  // existing one whose place in line this turn holds until it ends. One call of RunTurn, with
  // these by reference: each call site and by-value argument would take its own room in this
  // coroutine's frame for as long as the turn runs.
  std::optional<std::string> conversation_id;
  std::optional<ConversationRecord> new_conversation;
  std::optional<ConversationQueue::Lease> lease;
  std::optional<TicketGuard> ticket_guard;
  if (request.stateful && request.conversation_id) {
    AG_CO_TRY(conversation_id, co_await FindConversation(d_, command, instance_id));
    AG_CO_TRYV(co_await WaitForTurn(d_, *conversation_id, deadlines.hard, lease, ticket_guard));
  } else if (request.stateful) {
    // A first call's conversation is created by its turn's commit: a turn refused or canceled
    // leaves none behind. Nobody else knows its id yet, so it has no other turn to wait for and
    // an empty call window (the commit records this first call in it). Time-ordered, like turn
    // ids: new conversations and their first messages go in at the edge of the store's indexes.
    const std::int64_t started_ms = d_.clock.NowMs();
    new_conversation.emplace(ConversationRecord{"conv_" + crypto::TimeOrderedHex(started_ms, 8),
                                                caller.org_id, caller.env, command.agent_id,
                                                instance_id, started_ms});
    conversation_id = new_conversation->id;
  }
  co_return co_await RunTurn(command, agent, instance_instructions, conversation_id,
                             new_conversation, deadlines, outcome);
}

// What a turn carries from its prompt to its commit. It lives in RunTurn's frame, and the phases
// before the first model call (the reads, the prompt) and after the last (the commit) run as
// coroutines of their own: a coroutine's frame keeps room for every local of its body for as long
// as it runs, so the locals of those phases would otherwise sit in memory while the turn waits on
// its model, which is most of a turn's life.
struct InvokeAgent::TurnRun {
  TurnRun(InvokeDeps& d, const InvokeCommand& command_in,
          const std::shared_ptr<const LoadedAgent>& agent_in,
          const std::optional<std::string>& conversation_in,
          std::optional<ConversationRecord>& new_conversation_in, Deadlines deadlines_in,
          ModelClient& model, Price price)
      : command(command_in),
        agent(agent_in),
        conversation_id(conversation_in),
        new_conversation(new_conversation_in),
        deadlines(deadlines_in),
        started_ms(d.clock.NowMs()),
        metered(
            d.spend, d.clock, d.metrics, model, agent_in->config.model.provider,
            SpendAccount{command_in.caller.org_id, command_in.agent_id,
                         governance::MonthOf(started_ms), agent_in->config.monthly_spend_limit_usd,
                         price, agent_in->config.model.max_output_tokens}),
        tools{*agent_in,
              MemoryScope{command_in.caller.org_id, command_in.caller.env, command_in.agent_id,
                          command_in.request.group_key.value_or("")},
              deadlines_in.soft, &remembered, &mcp_tools} {
    result.conversation_id = conversation_in;
  }

  const InvokeCommand& command;
  const std::shared_ptr<const LoadedAgent>& agent;
  const std::optional<std::string>& conversation_id;
  std::optional<ConversationRecord>& new_conversation;
  const Deadlines deadlines;
  const std::int64_t started_ms;
  const SteadyClock::time_point started = SteadyClock::now();
  MeteredModel metered;
  McpTurnTools mcp_tools;
  std::unique_ptr<SummaryStep> summary_step;  // a summarize agent's, when its history was folded
  std::string recorded_system;                // the prompt's system text as the transcript keeps it
  std::size_t history_sent = 0;
  std::optional<Turn> turn;
  InvokeResult result;
  std::vector<ModelCallRecord> call_log;
  std::vector<RememberedFact> remembered;  // stored with the turn, or not at all
  const ToolContext tools;                 // what the turn's tools run with
};

asio::awaitable<Result<InvokeResult>> InvokeAgent::RunTurn(
    const InvokeCommand& command, const std::shared_ptr<const LoadedAgent>& agent,
    std::string& instance_instructions, const std::optional<std::string>& conversation_id,
    std::optional<ConversationRecord>& new_conversation, Deadlines deadlines,
    CommitOutcome& commit_outcome) {
  const auto& config = agent->config;
  ModelClient* model =
      d_.models.count(config.model.provider) ? d_.models.at(config.model.provider) : nullptr;
  if (model == nullptr)
    co_return Error(ErrorCode::kInternal,
                    "provider '" + config.model.provider + "' is not configured");
  const auto price_it = d_.prices.find(config.model.provider + "/" + config.model.name);
  TurnRun run(d_, command, agent, conversation_id, new_conversation, deadlines, *model,
              price_it != d_.prices.end() ? price_it->second : Price{});
  AG_CO_TRYV(co_await PrepareTurn(run, instance_instructions));

  const bool summary_called = run.summary_step && run.summary_step->record.called;
  Turn& turn = *run.turn;
  MeteredCall answer;  // each model call's outcome, in turn
  auto step = turn.Start();
  while (!std::holds_alternative<Turn::Finish>(step)) {
    if (SteadyClock::now() >= deadlines.soft) {
      step = turn.OnSoftDeadline();
      continue;
    }
    if (auto* tools = std::get_if<Turn::RunTools>(&step)) {
      step = turn.OnToolResults(co_await RunTools(d_.tools, tools->calls, run.tools));
      continue;
    }
    const ModelRequest& model_request = *std::get<Turn::CallModel>(step).request;
    for (int failures = 0;;) {
      // The call's own deadline lies past the cap: a call still running at the cap is ended by
      // the cap (504), never by a timeout the turn would report as llm_error.
      const milliseconds call_deadline = Until(deadlines.hard) + kPastTheCap;
      AG_CO_TRYV(co_await run.metered.Complete(model_request, call_deadline, answer));
      if (answer.refused) {
        // A turn that cannot pay for its first call is refused; a later one answers with what
        // it has (a summary's call made first counts as one).
        if (run.call_log.empty() && !summary_called)
          co_return SpendLimitReached(*answer.refused, d_.clock.NowMs());
        step = turn.OnSpendExhausted();
        break;
      }
      run.call_log.push_back(answer.record);
      if (auto* reply = std::get_if<ModelReply>(&answer.result)) {
        run.result.usage.input_tokens += reply->usage.input_tokens;
        run.result.usage.output_tokens += reply->usage.output_tokens;
        run.result.cost_usd += answer.cost_usd;
        step = turn.OnModelReply(*reply);
        break;
      }
      const auto& failure = std::get<ModelFailure>(answer.result);
      const auto decision = DecideRetry(failure, ++failures, Until(deadlines.soft));
      if (!decision.retry) {
        step = turn.OnModelFailed(decision.give_up, failure.message);
        break;
      }
      co_await Pause(decision.wait);
    }
  }
  co_return co_await CommitTurn(run, std::get<Turn::Finish>(step).outcome, commit_outcome);
}

asio::awaitable<Result<void>> InvokeAgent::PrepareTurn(TurnRun& run,
                                                       std::string& instance_instructions) {
  const auto& config = run.agent->config;
  const auto& request = run.command.request;
  PromptInputs inputs;
  inputs.instance_instructions = std::move(instance_instructions);
  inputs.additional_instructions = request.additional_instructions;
  inputs.host_context = request.host_context;
  inputs.message = request.message;
  const bool summarize = config.history.strategy == HistoryStrategy::kSummarize;
  ConversationSummary summary;             // what earlier turns folded (summarize)
  std::vector<std::int64_t> history_seqs;  // each inputs.history message's number
  if (run.conversation_id && !run.new_conversation) {
    // Only the tail the context can hold: a turn on the 10,000th message reads what one on the
    // 10th does.
    const std::string& conversation_id = *run.conversation_id;
    const HistoryBudget budget = HistoryBudgetOf(config);
    AG_CO_TRY(auto history, co_await d_.store.Run([&](Store& s) {
      return s.LoadRecentMessages(conversation_id, budget.max_bytes, budget.max_messages);
    }));
    if (summarize) {
      AG_CO_TRY(summary, co_await d_.store.Run(
                             [&](Store& s) { return s.LoadConversationSummary(conversation_id); }));
      std::erase_if(history, [&](const MessageRecord& m) { return m.seq <= summary.through_seq; });
      inputs.history_summary = summary.text;
    }
    for (auto& m : history) {
      ChatMessage message;
      message.role = m.role == "assistant" ? Role::kAssistant : Role::kUser;
      message.content = std::move(m.content);
      inputs.history.push_back(std::move(message));
      history_seqs.push_back(m.seq);
    }
  }
  if (config.memory == MemoryMode::kShared) {
    // Every fact of the group is searched by the store's full-text index; with no match (or no
    // words to match) the newest facts are shown instead.
    const auto terms = RecallTerms(request.message);
    const MemoryScope& scope = run.tools.memory_scope;
    AG_CO_TRY(auto recalled, co_await d_.store.Run([&](Store& s) {
      return s.RecallMemories(scope, terms, kMemoriesShown);
    }));
    if (recalled.empty()) {
      AG_CO_TRY(recalled, co_await d_.store.Run(
                              [&](Store& s) { return s.ListMemories(scope, kMemoriesShown); }));
    }
    for (auto& m : recalled) inputs.memories.push_back(std::move(m.fact));
  }
  if (!config.mcp_servers.empty()) {
    run.mcp_tools = co_await d_.mcp.ToolsFor(run.command.caller.org_id, config, run.deadlines.soft);
    inputs.extra_tools = run.mcp_tools.offered;
  }

  auto prompt = AssemblePrompt(config, inputs);
  if (summarize && prompt.history_messages_dropped > 0) {
    // The turns that no longer fit, and as many more as leave half the room free, are folded
    // into the summary; without one (refused, failed, no time) the window of this prompt stands.
    const auto fold = static_cast<std::ptrdiff_t>(
        std::max(prompt.history_messages_dropped, HistoryToFold(config, inputs)));
    const std::vector<ChatMessage> folded(inputs.history.begin(), inputs.history.begin() + fold);
    const std::int64_t through_seq = history_seqs[static_cast<std::size_t>(fold - 1)];
    AG_CO_TRY(auto step, co_await SummarizeHistory(run.metered, config, summary, folded,
                                                   through_seq, Until(run.deadlines.soft)));
    run.summary_step = std::make_unique<SummaryStep>(std::move(step));
    if (run.summary_step->made) {
      inputs.history.erase(inputs.history.begin(), inputs.history.begin() + fold);
      inputs.history_summary = run.summary_step->made->text;
      prompt = AssemblePrompt(config, inputs);
    }
    run.result.usage.input_tokens += run.summary_step->usage.input_tokens;
    run.result.usage.output_tokens += run.summary_step->usage.output_tokens;
    run.result.cost_usd += run.summary_step->cost_usd;
  }
  run.recorded_system = std::move(prompt.recorded_system);
  run.history_sent = prompt.history_messages_sent;
  run.turn.emplace(std::move(prompt.request), std::move(prompt.action_names),
                   config.max_iterations);
  co_return Result<void>{};
}

asio::awaitable<Result<InvokeResult>> InvokeAgent::CommitTurn(TurnRun& run,
                                                              const TurnOutcome& outcome,
                                                              CommitOutcome& commit_outcome) {
  const auto& caller = run.command.caller;
  const auto& request = run.command.request;
  const Turn& turn = *run.turn;
  InvokeResult& result = run.result;
  const bool summary_called = run.summary_step && run.summary_step->record.called;
  result.stop_reason = outcome.stop_reason;
  result.model_calls = turn.model_calls() + (summary_called ? 1 : 0);
  std::string response = RenderResponse(outcome);
  result.blocked = run.agent->safety.Blocks(response);
  if (result.blocked)
    response = run.agent->config.safety.placeholder;  // the withheld text is never stored or logged
  result.response = response;

  TurnCommit commit;
  // Time-ordered: the store's index of turn ids then grows at its edge, one page a batch, instead
  // of a random page per turn (docs/decisions.md).
  commit.turn.id = "turn_" + crypto::TimeOrderedHex(d_.clock.NowMs(), 8);
  commit.turn.conversation_id = run.conversation_id.value_or("");
  commit.turn.org_id = caller.org_id;
  commit.turn.env = caller.env;
  commit.turn.agent_id = run.command.agent_id;
  commit.turn.version = run.agent->version;
  commit.turn.started_at_ms = run.started_ms;
  commit.turn.duration_ms =
      std::chrono::duration_cast<milliseconds>(SteadyClock::now() - run.started).count();
  commit.turn.stop_reason = std::string(StopReasonName(outcome.stop_reason).value_or(""));
  commit.turn.blocked = result.blocked;
  commit.turn.model_calls = result.model_calls;
  commit.turn.input_tokens = result.usage.input_tokens;
  commit.turn.output_tokens = result.usage.output_tokens;
  commit.turn.cost_usd = result.cost_usd;
  commit.turn.transcript_json =
      TranscriptJson(run.recorded_system, turn.transcript(), run.history_sent, run.call_log,
                     outcome, result.blocked, run.mcp_tools.notes,
                     run.summary_step ? std::optional(run.summary_step->record) : std::nullopt);
  result.turn_id = commit.turn.id;
  const std::int64_t now = d_.clock.NowMs();
  if (run.conversation_id) {
    commit.messages = {MessageRecord{0, "user", request.message, run.started_ms},
                       MessageRecord{0, "assistant", response, now}};
  }
  if (run.command.idempotency) {
    const IdempotentCall& idempotency = *run.command.idempotency;
    StoredResponse answer = idempotency.answer(result);
    commit.idempotency =
        IdempotencyCompletion{idempotency.key.scope, idempotency.key.claimed_at_ms, answer.status,
                              std::move(answer.body), Idempotency::ReplayUntil(now)};
  }
  commit.settlements = run.metered.Settlements();
  commit.new_conversation = std::move(run.new_conversation);
  commit.facts = std::move(run.remembered);
  if (run.summary_step) commit.summary = run.summary_step->made;
  // A turn that reaches its commit at or past the hard cap, or that the cap canceled while its
  // last step ran (a canceled or timed-out model call returns a failure, not an exception), stores
  // nothing. Past this check the commit is queued in the same step, and its outcome is the answer
  // even if the cap passes while it runs (docs/cancellation.md).
  const auto cancellation = co_await asio::this_coro::cancellation_state;
  if (SteadyClock::now() >= run.deadlines.hard ||
      cancellation.cancelled() != asio::cancellation_type::none)
    co_return Error(ErrorCode::kTurnTimeout,
                    "the turn passed turn_timeout_seconds and was canceled");
  const Result<void> committed = co_await d_.committer.Commit(commit);
  if (!committed) {
    // Only a turn that outlived its cap can lose its claim or its reservations. A conversation
    // purged as idle while its turn ran is 404, like one never found (docs/decisions.md).
    commit_outcome =
        committed.error().code == ErrorCode::kConflict
            ? Error(ErrorCode::kTurnTimeout,
                    "the turn passed turn_timeout_seconds and its idempotency key or spend "
                    "reservation was taken over")
            : committed.error();
    co_return *commit_outcome;
  }
  run.metered.Committed();
  d_.metrics.Add("agentgate_turn_stops_total",
                 {{"reason", std::string(StopReasonName(result.stop_reason).value_or("none"))}});
  commit_outcome = result;
  co_return result;
}

}  // namespace agentgate
