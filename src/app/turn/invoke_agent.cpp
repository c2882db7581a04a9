#include "app/turn/invoke_agent.hpp"

#include "app/turn/turn_place.hpp"
#include "app/turn/turn_run.hpp"
#include "runtime/handoff_wait.hpp"

#include <boost/asio/as_tuple.hpp>
#include <boost/asio/bind_cancellation_slot.hpp>
#include <boost/asio/cancellation_signal.hpp>
#include <boost/asio/co_spawn.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/this_coro.hpp>
#include <boost/asio/use_awaitable.hpp>

namespace agentgate {
namespace {

namespace asio = boost::asio;

// What may end a turn before its body does: the hard cap's timer and the caller's cancellation.
// Their handlers hold it, as they may run after the turn has returned; all of them run on the
// turn's own event loop.
struct TurnStop {
  using Reason = TurnStopReason;
  void Fire(Reason why) {
    if (finished || reason != Reason::kNone) return;
    reason = why;
    signal.emit(asio::cancellation_type::terminal);
  }
  asio::cancellation_signal signal;
  Reason reason = Reason::kNone;
  bool finished = false;  // the body has returned: nothing is left to cancel
};

}  // namespace

asio::awaitable<Result<AdmittedAgent>> InvokeAgent::Admit(const Caller& caller,
                                                          const std::string& agent_id) {
  AG_CO_TRY(auto agent, co_await d_.catalog.Deployed(caller.org_id, agent_id, caller.env));
  AG_CO_TRYV(co_await Authorize(d_.tenants, caller, agent_id, "chat"));
  co_return AdmittedAgent(std::move(agent));
}

asio::awaitable<Result<std::shared_ptr<const LoadedAgent>>> InvokeAgent::Discoverable(
    const std::string& org_id, const std::string& agent_id, const std::string& env) {
  AG_CO_TRY(const bool discoverable, co_await d_.tenants.A2aDiscoverable(org_id, agent_id, env));
  if (!discoverable) co_return Error(ErrorCode::kAgentNotFound, "no discoverable agent here");
  co_return co_await d_.catalog.Deployed(org_id, agent_id, env);
}

asio::awaitable<Result<AdmittedAgent>> InvokeAgent::AdmitVersion(const Caller& caller,
                                                                 const std::string& agent_id,
                                                                 int version) {
  AG_CO_TRY(auto agent, co_await d_.catalog.Version(caller.org_id, agent_id, version));
  AG_CO_TRYV(co_await Authorize(d_.tenants, caller, agent_id, "chat"));
  co_return AdmittedAgent(std::move(agent));
}

asio::awaitable<Result<InvokeResult>> InvokeAgent::Invoke(const InvokeCommand& command) {
  const auto started = d_.clock.SteadyNow();
  const TurnDeadlines deadlines{started + d_.timing.answer_early, started + d_.timing.hard_cap};
  // Counted for the hand-off spinning (a lone turn from a busy server) and the turns gauge.
  const RunningTurn running;
  const auto executor = co_await asio::this_coro::executor;
  // The hard cap cancels the body, and with it every upstream call it has in flight; so does the
  // caller's cancellation (an MCP client's). A store call cannot be canceled: the body ends when
  // it returns, so a commit that began before the cap finishes, and its outcome is the answer
  // (docs/cancellation.md). A timer's handler and a signal, not a race of coroutines: the turn
  // holds no coroutine frames for them while it waits on its model.
  const auto stop = std::make_shared<TurnStop>();
  asio::steady_timer cap(executor, d_.timing.hard_cap);
  cap.async_wait([stop](const boost::system::error_code& ec) {
    if (!ec) stop->Fire(TurnStop::Reason::kHardCap);
  });
  if (command.cancel) command.cancel->OnCancel([stop] { stop->Fire(TurnStop::Reason::kCanceled); });
  const auto state = std::make_unique<TurnState>();
  // A turn on an existing conversation may be superseded by a newer call on it; the turn registers
  // this under its place in line (app/turn_place).
  if (command.request.stateful && command.request.conversation_id) {
    state->place.supersede = std::make_shared<TurnCancel>(executor);
    state->place.supersede->OnCancel([stop] { stop->Fire(TurnStop::Reason::kSuperseded); });
  }
  auto ended = co_await asio::co_spawn(
      executor, RunTurn(command, deadlines, *state),
      asio::bind_cancellation_slot(stop->signal.slot(), asio::as_tuple(asio::use_awaitable)));
  stop->finished = true;
  cap.cancel();
  d_.metrics.Observe("agentgate_turn_duration_seconds", {},
                     std::chrono::duration<double>(d_.clock.SteadyNow() - started).count());
  if (std::get<0>(ended) && stop->reason == TurnStop::Reason::kNone)
    std::rethrow_exception(std::get<0>(ended));
  // A turn answers with its result only once committed; any other answer frees its key.
  const bool committed = state->committed && state->committed->has_value();
  if (!committed && command.idempotency) co_await d_.idempotency.Release(command.idempotency->key);
  co_return AnswerOf(stop->reason, std::get<1>(ended), *state);
}

Result<InvokeResult> InvokeAgent::AnswerOf(TurnStopReason stopped, const Result<void>& body,
                                           TurnState& state) {
  if (stopped == TurnStopReason::kNone) {
    if (!body) return body.error();
    if (!state.committed) return Error(ErrorCode::kInternal, "the turn ended without a commit");
  }
  // Stopped: what the body returned, or threw, as its operations were canceled is not the answer,
  // unless its commit had an outcome.
  if (state.committed) {
    if (!*state.committed) return state.committed->error();
    return std::move(state.run->result);
  }
  if (stopped == TurnStopReason::kSuperseded) {
    d_.metrics.Add("agentgate_turn_stops_total", {{"reason", "superseded"}});
    return SupersededError();
  }
  if (stopped == TurnStopReason::kCanceled) {
    d_.metrics.Add("agentgate_turn_stops_total", {{"reason", "canceled"}});
    return Error(ErrorCode::kCanceled, "the caller canceled the turn");
  }
  d_.metrics.Add("agentgate_turn_stops_total", {{"reason", "hard_cap"}});
  return Error(ErrorCode::kTurnTimeout, "the turn passed turn_timeout_seconds (" +
                                            std::to_string(d_.timing.hard_cap.count() / 1000) +
                                            " s) and was canceled; split the work into smaller "
                                            "calls");
}

asio::awaitable<Result<void>> InvokeAgent::RunTurn(const InvokeCommand& command,
                                                   TurnDeadlines deadlines, TurnState& state) {
  AG_CO_TRYV(co_await TakePlace(d_, command, deadlines.hard, state.place));
  AG_CO_TRYV(StartRun(command, deadlines, state));
  TurnRun& run = *state.run;
  Span span = StartTurnSpan(command);
  run.span = &span;
  if (command.Resumed() != nullptr) {
    AG_CO_TRYV(co_await Restore(run));
  } else {
    AG_CO_TRYV(co_await Prepare(run, state.place.instance_instructions));
  }
  AG_CO_TRYV(co_await RunModelAndTools(run));
  // Settled in Commit's frame, which exists only once the model is done.
  co_return co_await Commit(run, state);
}

Result<void> InvokeAgent::StartRun(const InvokeCommand& command, TurnDeadlines deadlines,
                                   TurnState& state) {
  AG_TRY(auto chain, ChainOf(command.agent.loaded()->config.model));
  state.run.emplace(d_, command, state.place, deadlines, std::move(chain));
  state.run->tracer = d_.tracer;
  return {};
}

// The turn's `invoke_agent` span (the GenAI conventions' agent invocation), under the request's.
Span InvokeAgent::StartTurnSpan(const InvokeCommand& command) const {
  if (d_.tracer == nullptr || !d_.tracer->enabled()) return Span();
  const auto& agent = *command.agent.loaded();
  const std::string& name = agent.config.name.empty() ? command.agent_id : agent.config.name;
  Span span = d_.tracer->Start("invoke_agent " + name, tracing::SpanKind::kInternal, command.trace);
  span.Set("gen_ai.operation.name", std::string("invoke_agent"));
  span.Set("gen_ai.agent.id", command.agent_id);
  span.Set("gen_ai.agent.name", name);
  span.Set("agentgate.org", command.caller.org_id);
  span.Set("agentgate.env", command.caller.env);
  span.Set("agentgate.agent.version", std::int64_t{agent.version});
  if (command.observer != nullptr && !command.observer->RunId().empty())
    span.Set("agentgate.run_id", std::string(command.observer->RunId()));
  return span;
}

// The agent's model and its fallbacks, each with its provider's pool and its price (the admin API
// and the start-up check refuse a chain naming an unknown provider or an unpriced model).
Result<ModelChain> InvokeAgent::ChainOf(const ModelSettings& model) const {
  ModelChain::Entries entries;
  auto add = [&](const std::string& provider, const std::string& name) -> Result<void> {
    ProviderPool* pool = d_.providers.Find(provider);
    if (pool == nullptr)
      return Error(ErrorCode::kInternal, "provider '" + provider + "' is not configured");
    const auto price = d_.prices.find(provider + "/" + name);
    entries.push_back(
        ChainEntry{provider, name, pool, price != d_.prices.end() ? price->second : Price{}});
    return {};
  };
  AG_TRYV(add(model.provider, model.name));
  for (const auto& fallback : model.fallbacks) AG_TRYV(add(fallback.provider, fallback.name));
  return ModelChain(std::move(entries), &d_.metrics);
}

}  // namespace agentgate
