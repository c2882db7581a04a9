#include "app/runs/run_worker.hpp"

#include "app/turn/invoke_body.hpp"
#include "domain/json_text.hpp"
#include "observability/log.hpp"
#include "runtime/runs/run_recorder.hpp"

#include <boost/asio/as_tuple.hpp>
#include <boost/asio/co_spawn.hpp>
#include <boost/asio/detached.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/this_coro.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <boost/json/parse.hpp>

namespace agentgate {

namespace asio = boost::asio;

namespace {

// What a streamed turn's commit stores for its Idempotency-Key: the plain call's 200 body.
StoredResponse PlainAnswer(const InvokeResult& result) {
  return StoredResponse{200, InvokeBodyText(result)};
}
const AnswerRenderer kPlainAnswer = PlainAnswer;

// The trace a queued run's request was in (kept with it: its turn continues it).
std::optional<SpanContext> QueuedTrace(const boost::json::object& request) {
  const auto* traceparent = request.if_contains(kRunTraceKey);
  if (traceparent == nullptr || !traceparent->is_string()) return std::nullopt;
  auto context = tracing::ParseTraceparent(traceparent->get_string());
  if (!context) return std::nullopt;
  return SpanContext::From(*context);
}

// A run's turn as `caller`, admitted to `agent`: the place its run was admitted to, and its key's
// completion with the plain call's 200 body.
InvokeCommand RunCommand(const Caller& caller, const RunRecord& run, AdmittedAgent agent,
                         const InvokeRequest& request, const std::optional<ClaimedKey>& key,
                         std::shared_ptr<TurnCancel> cancel, RunRecorder& recorder,
                         const std::optional<SpanContext>& trace,
                         const AnswerRenderer& answer = kPlainAnswer) {
  std::optional<IdempotentCall> idempotency;
  if (key) idempotency.emplace(IdempotentCall{*key, answer ? answer : kPlainAnswer});
  RunsTurn origin;
  origin.end = &recorder;
  if (run.creates_conversation) origin.new_conversation_id = run.conversation_id;
  origin.call_counted = !run.conversation_id.empty() && !run.creates_conversation;
  return InvokeCommand{
      caller,    run.agent_id, std::move(agent), request, std::move(idempotency), std::move(cancel),
      &recorder, trace,        std::move(origin)};
}

// A decided run's resumption, from its row: where it paused and the decisions it was queued with;
// none when either is unreadable (it then fails as a queued run whose request cannot be read).
std::optional<Resumption> DecidedResumption(const RunRecord& run) {
  auto paused = ParsePausedTurn(run.paused_json);
  auto decided = ParseDecidedRun(run.request_json);
  if (!paused || !decided) return std::nullopt;
  return Resumption{std::move(*paused), std::move(decided->decisions), decided->after_seq};
}

}  // namespace

// A queued run's request, read once from its row: the turn's request, and the trace it was in
// (which its turn continues and its log lines name).
struct RunWorker::QueuedRequest {
  explicit QueuedRequest(const std::string& request_json) {
    boost::system::error_code ec;
    auto body = boost::json::parse(request_json, ec);
    auto* object = ec ? nullptr : body.if_object();
    if (object == nullptr) return;
    trace = QueuedTrace(*object);
    object->erase(kRunTraceKey);
    request = KeptInvokeRequest(std::move(body));
  }
  Result<InvokeRequest> request = Error(ErrorCode::kInternal, "unreadable run request");
  std::optional<SpanContext> trace;
};

RunWorker::RunWorker(RunWorkerDeps deps)
    : d_(std::move(deps)),
      watches_(d_.store,
               RunWatchesOptions{d_.watch_look_every, d_.max_events, d_.store_tells_of_run_writes}),
      registry_(d_.max_events, [this](const std::string& run_id) { watches_.Entered(run_id); }),
      claimer_(d_.store, d_.server, registry_, d_.clock,
               RunClaimerOptions{.max_concurrent = d_.max_concurrent,
                                 .poll = d_.poll,
                                 .interrupts = d_.interrupted_elsewhere,
                                 .max_running_per_org = d_.max_running_per_org},
               [this](RunRecord run) {
                 Launch(std::move(run), QueuedStart{}, d_.loops[next_loop_++ % d_.loops.size()]);
               }) {}

RunWorker::~RunWorker() = default;

void RunWorker::Launch(RunRecord run, RunStart start, const asio::any_io_executor& executor) {
  // A paused run decided in the background came back through the queue: it goes on where it
  // paused, with its decisions, and its channel starts after its events so far.
  std::int64_t starts_after = 0;
  if (!run.paused_json.empty()) {
    if (auto resumption = DecidedResumption(run)) {
      starts_after = resumption->after_seq;
      start = ResumedStart{std::make_shared<const Resumption>(std::move(*resumption))};
    }
  }
  auto [cancel, channel] =
      registry_.Register(run.id, RunKind::kBackground, nullptr, executor, starts_after);
  d_.metrics.Add("agentgate_runs_started_total", {});
  asio::co_spawn(executor,
                 RunOne(std::make_shared<const RunRecord>(std::move(run)), std::move(start),
                        std::move(cancel), std::move(channel)),
                 asio::detached);
}

StreamedRun::StreamedRun(Key, RunWorker& worker, Parts parts, std::shared_ptr<RunChannel> channel)
    : worker_(worker),
      parts_(std::move(parts)),
      run_id_(parts_->run->id),
      channel_(std::move(channel)) {}

StreamedRun::~StreamedRun() {
  if (!parts_) return;
  // Never run by its caller (its response was never written): it runs beside it, as any run.
  asio::co_spawn(parts_->executor,
                 worker_.RunOne(std::move(parts_->run), std::move(parts_->start),
                                std::move(parts_->cancel), channel_),
                 asio::detached);
}

asio::awaitable<Result<InvokeResult>> StreamedRun::Run() {
  // Not a coroutine itself: the caller's frame awaits the run's own, with none between.
  auto awaitable = worker_.RunOne(std::move(parts_->run), std::move(parts_->start),
                                  std::move(parts_->cancel), channel_);
  parts_.reset();
  return awaitable;
}

std::shared_ptr<StreamedRun> RunWorker::PrepareStreamed(const RunRecord& run,
                                                        std::shared_ptr<const StreamedTurn> turn,
                                                        std::optional<ClaimedKey> key,
                                                        const asio::any_io_executor& executor,
                                                        bool written) {
  auto shared = std::make_shared<const RunRecord>(run);
  StreamedStart streamed{std::move(turn), std::move(key), written ? nullptr : shared};
  auto [cancel, channel] =
      registry_.Register(run.id, RunKind::kStreamed, streamed.unwritten, executor);
  RunStart start = std::move(streamed);
  d_.metrics.Add("agentgate_runs_started_total", {});
  return std::make_shared<StreamedRun>(
      StreamedRun::Key(), *this,
      StreamedRun::Parts{std::move(shared), std::move(start), std::move(cancel), executor},
      std::move(channel));
}

asio::awaitable<Result<InvokeResult>> RunWorker::Continue(RunRecord run, Resumption resumption) {
  const auto executor = co_await asio::this_coro::executor;
  auto [cancel, channel] =
      registry_.Register(run.id, RunKind::kResumed, nullptr, executor, resumption.after_seq);
  RunStart start = ResumedStart{std::make_shared<const Resumption>(std::move(resumption))};
  co_return co_await RunOne(std::make_shared<const RunRecord>(std::move(run)), std::move(start),
                            std::move(cancel), std::move(channel));
}

asio::awaitable<Result<InvokeResult>> RunWorker::RunOne(std::shared_ptr<const RunRecord> shared,
                                                        RunStart start,
                                                        std::shared_ptr<TurnCancel> cancel,
                                                        std::shared_ptr<RunChannel> channel) {
  const RunRecord& run = *shared;
  const auto executor = co_await asio::this_coro::executor;
  const auto* streamed = std::get_if<StreamedStart>(&start);
  const auto* resumed = std::get_if<ResumedStart>(&start);
  std::optional<QueuedRequest> queued;
  if (std::holds_alternative<QueuedStart>(start)) queued.emplace(run.request_json);
  // Its log lines join its trace (a paused run's resumption has none to name).
  const std::optional<SpanContext>* trace = streamed != nullptr ? &streamed->turn->trace
                                            : queued            ? &queued->trace
                                                                : nullptr;
  const SpanContext* const traced = trace != nullptr && *trace ? &**trace : nullptr;
  RunRecorder recorder(d_.writer, std::move(channel), run.id, d_.max_events, executor,
                       resumed != nullptr ? resumed->resumption->after_seq : 0,
                       streamed != nullptr ? streamed->unwritten : nullptr, d_.write_behind);
  if (resumed == nullptr) recorder.ReportStarted(run.conversation_id, run.agent_id);
  Result<InvokeResult> result = co_await RunTurn(run, start, queued ? &*queued : nullptr,
                                                 std::move(cancel), recorder, traced);
  if (result && Pauses(result->stop_reason)) {
    co_await Pause(run, *result, recorder, traced);
  } else {
    co_await Finish(run, result, recorder, traced);
  }
  if (run.notify && d_.webhooks_due) d_.webhooks_due();
  Ended(run.id);
  co_return result;
}

asio::awaitable<Result<InvokeResult>> RunWorker::RunTurn(
    const RunRecord& run, const RunStart& start, const QueuedRequest* queued,
    std::shared_ptr<TurnCancel> cancel, RunRecorder& recorder, const SpanContext* traced) {
  const auto* streamed = std::get_if<StreamedStart>(&start);
  Result<InvokeResult> result = Error(ErrorCode::kInternal, "the run failed");
  bool threw = false;  // a turn that returns releases its key itself when it does not commit
  try {
    if (streamed != nullptr) {
      // Admitted a moment ago by its call, on this server: it starts from what the call admitted.
      const StreamedTurn& turn = *streamed->turn;
      const InvokeCommand command =
          RunCommand(turn.caller, run, turn.agent, turn.request, streamed->key, cancel, recorder,
                     turn.trace, turn.answer);
      result = co_await d_.invoke.Invoke(command);
    } else if (const auto* resumed = std::get_if<ResumedStart>(&start)) {
      result = co_await ResumeTurn(run, *resumed->resumption, std::move(cancel), recorder);
    } else if (queued != nullptr) {
      result = co_await ExecuteTurn(run, *queued, std::move(cancel), recorder);
    } else {
      result = Error(ErrorCode::kInternal, "the run did not start");
    }
  } catch (const std::exception& e) {
    // The run still ends, and says so, rather than staying running.
    LogTraced("error", "run_failed",
              {{"run_id", std::string_view(run.id)}, {"error", std::string_view(e.what())}},
              traced);
    result = Error(ErrorCode::kInternal, "internal error (run " + run.id + ")");
    threw = true;
  }
  if (streamed != nullptr && streamed->key && threw)
    co_await d_.idempotency.Release(*streamed->key);
  co_return result;
}

asio::awaitable<void> RunWorker::Pause(const RunRecord& run, const InvokeResult& result,
                                       RunRecorder& recorder, const SpanContext* traced) {
  // Its turn's commit left it requires_action: its followers are told, and it waits.
  const auto told = co_await recorder.Pause(run_events::RequiresAction(InvokeBodyText(result)));
  if (!told) {
    LogTraced(
        "warn", "run_pause_not_told",
        {{"run_id", std::string_view(run.id)}, {"error", std::string_view(told.error().message)}},
        traced);
  }
  d_.metrics.Add("agentgate_runs_paused_total", {});
}

asio::awaitable<void> RunWorker::Finish(const RunRecord& run, const Result<InvokeResult>& result,
                                        RunRecorder& recorder, const SpanContext* traced) {
  if (recorder.ended_with_turn()) {
    co_await recorder.Drain();  // completed, in its turn's commit: nothing left to write
    d_.metrics.Add("agentgate_runs_ended_total",
                   {{"status", std::string(RunStatusName(RunStatus::kCompleted))}});
    co_return;
  }
  RunRecord ended = run;
  ended.ended_at_ms = d_.clock.NowMs();
  RunEvent terminal;
  if (result) {
    ended.status = RunStatus::kCompleted;
    ended.result_json = InvokeBodyText(*result);
    terminal = run_events::Completed(ended.result_json);
  } else {
    // Superseded is a cancel by a newer call on its conversation, named apart in its error.
    const ErrorCode code = result.error().code;
    ended.status = code == ErrorCode::kCanceled || code == ErrorCode::kSuperseded
                       ? RunStatus::kCanceled
                       : RunStatus::kFailed;
    terminal = run_events::Failed(result.error());
    ended.error_json = terminal.data;
  }
  const RunStatus status = ended.status;
  // Its readers see it ended from the moment its followers may have its terminal event.
  registry_.Ending(ended);
  const auto finished = co_await recorder.Finish(std::move(ended), std::move(terminal));
  if (!finished || !*finished) {
    // Its server's lease lapsed meanwhile and another ended it interrupted: that is its outcome.
    LogTraced(
        "warn", "run_not_finished",
        {{"run_id", std::string_view(run.id)},
         {"error", std::string_view(finished ? "no longer running" : finished.error().message)}},
        traced);
  }
  d_.metrics.Add("agentgate_runs_ended_total", {{"status", std::string(RunStatusName(status))}});
}

void RunWorker::Ended(const std::string& run_id) {
  // Room for the next queued run; a streamed run took none (a look would cost two store reads).
  if (registry_.Ended(run_id) == RunKind::kBackground) Wake();
}

asio::awaitable<Result<InvokeResult>> RunWorker::ResumeTurn(const RunRecord& run,
                                                            const Resumption& resumption,
                                                            std::shared_ptr<TurnCancel> cancel,
                                                            RunRecorder& recorder) {
  // It goes on from where it paused: whether its conversation moved on was checked as it began.
  auto request = KeptInvokeRequest(resumption.paused.invoke);
  if (!request) co_return Error(ErrorCode::kInternal, "the paused run's request could not be read");
  request->after_turn_id.reset();
  // It goes on as the caller that started it, with the agent version it began with.
  const Caller caller{run.org_id, run.env, run.token_id};
  AG_CO_TRY(const auto token, co_await d_.tenants.Token(run.token_id));
  if (!token || token->revoked)
    co_return Error(ErrorCode::kUnauthenticated, "the token that started the run was revoked");
  AG_CO_TRY(auto admitted,
            co_await d_.invoke.AdmitVersion(caller, run.agent_id, resumption.paused.agent_version));
  InvokeCommand command{caller,   run.agent_id, std::move(admitted),
                        *request, std::nullopt, std::move(cancel),
                        &recorder};
  command.origin = ResumedRunsTurn{&recorder, &resumption.paused, &resumption.decisions};
  co_return co_await d_.invoke.Invoke(command);
}

asio::awaitable<Result<InvokeResult>> RunWorker::ExecuteTurn(const RunRecord& run,
                                                             const QueuedRequest& queued,
                                                             std::shared_ptr<TurnCancel> cancel,
                                                             RunRecorder& recorder) {
  const auto& request = queued.request;
  if (!request) co_return Error(ErrorCode::kInternal, "the run's request could not be read");
  // The run runs as the caller that queued it, with its grants as they are now.
  const Caller caller{run.org_id, run.env, run.token_id};
  AG_CO_TRY(const auto token, co_await d_.tenants.Token(run.token_id));
  if (!token || token->revoked)
    co_return Error(ErrorCode::kUnauthenticated, "the token that queued the run was revoked");
  AG_CO_TRY(auto admitted, co_await d_.invoke.Admit(caller, run.agent_id));
  // Its Idempotency-Key was completed when it was queued: nothing for its commit to complete.
  InvokeCommand command = RunCommand(caller, run, std::move(admitted), *request, std::nullopt,
                                     std::move(cancel), recorder, queued.trace);
  auto& queued_turn = std::get<RunsTurn>(command.origin);
  queued_turn.took_place_when_queued = queued_turn.call_counted;
  co_return co_await d_.invoke.Invoke(command);
}

}  // namespace agentgate
