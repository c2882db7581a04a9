#include "app/invoke_agent.hpp"

#include "app/history_summarizer.hpp"
#include "app/metered_model.hpp"
#include "crypto/crypto.hpp"
#include "domain/agent/memory_recall.hpp"
#include "domain/agent/prompt.hpp"
#include "domain/agent/retry_policy.hpp"
#include "domain/agent/transcript.hpp"
#include "domain/governance/governance.hpp"

#include <boost/asio/as_tuple.hpp>
#include <boost/asio/experimental/awaitable_operators.hpp>
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
  using namespace asio::experimental::awaitable_operators;
  const auto started = SteadyClock::now();
  const Deadlines deadlines{started + d_.timing.answer_early, started + d_.timing.hard_cap};
  d_.metrics.AddGauge("agentgate_turns_in_flight", {}, 1);
  asio::steady_timer cap(co_await asio::this_coro::executor, deadlines.hard);
  // The hard cap cancels the body, and with it every upstream call it has in flight. A store call
  // cannot be canceled: the race ends when it returns, so a commit that began before the cap
  // finishes, and its outcome is the answer (docs/cancellation.md).
  CommitOutcome outcome;
  // The caller's cancellation (an MCP client's) ends the turn as the cap does.
  const std::shared_ptr<TurnCancel> cancel = command.cancel;
  // The cap's wait yields its error code instead of throwing: the branch that loses the race is
  // canceled on every turn, and an exception per turn costs more than the rest of the race.
  std::variant<Result<InvokeResult>, std::tuple<boost::system::error_code>, std::monostate> first;
  if (cancel) {
    first = co_await (Body(command, deadlines, outcome) ||
                      cap.async_wait(asio::as_tuple(asio::use_awaitable)) || cancel->Canceled());
  } else {
    auto two = co_await (Body(command, deadlines, outcome) ||
                         cap.async_wait(asio::as_tuple(asio::use_awaitable)));
    if (two.index() == 0)
      first.emplace<0>(std::get<0>(std::move(two)));
    else
      first.emplace<1>();
  }
  d_.metrics.AddGauge("agentgate_turns_in_flight", {}, -1);
  d_.metrics.Observe("agentgate_turn_duration_seconds", {},
                     std::chrono::duration<double>(SteadyClock::now() - started).count());
  if (first.index() != 0 && outcome) co_return std::move(*outcome);
  if (first.index() == 2) {
    d_.metrics.Add("agentgate_turn_stops_total", {{"reason", "canceled"}});
    co_return Error(ErrorCode::kCanceled, "the caller canceled the turn");
  }
  if (first.index() == 1) {
    d_.metrics.Add("agentgate_turn_stops_total", {{"reason", "hard_cap"}});
    co_return Error(ErrorCode::kTurnTimeout,
                    "the turn passed turn_timeout_seconds (" +
                        std::to_string(d_.timing.hard_cap.count() / 1000) +
                        " s) and was canceled; split the work into smaller calls");
  }
  co_return std::get<0>(std::move(first));
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
    AG_CO_TRY(auto instance, co_await d_.store.Run([&](Store& s) {
      return s.GetInstance(caller.org_id, command.agent_id, instance_id);
    }));
    if (!instance)
      co_return Error(ErrorCode::kInstanceNotFound, "instance '" + instance_id + "' not found");
    instance_instructions = instance->instructions;
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
    AG_CO_TRY(auto found, co_await d_.store.Run([&](Store& s) {
      return s.GetConversation(*request.conversation_id);
    }));
    if (!found || found->org_id != caller.org_id || found->env != caller.env ||
        found->agent_id != command.agent_id || found->instance_id != instance_id) {
      co_return Error(ErrorCode::kConversationNotFound,
                      "conversation '" + *request.conversation_id + "' not found");
    }
    conversation_id = found->id;
    AG_CO_TRYV(co_await WaitForTurn(d_, *conversation_id, deadlines.hard, lease, ticket_guard));
  } else if (request.stateful) {
    // A first call's conversation is created by its turn's commit: a turn refused or canceled
    // leaves none behind. Nobody else knows its id yet, so it has no other turn to wait for and
    // an empty call window (the commit records this first call in it).
    ConversationRecord fresh{"conv_" + crypto::RandomHex(12),
                             caller.org_id,
                             caller.env,
                             command.agent_id,
                             instance_id,
                             d_.clock.NowMs()};
    conversation_id = fresh.id;
    new_conversation = std::move(fresh);
  }
  co_return co_await RunTurn(caller, command, agent, instance_instructions, conversation_id,
                             new_conversation, deadlines, outcome);
}

asio::awaitable<Result<InvokeResult>> InvokeAgent::RunTurn(
    const Caller& caller, const InvokeCommand& command,
    const std::shared_ptr<const LoadedAgent>& agent, std::string& instance_instructions,
    const std::optional<std::string>& conversation_id,
    std::optional<ConversationRecord>& new_conversation, Deadlines deadlines,
    CommitOutcome& commit_outcome) {
  const auto& config = agent->config;
  const auto& request = command.request;
  const std::int64_t started_ms = d_.clock.NowMs();
  const auto started = SteadyClock::now();

  PromptInputs inputs;
  inputs.instance_instructions = std::move(instance_instructions);
  inputs.additional_instructions = request.additional_instructions;
  inputs.host_context = request.host_context;
  inputs.message = request.message;
  const bool summarize = config.history.strategy == HistoryStrategy::kSummarize;
  ConversationSummary summary;             // what earlier turns folded (summarize)
  std::vector<std::int64_t> history_seqs;  // each inputs.history message's number
  if (conversation_id && !new_conversation) {
    // Only the tail the context can hold: a turn on the 10,000th message reads what one on the
    // 10th does.
    const HistoryBudget budget = HistoryBudgetOf(config);
    AG_CO_TRY(auto history, co_await d_.store.Run([&](Store& s) {
      return s.LoadRecentMessages(*conversation_id, budget.max_bytes, budget.max_messages);
    }));
    if (summarize) {
      AG_CO_TRY(summary, co_await d_.store.Run([&](Store& s) {
        return s.LoadConversationSummary(*conversation_id);
      }));
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
  const MemoryScope memory_scope{caller.org_id, caller.env, command.agent_id,
                                 request.group_key.value_or("")};
  if (config.memory == MemoryMode::kShared) {
    // Every fact of the group is searched by the store's full-text index; with no match (or no
    // words to match) the newest facts are shown instead.
    const auto terms = RecallTerms(request.message);
    AG_CO_TRY(auto recalled, co_await d_.store.Run([&](Store& s) {
      return s.RecallMemories(memory_scope, terms, kMemoriesShown);
    }));
    if (recalled.empty()) {
      AG_CO_TRY(recalled, co_await d_.store.Run([&](Store& s) {
        return s.ListMemories(memory_scope, kMemoriesShown);
      }));
    }
    for (auto& m : recalled) inputs.memories.push_back(std::move(m.fact));
  }

  McpTurnTools mcp_tools;
  if (!config.mcp_servers.empty()) {
    mcp_tools = co_await d_.mcp.ToolsFor(caller.org_id, config, deadlines.soft);
    inputs.extra_tools = mcp_tools.offered;
  }

  ModelClient* model =
      d_.models.count(config.model.provider) ? d_.models.at(config.model.provider) : nullptr;
  if (model == nullptr)
    co_return Error(ErrorCode::kInternal,
                    "provider '" + config.model.provider + "' is not configured");
  const auto price_it = d_.prices.find(config.model.provider + "/" + config.model.name);
  MeteredModel metered(d_.spend, d_.clock, d_.metrics, *model, config.model.provider,
                       SpendAccount{caller.org_id, command.agent_id,
                                    governance::MonthOf(started_ms), config.monthly_spend_limit_usd,
                                    price_it != d_.prices.end() ? price_it->second : Price{},
                                    config.model.max_output_tokens});

  auto prompt = AssemblePrompt(config, inputs);
  std::optional<SummaryStep> summary_step;
  if (summarize && prompt.history_messages_dropped > 0) {
    // The turns that no longer fit, and as many more as leave half the room free, are folded
    // into the summary; without one (refused, failed, no time) the window of this prompt stands.
    const auto fold = static_cast<std::ptrdiff_t>(
        std::max(prompt.history_messages_dropped, HistoryToFold(config, inputs)));
    const std::vector<ChatMessage> folded(inputs.history.begin(), inputs.history.begin() + fold);
    const std::int64_t through_seq = history_seqs[static_cast<std::size_t>(fold - 1)];
    AG_CO_TRY(summary_step, co_await SummarizeHistory(metered, config, summary, folded, through_seq,
                                                      Until(deadlines.soft)));
    if (summary_step->made) {
      inputs.history.erase(inputs.history.begin(), inputs.history.begin() + fold);
      inputs.history_summary = summary_step->made->text;
      prompt = AssemblePrompt(config, inputs);
    }
  }
  const std::string recorded_system = std::move(prompt.recorded_system);
  const std::size_t history_sent = prompt.history_messages_sent;

  Turn turn(std::move(prompt.request), std::move(prompt.action_names), config.max_iterations);
  InvokeResult result;
  result.conversation_id = conversation_id;
  const bool summary_called = summary_step && summary_step->record.called;
  if (summary_step) {
    result.usage.input_tokens += summary_step->usage.input_tokens;
    result.usage.output_tokens += summary_step->usage.output_tokens;
    result.cost_usd += summary_step->cost_usd;
  }
  std::vector<ModelCallRecord> call_log;
  std::vector<RememberedFact> remembered;  // stored with the turn, or not at all
  const ToolContext tool_context{*agent, memory_scope, deadlines.soft, &remembered, &mcp_tools};
  auto step = turn.Start();
  while (!std::holds_alternative<Turn::Finish>(step)) {
    if (SteadyClock::now() >= deadlines.soft) {
      step = turn.OnSoftDeadline();
      continue;
    }
    if (auto* tools = std::get_if<Turn::RunTools>(&step)) {
      std::vector<ToolResult> results;
      for (const auto& call : tools->calls)
        results.push_back(co_await d_.tools.Run(call, tool_context));
      step = turn.OnToolResults(results);
      continue;
    }
    const auto& model_request = std::get<Turn::CallModel>(step).request;
    for (int failures = 0;;) {
      // The call's own deadline lies past the cap: a call still running at the cap is ended by
      // the cap (504), never by a timeout the turn would report as llm_error.
      const milliseconds call_deadline = Until(deadlines.hard) + kPastTheCap;
      AG_CO_TRY(auto call, co_await metered.Complete(model_request, call_deadline));
      if (call.refused) {
        // A turn that cannot pay for its first call is refused; a later one answers with what
        // it has (a summary's call made first counts as one).
        if (call_log.empty() && !summary_called)
          co_return SpendLimitReached(*call.refused, d_.clock.NowMs());
        step = turn.OnSpendExhausted();
        break;
      }
      call_log.push_back(call.record);
      if (auto* reply = std::get_if<ModelReply>(&call.result)) {
        result.usage.input_tokens += reply->usage.input_tokens;
        result.usage.output_tokens += reply->usage.output_tokens;
        result.cost_usd += call.cost_usd;
        step = turn.OnModelReply(*reply);
        break;
      }
      const auto& failure = std::get<ModelFailure>(call.result);
      const auto decision = DecideRetry(failure, ++failures, Until(deadlines.soft));
      if (!decision.retry) {
        step = turn.OnModelFailed(decision.give_up, failure.message);
        break;
      }
      asio::steady_timer backoff(co_await asio::this_coro::executor, decision.wait);
      co_await backoff.async_wait(asio::use_awaitable);
    }
  }

  const TurnOutcome outcome = std::get<Turn::Finish>(step).outcome;
  result.stop_reason = outcome.stop_reason;
  result.model_calls = turn.model_calls() + (summary_called ? 1 : 0);
  std::string response = RenderResponse(outcome);
  result.blocked = agent->safety.Blocks(response);
  if (result.blocked)
    response = config.safety.placeholder;  // the withheld text is never stored or logged
  result.response = response;

  TurnCommit commit;
  commit.turn.id = "turn_" + crypto::RandomHex(10);
  commit.turn.conversation_id = conversation_id.value_or("");
  commit.turn.org_id = caller.org_id;
  commit.turn.env = caller.env;
  commit.turn.agent_id = command.agent_id;
  commit.turn.version = agent->version;
  commit.turn.started_at_ms = started_ms;
  commit.turn.duration_ms =
      std::chrono::duration_cast<milliseconds>(SteadyClock::now() - started).count();
  commit.turn.stop_reason = std::string(StopReasonName(outcome.stop_reason).value_or(""));
  commit.turn.blocked = result.blocked;
  commit.turn.model_calls = result.model_calls;
  commit.turn.input_tokens = result.usage.input_tokens;
  commit.turn.output_tokens = result.usage.output_tokens;
  commit.turn.cost_usd = result.cost_usd;
  commit.turn.transcript_json = TranscriptJson(
      recorded_system, turn.transcript(), history_sent, call_log, outcome, result.blocked,
      mcp_tools.notes, summary_step ? std::optional(summary_step->record) : std::nullopt);
  result.turn_id = commit.turn.id;
  const std::int64_t now = d_.clock.NowMs();
  if (conversation_id) {
    commit.messages = {MessageRecord{0, "user", request.message, started_ms},
                       MessageRecord{0, "assistant", response, now}};
  }
  if (command.idempotency) {
    StoredResponse answer = command.idempotency->answer(result);
    commit.idempotency = IdempotencyCompletion{
        command.idempotency->key.scope, command.idempotency->key.claimed_at_ms, answer.status,
        std::move(answer.body), Idempotency::ReplayUntil(now)};
  }
  commit.settlements = metered.Settlements();
  commit.new_conversation = std::move(new_conversation);
  commit.facts = std::move(remembered);
  if (summary_step) commit.summary = summary_step->made;
  // A turn that reaches its commit at or past the hard cap, or that the cap canceled while its
  // last step ran (a canceled or timed-out model call returns a failure, not an exception), stores
  // nothing. Past this check the commit is queued in the same step, and its outcome is the answer
  // even if the cap passes while it runs (docs/cancellation.md).
  const auto cancellation = co_await asio::this_coro::cancellation_state;
  if (SteadyClock::now() >= deadlines.hard ||
      cancellation.cancelled() != asio::cancellation_type::none)
    co_return Error(ErrorCode::kTurnTimeout,
                    "the turn passed turn_timeout_seconds and was canceled");
  const Result<void> committed = co_await d_.committer.Commit(commit);
  if (!committed) {
    // Only a turn that outlived its cap can lose its claim or its reservations.
    commit_outcome =
        committed.error().code == ErrorCode::kConflict
            ? Error(ErrorCode::kTurnTimeout,
                    "the turn passed turn_timeout_seconds and its idempotency key or spend "
                    "reservation was taken over")
            : committed.error();
    co_return *commit_outcome;
  }
  metered.Committed();
  d_.metrics.Add("agentgate_turn_stops_total",
                 {{"reason", std::string(StopReasonName(result.stop_reason).value_or("none"))}});
  commit_outcome = result;
  co_return result;
}

}  // namespace agentgate
