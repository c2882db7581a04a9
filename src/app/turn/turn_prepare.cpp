// The turn's first phase: what the model is shown (SPEC §5: instructions, per-call context,
// recalled memories, history, the message) and the Turn that will drive it.
#include "app/turn/invoke_agent.hpp"
#include "app/turn/turn_run.hpp"
#include "domain/agent/memory_recall.hpp"
#include "domain/agent/prompt.hpp"
#include "domain/agent/stored_messages.hpp"
#include "domain/openai/caller_tools.hpp"

#include <algorithm>

namespace agentgate {
namespace {

namespace asio = boost::asio;

constexpr int kMemoriesShown = 10;

// The stored history a prompt is built from: its messages' numbers (a fold names the last it
// covers) and, for summarize agents, the summary so far.
struct StoredHistory {
  std::vector<std::int64_t> seqs;  // each history message's number, in order
  ConversationSummary summary;
};

PromptInputs InputsOf(const InvokeRequest& request, std::string instance_instructions) {
  PromptInputs inputs;
  inputs.instance_instructions = std::move(instance_instructions);
  inputs.additional_instructions = request.additional_instructions;
  inputs.host_context = request.host_context;
  inputs.message = request.message;
  inputs.history = request.history;  // a stateless call's own (a stored conversation's is read)
  inputs.answer_schema = request.answer_schema;
  inputs.caller_tools = request.caller_tools;
  inputs.required_tool = request.required_tool;
  inputs.continuation = request.continuation;
  return inputs;
}

// Only the tail the context can hold: a turn on the 10,000th message reads what one on the 10th
// does. A summarize agent's summary stands for the messages it covers.
asio::awaitable<Result<void>> ReadHistory(InvokeDeps& d, const TurnRun& run, PromptInputs& inputs,
                                          StoredHistory& stored) {
  const auto& config = run.agent.config;
  const std::string& conversation_id = *run.place.conversation_id;
  const HistoryBudget budget = HistoryBudgetOf(config);
  AG_CO_TRY(auto history, co_await d.store.Run([&](Store& s) {
    return s.LoadRecentMessages(conversation_id, budget.max_bytes, budget.max_messages);
  }));
  if (config.history.strategy == HistoryStrategy::kSummarize) {
    AG_CO_TRY(stored.summary, co_await d.store.Run([&](Store& s) {
      return s.LoadConversationSummary(conversation_id);
    }));
    const std::int64_t covered = stored.summary.through_seq;
    std::erase_if(history, [&](const MessageRecord& m) { return m.seq <= covered; });
    inputs.history_summary = stored.summary.text;
  }
  for (auto& m : history) {
    // A function call joins its step's message, which then ends at the call's place.
    if (stored_messages::AppendToHistory(inputs.history, m.role, std::move(m.content))) {
      stored.seqs.push_back(m.seq);
    } else {
      stored.seqs.back() = m.seq;
    }
  }
  // The model's calls of the caller's functions wait for their results: a continuation brings
  // them, and nothing else may (docs/openai.md, "The caller's tools").
  const InvokeRequest& request = run.command.request;
  AG_CO_TRYV(stored_messages::CheckContinuation(inputs.history, request.continuation,
                                                request.continuation_fields,
                                                request.continuation_input));
  co_return Result<void>{};
}

// Every fact of the group is searched by the store's full-text index; with no match (or no words
// to match) the newest facts are shown instead.
asio::awaitable<Result<void>> RecallFacts(InvokeDeps& d, const TurnRun& run, PromptInputs& inputs) {
  const auto terms = RecallTerms(run.command.request.message);
  const MemoryScope& scope = run.tools.memory_scope;
  AG_CO_TRY(auto recalled, co_await d.store.Run([&](Store& s) {
    return s.RecallMemories(scope, terms, kMemoriesShown);
  }));
  if (recalled.empty()) {
    AG_CO_TRY(recalled, co_await d.store.Run(
                            [&](Store& s) { return s.ListMemories(scope, kMemoriesShown); }));
  }
  for (auto& m : recalled) inputs.memories.push_back(std::move(m.fact));
  co_return Result<void>{};
}

// The turns that no longer fit, and as many more as leave half the room free, are folded into the
// summary by the agent's own model; without one (refused, failed, no time) the window of `prompt`
// stands.
asio::awaitable<Result<void>> FoldHistory(InvokeDeps& d, TurnRun& run, PromptInputs& inputs,
                                          const StoredHistory& stored, AssembledPrompt& prompt) {
  const auto& config = run.agent.config;
  const auto fold = static_cast<std::ptrdiff_t>(
      std::max(prompt.history_messages_dropped, HistoryToFold(config, inputs)));
  const std::vector<ChatMessage> folded(inputs.history.begin(), inputs.history.begin() + fold);
  // A history the call brought has no stored numbers: its summary is this turn's alone.
  const std::int64_t through_seq =
      stored.seqs.empty() ? fold : stored.seqs[static_cast<std::size_t>(fold - 1)];
  const auto time_left = std::chrono::duration_cast<std::chrono::milliseconds>(run.deadlines.soft -
                                                                               d.clock.SteadyNow());
  AG_CO_TRY(auto step, co_await SummarizeHistory(run.metered, config, stored.summary, folded,
                                                 through_seq, time_left));
  run.summary_step = std::make_unique<SummaryStep>(std::move(step));
  if (run.summary_step->made) {
    inputs.history.erase(inputs.history.begin(), inputs.history.begin() + fold);
    inputs.history_summary = run.summary_step->made->text;
    prompt = AssemblePrompt(config, inputs);
  }
  run.result.usage.input_tokens += run.summary_step->usage.input_tokens;
  run.result.usage.output_tokens += run.summary_step->usage.output_tokens;
  run.result.cost_usd += run.summary_step->cost_usd;
  co_return Result<void>{};
}

// A turn continuing from a response runs only while that response's reply is still its
// conversation's last: looked at once the turn holds its place on the conversation, so two calls
// continuing from one response cannot both run (docs/openai.md).
asio::awaitable<Result<void>> CheckStillLatest(InvokeDeps& d, const TurnRun& run) {
  const auto& after = run.command.request.after_turn_id;
  if (!after || !run.place.conversation_id || run.place.new_conversation) co_return Result<void>{};
  const std::string& conversation_id = *run.place.conversation_id;
  AG_CO_TRY(const auto last,
            co_await d.store.Run([&](Store& s) { return s.LastMessageTurn(conversation_id); }));
  if (last != *after) {
    co_return Error(
        ErrorCode::kResponseNotLatest,
        "field 'previous_response_id': the conversation has moved on from that response; "
        "continue from its latest response");
  }
  co_return Result<void>{};
}

}  // namespace

// The remote A2A agents of the turn's agent, as its tools (their notes with the MCP servers').
asio::awaitable<void> OfferRemoteAgents(InvokeDeps& d, TurnRun& run) {
  const auto& config = run.agent.config;
  if (config.a2a_agents.empty() || d.a2a == nullptr) co_return;
  const SpanContext* trace = run.span != nullptr ? run.span->context_ptr() : nullptr;
  run.a2a_tools =
      co_await d.a2a->ToolsFor(run.command.caller.org_id, config, run.deadlines.soft, trace);
  for (auto& note : run.a2a_tools.notes) run.mcp_tools.notes.push_back(std::move(note));
}

asio::awaitable<Result<void>> InvokeAgent::Prepare(TurnRun& run,
                                                   std::string& instance_instructions) {
  const auto& config = run.agent.config;
  PromptInputs inputs = InputsOf(run.command.request, std::move(instance_instructions));
  StoredHistory stored;
  AG_CO_TRYV(co_await CheckStillLatest(d_, run));
  if (run.place.conversation_id && !run.place.new_conversation)
    AG_CO_TRYV(co_await ReadHistory(d_, run, inputs, stored));
  if (config.memory == MemoryMode::kShared) AG_CO_TRYV(co_await RecallFacts(d_, run, inputs));
  if (!config.mcp_servers.empty()) {
    const SpanContext* trace = run.span != nullptr ? run.span->context_ptr() : nullptr;
    run.mcp_tools =
        co_await d_.mcp.ToolsFor(run.command.caller.org_id, config, run.deadlines.soft, trace);
    inputs.extra_tools = run.mcp_tools.offered;
  }
  co_await OfferRemoteAgents(d_, run);
  for (const auto& tool : run.a2a_tools.offered) inputs.extra_tools.push_back(tool);
  // The caller's functions may not take a name the model already has (inputs has no caller
  // tools in this look: only the agent's own are offered).
  if (!inputs.caller_tools.empty()) {
    auto callers = std::move(inputs.caller_tools);
    const auto offered = AssemblePrompt(config, inputs).request.tools;
    AG_CO_TRYV(openai::CheckNoCollision(callers, offered,
                                        run.command.request.caller_tools_flat
                                            ? openai::ToolShape::kResponses
                                            : openai::ToolShape::kChat));
    inputs.caller_tools = std::move(callers);
  }
  auto prompt = AssemblePrompt(config, inputs);
  if (config.history.strategy == HistoryStrategy::kSummarize && prompt.history_messages_dropped > 0)
    AG_CO_TRYV(co_await FoldHistory(d_, run, inputs, stored, prompt));
  run.recorded_system = std::move(prompt.recorded_system);
  run.history_sent = prompt.history_messages_sent;
  run.turn.emplace(std::move(prompt.request), std::move(prompt.action_names),
                   config.max_iterations);
  std::set<std::string> caller_tools;
  for (const auto& tool : inputs.caller_tools) caller_tools.insert(tool.name);
  run.turn->SetCallerTools(std::move(caller_tools));
  co_return Result<void>{};
}

}  // namespace agentgate
