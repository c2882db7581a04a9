#include "app/runs/runs.hpp"

#include "app/runs/run_body.hpp"
#include "crypto/crypto.hpp"
#include "domain/agent/busy_rules.hpp"
#include "domain/json_text.hpp"
#include "domain/resource_ids.hpp"
#include "domain/runs/run_state.hpp"
#include "observability/log.hpp"

#include <boost/asio/steady_timer.hpp>
#include <boost/asio/this_coro.hpp>
#include <boost/asio/use_awaitable.hpp>

namespace agentgate {

namespace asio = boost::asio;
using std::chrono::milliseconds;

namespace {

constexpr milliseconds kCancelPoll{20};
constexpr milliseconds kFirstLookWait{5000};  // a watch's first look: a store read or two

asio::awaitable<void> Sleep(milliseconds wait) {
  asio::steady_timer timer(co_await asio::this_coro::executor, wait);
  co_await timer.async_wait(asio::use_awaitable);
}

Error RunNotFound(const std::string& run_id) {
  return Error(ErrorCode::kRunNotFound, "run '" + run_id + "' not found");
}

}  // namespace

asio::awaitable<QueueAnswer> Runs::Queue(const InvokeCall& call, bool notify) {
  auto begun = co_await Begin(call, notify, BeginAs{false, false});
  co_return std::move(begun.answer);
}

asio::awaitable<StreamAnswer> Runs::Begin(const InvokeCall& call, bool notify, BeginAs as) {
  auto admission = co_await invoke_.AdmitCall(call);
  StreamAnswer answer;  // named, not braced in a co_return: GCC 12 destroys that twice
  if (auto* refusal = std::get_if<Refusal>(&admission)) {
    answer.answer = Result<RunRecord>(std::move(*refusal));
    co_return answer;
  }
  if (auto* replay = std::get_if<StoredResponse>(&admission)) {
    answer.answer = std::move(*replay);
    co_return answer;
  }
  InvokeCommand& command = std::get<InvokeCommand>(admission);
  // The run's key is completed with the run (its 202) or by its turn's commit, not the command's.
  std::optional<ClaimedKey> key;
  if (command.idempotency) key = command.idempotency->key;
  command.idempotency.reset();
  const busy::BusyRule busy =
      busy::RuleOf(as.streamed ? busy::CallKind::kStreamedRun : busy::CallKind::kBackgroundRun,
                   command.request.if_busy);
  const auto place = co_await invoke_.AdmitAhead(command, busy.refused_at_admission);
  Result<RunRecord> run = place ? Result<RunRecord>(NewRun(command, *place, as.streamed, notify))
                                : Result<RunRecord>(place.error());
  // Nothing but this server looks for such a run before its first events are written.
  const bool written_later = as.streamed && options_.write_short_streamed_runs_at_end && run &&
                             run->conversation_id.empty() && !notify;
  if (run && !written_later) run = co_await Create(std::move(*run), key, as.streamed);
  if (run && busy.supersedes_when_queued) co_await SupersedeAhead(*run);
  if (run && as.streamed) {
    // It starts from what its call admitted, continuing the call's trace.
    auto turn = std::make_shared<const StreamedTurn>(StreamedTurn{
        command.caller, command.request, std::move(command.agent), command.trace, call.answer});
    const auto executor = co_await asio::this_coro::executor;
    auto ready = worker_.PrepareStreamed(*run, std::move(turn), key, executor, !written_later);
    // Not handed to the caller: it starts beside it as `ready` goes.
    if (as.hand_over) answer.handed = std::move(ready);
  } else if (run) {
    worker_.Wake();
  }
  if (key && !run) co_await idempotency_.Release(*key);
  answer.answer = std::move(run);
  co_return answer;
}

asio::awaitable<Result<RunRecord>> Runs::Create(RunRecord run, const std::optional<ClaimedKey>& key,
                                                bool streamed) {
  // A queued run's key is completed with its 202; a streamed one's by its turn's commit.
  std::optional<IdempotencyCompletion> completion;
  if (key && !streamed) {
    completion = IdempotencyCompletion{key->scope, key->claimed_at_ms, 202,
                                       json_text::Write(QueuedRunBody(run)),
                                       Idempotency::ReplayUntil(run.created_at_ms)};
  }
  const int max_queued = options_.max_queued_per_org;
  const RunWrite create{RunWrite::Kind::kCreate, run, {}, max_queued, std::move(completion)};
  const auto created = co_await writer_.Write(create);
  if (auto refused = RefusalOfCreate(created, max_queued)) co_return std::move(*refused);
  co_return run;
}

asio::awaitable<void> Runs::SupersedeAhead(const RunRecord& run) {
  if (run.creates_conversation || run.conversation_id.empty()) co_return;
  // Queued at the back of its conversation's line: what is ahead of it ends superseded. The run
  // stays queued however that goes (a failure leaves it behind them).
  if (auto superseded = co_await invoke_.SupersedeAheadOf(run.conversation_id, run.id);
      !superseded) {
    log::Warn("run_supersede_failed", {{"run_id", std::string_view(run.id)},
                                       {"error", std::string_view(superseded.error().message)}});
  }
}

RunRecord Runs::NewRun(const InvokeCommand& command, const QueuedPlace& place, bool streamed,
                       bool notify) const {
  const std::int64_t now = clock_.NowMs();
  RunRecord run;
  run.id = ids::Make(ids::kRun, crypto::TimeOrderedHex(now, 8));
  run.org_id = command.caller.org_id;
  run.env = command.caller.env;
  run.agent_id = command.agent_id;
  run.token_id = command.caller.token_id;
  run.conversation_id = place.conversation_id;
  run.creates_conversation = place.creates_conversation;
  if (!streamed) {
    // Kept until its turn starts, wherever; it continues its request's trace (docs/tracing.md).
    boost::json::object request = InvokeRequestJson(command.request);
    if (command.trace) request[kRunTraceKey] = command.trace->Traceparent();
    run.request_json = json_text::Write(request);
  }
  run.created_at_ms = now;
  run.notify = notify;
  if (streamed) {
    run.status = RunStatus::kRunning;
    run.started_at_ms = now;
    run.server_id = worker_.server_id();
  }
  return run;
}

std::optional<Error> Runs::RefusalOfCreate(const Result<bool>& created, int max_queued) {
  if (!created) {
    if (created.error().code == ErrorCode::kConflict) {
      return Error(ErrorCode::kIdempotencyKeyInUse,
                   "the Idempotency-Key's claim expired and another call took it");
    }
    return created.error();
  }
  if (*created) return std::nullopt;
  Error full(ErrorCode::kQueueFull,
             "the organization has " + std::to_string(max_queued) +
                 " runs waiting, queued or paused for a decision ([runs] max_queued_per_org); "
                 "retry once some have started or been decided");
  full.retry_after_seconds = 1;
  return full;
}

asio::awaitable<Result<std::optional<RunRecord>>> Runs::Find(const std::string& run_id) {
  // The registry has a run running here that is not written yet, or whose end is being written;
  // it leaves the registry only once its end is in the store, so the store, read once, has the
  // rest.
  if (auto ahead = worker_.Ahead(run_id)) co_return std::move(ahead);
  co_return co_await store_.Run([&](Store& s) { return s.GetRun(run_id); });
}

asio::awaitable<Result<RunRecord>> Runs::Get(const Caller& caller, const std::string& run_id) {
  AG_CO_TRY(auto run, co_await Find(run_id));
  if (!run || run->org_id != caller.org_id || run->env != caller.env) co_return RunNotFound(run_id);
  AG_CO_TRYV(co_await Authorize(tenants_, caller, run->agent_id, "chat"));
  co_return std::move(*run);
}

asio::awaitable<Result<RunRecord>> Runs::Cancel(const Caller& caller, const std::string& run_id) {
  AG_CO_TRY(auto run, co_await Get(caller, run_id));
  co_return co_await CancelFound(std::move(run));
}

asio::awaitable<Result<std::vector<RunRecord>>> Runs::List(const std::string& org_id,
                                                           const std::string& env, int limit) {
  AG_CO_TRY(auto runs,
            co_await store_.Run([&](Store& s) { return s.ListRuns(org_id, env, limit); }));
  // A run whose end this server is writing is listed ended, as Find reads it: a cancel's answer
  // may already have said so.
  for (auto& run : runs) {
    if (HasEnded(run.status)) continue;
    if (auto ahead = worker_.Ahead(run.id); ahead && HasEnded(ahead->status))
      run = std::move(*ahead);
  }
  co_return runs;
}

asio::awaitable<Result<RunRecord>> Runs::CancelAsOperator(const std::string& org_id,
                                                          const std::string& env,
                                                          const std::string& run_id) {
  AG_CO_TRY(auto run, co_await Find(run_id));
  if (!run || run->org_id != org_id || run->env != env) co_return RunNotFound(run_id);
  co_return co_await CancelFound(std::move(*run));
}

asio::awaitable<Result<RunRecord>> Runs::CancelFound(RunRecord run) {
  const std::string run_id = run.id;
  if (run.status == RunStatus::kCanceled) co_return run;
  if (HasEnded(run.status)) {
    co_return Error(ErrorCode::kRunEnded, "run '" + run_id + "' already ended " +
                                              std::string(RunStatusName(run.status)) +
                                              "; only a queued or running run can be canceled");
  }
  const std::int64_t now = clock_.NowMs();
  const RunEvent canceled =
      run_events::Failed(run_state::EndingError(RunEnding::kCanceled, run.status));
  AG_CO_TRY(auto marked,
            co_await store_.Run([&](Store& s) { return s.CancelRun(run_id, now, canceled); }));
  if (!marked) {
    // Not in the store: a streamed run running here, written once it ends (or purged meanwhile).
    if (!worker_.CancelHere(run_id)) {
      AG_CO_TRY(auto written, co_await store_.Run([&](Store& s) { return s.GetRun(run_id); }));
      if (!written) co_return RunNotFound(run_id);
      co_return co_await CancelFound(std::move(*written));
    }
    marked = std::move(run);
  } else if (marked->status != RunStatus::kRunning) {
    co_return std::move(*marked);
  } else {
    // Running: canceled here at once when it runs here, else by its server's next look.
    worker_.CancelHere(run_id);
  }
  const auto until = clock_.SteadyNow() + options_.cancel_wait;
  while (clock_.SteadyNow() < until) {
    co_await Sleep(kCancelPoll);
    AG_CO_TRY(auto now_run, co_await Find(run_id));
    if (!now_run) co_return RunNotFound(run_id);
    if (HasEnded(now_run->status)) co_return std::move(*now_run);
    marked = std::move(now_run);
  }
  co_return std::move(*marked);
}

asio::awaitable<Result<RunEventsRead>> Runs::NextEvents(RunCursor& cursor, milliseconds wait,
                                                        const RunEventSink& each, bool until_end,
                                                        StreamTicket* ticket) {
  const auto until = clock_.SteadyNow() + wait;
  RunEventsRead read;
  const auto give = [&](const RunEvent& event) {
    each(event);
    cursor.after_seq = event.seq;
    read.ended = run_events::IsTerminal(event.type);
    ++read.events;
  };
  for (;;) {
    if (!cursor.channel) {
      // Running here, with every event after the cursor's in its channel: read as they happen.
      auto here = worker_.Channel(cursor.run_id);
      if (here && here->starts_after() <= cursor.after_seq) {
        cursor.channel = std::move(here);
        cursor.watch.reset();
      }
    }
    if (!cursor.channel && !cursor.watch) {
      const auto executor = co_await asio::this_coro::executor;
      cursor.watch = worker_.Watch(cursor.run_id, executor);
    }
    // Queued, paused, ended, or running elsewhere: its watch reads the store for its followers.
    RunChannel* from = cursor.channel ? cursor.channel.get() : &cursor.watch->events();
    const auto wakes = from->Wakes();
    from->ForEachAfter(cursor.after_seq, give);
    if ((read.events > 0 && !until_end) || read.ended) co_return read;
    if (from->Ended()) {
      read.ended = true;  // over, with nothing after the cursor's
      co_return read;
    }
    if (cursor.watch && cursor.watch->gone()) co_return RunNotFound(cursor.run_id);
    if (ticket && ticket->stopped()) co_return read;
    auto left = std::chrono::duration_cast<milliseconds>(until - clock_.SteadyNow());
    // A new watch's first look is what the store has: waited for, however short the wait asked.
    if (cursor.watch && !cursor.watch->looked()) left = std::max(left, kFirstLookWait);
    if (left <= milliseconds(0)) co_return read;
    // Woken by its next events, its end, or a change of where they come from (it started here).
    const auto stop = ticket ? ticket->stop_slot() : asio::cancellation_slot();
    co_await from->WaitBeyond(cursor.after_seq, left, until_end, wakes, stop);
  }
}

}  // namespace agentgate
