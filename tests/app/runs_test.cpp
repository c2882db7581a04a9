// Background and streamed runs (docs/runs.md) at the level of the use cases: Runs and its
// RunWorker over the same InvokeAgent as the plain call (app_fixture.hpp), one event loop, a real
// SQLite store. Each test states one rule of a run.
#include "app/runs/runs.hpp"
#include "adapters/store_sqlite/sqlite_db.hpp"
#include "app/runs_fixture.hpp"
#include "app/turn/invoke_body.hpp"
#include "domain/json_text.hpp"
#include "runtime/runs/run_recorder.hpp"

#include <boost/json/parse.hpp>

#include <chrono>
#include <thread>

namespace agentgate::testing {
namespace {

TEST_F(RunsTest, ABackgroundRunEndsWithExactlyThePlainCallsBodyAfterItsSteps) {
  model_.script.push_back([](const ModelRequest&) { return CallsTool("lookup"); });
  model_.script.push_back([](const ModelRequest&) { return Reply("Order 42 ships today."); });
  const RunRecord queued = Queued(Asking("Where is order 42?"));
  EXPECT_EQ(queued.status, RunStatus::kQueued);
  EXPECT_TRUE(queued.id.starts_with("run_"));
  const RunRecord run = Ended(queued.id);
  ASSERT_EQ(run.status, RunStatus::kCompleted) << run.error_json;
  EXPECT_EQ(run.server_id, lease_.id());
  EXPECT_TRUE(run.request_json.empty());  // the request is not kept once the run started

  // The plain call's body, as the same turn's result renders it.
  const auto body = boost::json::parse(run.result_json).as_object();
  EXPECT_EQ(body.at("response"), "Order 42 ships today.");
  EXPECT_EQ(body.at("usage").at("model_calls"), 2);
  EXPECT_EQ(EventTypes(run.id),
            (std::vector<std::string>{"run.started", "model.started", "model.finished",
                                      "tool.started", "tool.finished", "model.started",
                                      "model.finished", "text.delta", "run.completed"}));
  const auto events = store_->ListRunEvents(run.id, 0, 100).value();
  EXPECT_EQ(events.back().data, run.result_json);
  EXPECT_EQ(boost::json::parse(events[4].data).at("ok"), false);  // the tool's host is down
}

TEST_F(RunsTest, AKeyGivesADuplicateTheSameRunAndItsTurnRunsOnce) {
  model_.script.push_back([](const ModelRequest&) { return Reply("Once."); });
  const std::optional<std::string> key = "run-42";
  auto first = Begin(Asking("Where is order 42?"), false, key, "fp");
  const RunRecord run = std::get<Result<RunRecord>>(first).value();
  auto again = Begin(Asking("Where is order 42?"), false, key, "fp");
  ASSERT_TRUE(std::holds_alternative<StoredResponse>(again));
  const auto& replay = std::get<StoredResponse>(again);
  EXPECT_EQ(replay.status, 202);
  EXPECT_EQ(boost::json::parse(replay.body).at("run_id"), boost::json::value(run.id));
  EXPECT_EQ(Ended(run.id).status, RunStatus::kCompleted);
  EXPECT_EQ(model_.seen.size(), 1u);
  auto other = Begin(Asking("Something else"), false, key, "fp-2");
  EXPECT_EQ(std::get<Result<RunRecord>>(other).error().code, ErrorCode::kIdempotencyKeyReused);
}

TEST_F(RunsTest, ARunStartingAConversationGivesItsIdAtOnceAndItsCommitCreatesIt) {
  model_.script.push_back([](const ModelRequest&) { return Reply("Hello."); });
  const RunRecord queued = Queued(Asking("Hi", /*stateful=*/true));
  ASSERT_TRUE(queued.conversation_id.starts_with("conv_"));
  EXPECT_FALSE(store_->GetConversation(queued.conversation_id).value());  // not before the commit
  EXPECT_EQ(Ended(queued.id).status, RunStatus::kCompleted);
  EXPECT_TRUE(store_->GetConversation(queued.conversation_id).value());
  EXPECT_EQ(store_->LoadMessages(queued.conversation_id).value().size(), 2u);
}

TEST_F(RunsTest, ABackgroundRunOnABusyConversationIsRefusedNamingTheField) {
  model_.script.push_back([](const ModelRequest&) { return Reply("First."); });
  const auto first = Invoke(Asking("Hi", /*stateful=*/true));
  ASSERT_TRUE(first) << first.error().message;
  InvokeRequest more = Asking("More", /*stateful=*/true);
  more.conversation_id = first->conversation_id;
  model_.thinking = 300ms;
  model_.script.push_back([](const ModelRequest&) { return Reply("Second."); });
  const RunRecord running = Queued(more);
  const Error busy = Refused(more);
  EXPECT_EQ(busy.code, ErrorCode::kConversationBusy);
  EXPECT_NE(busy.message.find("conversation_id"), std::string::npos) << busy.message;
  EXPECT_EQ(Ended(running.id).status, RunStatus::kCompleted);
  model_.thinking = 0ms;
  model_.script.push_back([](const ModelRequest&) { return Reply("Third."); });
  EXPECT_EQ(Ended(Queued(more).id).status, RunStatus::kCompleted);  // free again
  // Another's conversation, or none, is 404 as for a plain call.
  more.conversation_id = "conv_unknown";
  EXPECT_EQ(Refused(more).code, ErrorCode::kConversationNotFound);
}

TEST_F(RunsTest, AnOrganizationsQueueIsBoundedAndALimitReachedRefusesBeforeQueueing) {
  ASSERT_TRUE(StopWorker(worker_));  // nothing starts: the runs stay queued
  for (int i = 0; i < 3; ++i) Queued(Asking("Queued"));
  const Error full = Refused(Asking("One too many"));
  EXPECT_EQ(full.code, ErrorCode::kQueueFull);
  EXPECT_EQ(HttpStatusOf(full.code), 429);

  ASSERT_TRUE(store_->SetOrgSpendLimit("acme", 0.0));
  const Error limited = Refused(Asking("Over the limit"));
  EXPECT_EQ(limited.code, ErrorCode::kSpendLimitReached);
}

TEST_F(RunsTest, CancelingAQueuedRunEndsItAtOnceAndAnEndedOneIsRefused) {
  ASSERT_TRUE(StopWorker(worker_));
  const RunRecord queued = Queued(Asking("Never mind"));
  auto canceled = Await(runs_.Cancel(caller_, queued.id));
  ASSERT_TRUE(canceled) << canceled.error().message;
  EXPECT_EQ(canceled->status, RunStatus::kCanceled);
  EXPECT_EQ(boost::json::parse(canceled->error_json).at("code"), "canceled");
  auto twice = Await(runs_.Cancel(caller_, queued.id));
  ASSERT_TRUE(twice);
  EXPECT_EQ(twice->status, RunStatus::kCanceled);
  EXPECT_EQ(EventTypes(queued.id), std::vector<std::string>{"run.failed"});
  EXPECT_TRUE(model_.seen.empty());
  EXPECT_EQ(Await(runs_.Cancel(caller_, "run_unknown")).error().code, ErrorCode::kRunNotFound);
}

TEST_F(RunsTest, CancelingARunningRunStoresNothingOfItsTurnAndSpendsNothing) {
  model_.thinking = 5s;
  model_.script.push_back([](const ModelRequest&) { return Reply("Too late."); });
  const RunRecord queued = Queued(Asking("Think hard", /*stateful=*/true));
  ASSERT_TRUE(RunUntil([&] { return !model_.seen.empty(); }));  // the model call is in flight
  auto canceled = Await(runs_.Cancel(caller_, queued.id));
  ASSERT_TRUE(canceled) << canceled.error().message;
  EXPECT_EQ(canceled->status, RunStatus::kCanceled);
  EXPECT_EQ(boost::json::parse(canceled->error_json).at("status"), 499);
  EXPECT_FALSE(store_->GetConversation(queued.conversation_id).value());
  EXPECT_TRUE(store_->ListTurns(queued.conversation_id).value().empty());
  EXPECT_TRUE(store_->CountTurnsPerDay(0).value().empty());  // no turn of any conversation
  for (const auto& row : store_->GetUsage("acme", "2026-11").value()) {
    EXPECT_EQ(row.spent_usd, 0.0);
    EXPECT_EQ(row.model_calls, 0);
  }
  const auto types = EventTypes(queued.id);
  EXPECT_EQ(types.back(), "run.failed");
  // Ended: a second cancel changes nothing, and a completed run cannot be canceled.
  EXPECT_EQ(Await(runs_.Cancel(caller_, queued.id))->status, RunStatus::kCanceled);
  model_.thinking = 0ms;
  model_.script.push_back([](const ModelRequest&) { return Reply("Done."); });
  const RunRecord done = Ended(Queued(Asking("Quick")).id);
  EXPECT_EQ(Await(runs_.Cancel(caller_, done.id)).error().code, ErrorCode::kRunEnded);
}

TEST_F(RunsTest, AServerRunsAtMostMaxConcurrentRunsAndTheRestWaitQueued) {
  model_.thinking = 50ms;
  std::vector<std::string> ids;
  for (int i = 0; i < 3; ++i) {
    model_.script.push_back([](const ModelRequest&) { return Reply("Done."); });
    ids.push_back(Queued(Asking("Run " + std::to_string(i))).id);
  }
  std::size_t most = 0;
  ASSERT_TRUE(RunUntil([&] {
    std::size_t running = 0;
    bool all_done = true;
    for (const auto& id : ids) {
      const auto status = Stored(id).status;
      running += status == RunStatus::kRunning ? 1 : 0;
      all_done = all_done && status == RunStatus::kCompleted;
    }
    most = std::max(most, running);
    return all_done;
  }));
  EXPECT_EQ(most, 2u);  // max_concurrent, and it was reached
}

TEST_F(RunsTest, ARunRunsAsItsCallerAsTheyAreWhenItStarts) {
  ASSERT_TRUE(StopWorker(worker_));
  const RunRecord queued = Queued(Asking("Hi"));
  ASSERT_TRUE(store_->RevokeToken("acme", "tok"));
  clock_.Advance(2s);  // past the tenant cache's freshness
  RunWorker second{WorkerDeps()};
  second.Start(io_.get_executor());
  const RunRecord run = Ended(queued.id);
  EXPECT_EQ(run.status, RunStatus::kFailed);
  EXPECT_EQ(boost::json::parse(run.error_json).at("code"), "unauthenticated");
  EXPECT_TRUE(model_.seen.empty());
  EXPECT_TRUE(StopWorker(second));
}

TEST_F(RunsTest, AStreamedRunStartsAtOnceAndItsKeyStoresItsWayInsAnswer) {
  model_.script.push_back([](const ModelRequest&) { return Reply("Streamed."); });
  const std::optional<std::string> key = "stream-1";
  auto started = Begin(Asking("Hi"), /*streamed=*/true, key, "fp");
  const RunRecord run = std::get<Result<RunRecord>>(started).value();
  EXPECT_EQ(run.status, RunStatus::kRunning);
  // Its follower reads the events as they happen, to the terminal one.
  std::vector<RunEvent> seen;
  RunCursor cursor{run.id, 0, nullptr, nullptr};
  for (bool ended = false; !ended;) {
    auto batch = NextEvents(runs_, cursor, 1000ms);
    ASSERT_TRUE(batch) << batch.error().message;
    seen.insert(seen.end(), batch->events.begin(), batch->events.end());
    ended = batch->ended;
  }
  ASSERT_EQ(seen.back().type, "run.completed");
  EXPECT_EQ(seen.back().seq, static_cast<std::int64_t>(seen.size()));
  const RunRecord ended = Ended(run.id);
  EXPECT_EQ(ended.status, RunStatus::kCompleted);
  // A retry with the key replays the way in's answer (an OpenAI stream's whole stream; /api's
  // renders none, and stores the plain call's 200 body); no second turn.
  auto replay = Begin(Asking("Hi"), /*streamed=*/true, key, "fp");
  ASSERT_TRUE(std::holds_alternative<StoredResponse>(replay));
  EXPECT_EQ(std::get<StoredResponse>(replay).status, 200);
  EXPECT_EQ(std::get<StoredResponse>(replay).body, R"({"response":"Streamed."})");
  EXPECT_NE(ended.result_json.find(R"("response":"Streamed.")"), std::string::npos);
  EXPECT_EQ(model_.seen.size(), 1u);
  // From the store once it ended, and after a Last-Event-ID.
  EXPECT_EQ(cursor.after_seq, seen.back().seq);
  RunCursor resumed{run.id, 2, nullptr, nullptr};
  auto rest = NextEvents(runs_, resumed, 0ms);
  ASSERT_TRUE(rest);
  EXPECT_EQ(rest->events.size(), seen.size() - 2);
  EXPECT_TRUE(rest->ended);
  EXPECT_EQ(resumed.after_seq, seen.back().seq);
}

// A streamed invoke runs its own run in its response's coroutine (docs/runs.md): handed over
// registered, so a cancel, a reader and other followers find it before it runs; it runs only when
// its caller runs it, and leaves every event in its channel.
TEST_F(RunsTest, AStreamedRunHandedToItsCallerIsFoundAtOnceAndRunsInTheCallersCoroutine) {
  model_.script.push_back([](const ModelRequest&) { return Reply("Mine."); });
  std::shared_ptr<StreamedRun> own;
  const RunRecord run = HandedOver(Asking("Hi"), own);
  ASSERT_NE(own, nullptr);
  EXPECT_EQ(own->run_id(), run.id);
  RunUntil([] { return false; }, 50ms);
  EXPECT_TRUE(model_.seen.empty());  // not run until its caller runs it
  EXPECT_EQ(worker_.Running(), 1u);
  EXPECT_EQ(worker_.Channel(run.id), own->channel());
  EXPECT_EQ(Await(runs_.Get(caller_, run.id))->status, RunStatus::kRunning);

  const auto result = Await(own->Run());
  ASSERT_TRUE(result) << result.error().message;
  EXPECT_EQ(result->response, "Mine.");
  EXPECT_EQ(worker_.Running(), 0u);
  EXPECT_EQ(worker_.Channel(run.id), nullptr);
  std::vector<std::string> types;
  own->channel()->ForEachAfter(0, [&](const RunEvent& e) { types.push_back(e.type); });
  ASSERT_FALSE(types.empty());
  EXPECT_EQ(types.front(), "run.started");
  EXPECT_EQ(types.back(), "run.completed");
  EXPECT_EQ(Ended(run.id).status, RunStatus::kCompleted);
  EXPECT_EQ(model_.seen.size(), 1u);
}

// One its caller drops unrun (its response was never written) runs beside it all the same.
TEST_F(RunsTest, AStreamedRunItsCallerDropsUnrunStillRunsToItsEnd) {
  model_.script.push_back([](const ModelRequest&) { return Reply("Anyway."); });
  std::shared_ptr<StreamedRun> own;
  const RunRecord run = HandedOver(Asking("Hi"), own);
  ASSERT_NE(own, nullptr);
  own.reset();
  const RunRecord ended = Ended(run.id);
  EXPECT_EQ(ended.status, RunStatus::kCompleted);
  EXPECT_EQ(boost::json::parse(ended.result_json).at("response"), "Anyway.");
  EXPECT_TRUE(RunUntil([&] { return worker_.Running() == 0; }));
  EXPECT_EQ(model_.seen.size(), 1u);
}

TEST_F(RunsTest, AFollowerWaitingForTheEndHasAQuickRunsEveryEventInOneLook) {
  model_.script.push_back([](const ModelRequest&) { return Reply("Quick."); });
  const RunRecord run = std::get<Result<RunRecord>>(Begin(Asking("Hi"), true)).value();
  RunCursor cursor{run.id, 0, nullptr, nullptr};
  auto look = NextEvents(runs_, cursor, 10s, /*until_end=*/true);
  ASSERT_TRUE(look) << look.error().message;
  EXPECT_TRUE(look->ended);
  ASSERT_GE(look->events.size(), 3u);
  EXPECT_EQ(look->events.front().type, "run.started");
  EXPECT_EQ(look->events.back().type, "run.completed");
  EXPECT_EQ(cursor.after_seq, look->events.back().seq);
}

// A run's end reaches its followers before its write is durable; a reader who has its terminal
// event sees it ended all the same (docs/runs.md): this server answers from the end on its way.
// Once its turn is committed, the store's write lock is held, so the end's write waits. Its events
// wait for its end (no write of their own meanwhile), so the end's write is never out before.
TEST_F(RunsTest, ARunIsEndedToAReaderOnceItsFollowerHasItsTerminalEvent) {
  ASSERT_TRUE(StopWorker(worker_));
  RunWorkerDeps deps = WorkerDeps();
  deps.write_behind = 10min;
  deps.poll = 10min;  // it claims the run when its queueing wakes it, after the run's create
  RunWorker worker{deps};
  Runs runs{invoke_,    idempotency_, tenants_, runner_,
            committer_, worker,       clock_,   RunsOptions{3, 5000ms}};
  worker.Start(io_.get_executor());
  model_.script.push_back([](const ModelRequest&) { return Reply("Held."); });
  const InvokeCall call{caller_, "bot", Asking("Hi"), std::nullopt, "", answer_, nullptr};
  QueueAnswer answer = RunAsync(io_, runs.Queue(call));
  const RunRecord queued = std::get<Result<RunRecord>>(answer).value();
  // The turn's commit is the next write queued after the run's create. Once it is, its caller
  // resumes only when this loop runs again, and the run's end is written only then: the store is
  // locked first.
  const std::size_t created = committer_.enqueued();
  ASSERT_TRUE(RunUntil([&] { return committer_.enqueued() > created; }));
  const auto until = std::chrono::steady_clock::now() + 10s;
  while (committer_.committed() < 1 && std::chrono::steady_clock::now() < until)
    std::this_thread::sleep_for(1ms);
  ASSERT_EQ(committer_.committed(), 1u);
  sqlite::Connection other(backend_.path());
  std::optional<sqlite::WriteTransaction> busy(std::in_place, other);

  RunCursor cursor{queued.id, 0, nullptr, nullptr};
  bool ended = false;
  for (int look = 0; look < 20 && !ended; ++look) {
    auto read = NextEvents(runs, cursor, 2s);
    ASSERT_TRUE(read) << read.error().message;
    ended = read->ended;
  }
  ASSERT_TRUE(ended);
  EXPECT_EQ(Stored(queued.id).status, RunStatus::kRunning);  // its end's write waits
  const auto seen = Await(runs.Get(caller_, queued.id));
  ASSERT_TRUE(seen) << seen.error().message;
  EXPECT_EQ(seen->status, RunStatus::kCompleted);
  EXPECT_EQ(boost::json::parse(seen->result_json).at("response"), "Held.");
  // The operator's list agrees (the console lists runs again after a cancel's answer).
  const auto listed = Await(runs.List("acme", "prod", 10));
  ASSERT_TRUE(listed) << listed.error().message;
  ASSERT_EQ(listed->size(), 1u);
  EXPECT_EQ(listed->front().id, queued.id);
  EXPECT_EQ(listed->front().status, RunStatus::kCompleted);

  busy.reset();
  EXPECT_EQ(Ended(queued.id).status, RunStatus::kCompleted);
  EXPECT_EQ(Await(runs.Get(caller_, queued.id))->status, RunStatus::kCompleted);
  EXPECT_TRUE(StopWorker(worker));
}

TEST_F(RunsTest, AnotherEnvironmentsRunIsNotFoundAndNoChatGrantIsForbidden) {
  model_.script.push_back([](const ModelRequest&) { return Reply("Mine."); });
  const RunRecord run = Ended(Queued(Asking("Hi")).id);
  const Caller elsewhere{"acme", "staging", "tok"};
  EXPECT_EQ(Await(runs_.Get(elsewhere, run.id)).error().code, ErrorCode::kRunNotFound);
  ASSERT_TRUE(store_->PutGrant("acme", "tok", "bot", {}));
  clock_.Advance(2s);
  EXPECT_EQ(Await(runs_.Get(caller_, run.id)).error().code, ErrorCode::kForbidden);
}

// A background run's end makes room: the worker looks for queued runs at once. A streamed run's
// end makes none, and costs no look (two store reads): a run queued meanwhile waits for the poll.
TEST_F(RunsTest, ABackgroundRunsEndStartsTheNextQueuedRunAndAStreamedRunsEndDoesNot) {
  ASSERT_TRUE(StopWorker(worker_));
  RunWorkerDeps deps = WorkerDeps();
  deps.max_concurrent = 1;
  deps.poll = 60s;  // no look but the ones a run's end or queueing asks for, in this test
  RunWorker worker{deps};
  Runs runs{invoke_,    idempotency_, tenants_, runner_,
            committer_, worker,       clock_,   RunsOptions{3, 5000ms}};
  worker.Start(io_.get_executor());
  RunUntil([&] { return false; }, 50ms);  // its first look found nothing
  const auto queue_directly = [&](const std::string& id) {
    RunRecord run;
    run.id = id;
    run.org_id = "acme";
    run.env = "prod";
    run.agent_id = "bot";
    run.token_id = "tok";
    run.status = RunStatus::kQueued;
    run.request_json = R"({"message":"later"})";
    run.created_at_ms = clock_.NowMs();
    ASSERT_TRUE(store_->CreateRun(run, 10, std::nullopt).value());  // no wake-up: as another server
  };

  model_.script.push_back([](const ModelRequest&) { return Reply("Streamed."); });
  queue_directly("run_waiting_1");
  const InvokeCall call{caller_, "bot", Asking("Hi"), std::nullopt, "", answer_, nullptr};
  QueueAnswer answer = RunAsync(io_, runs.Stream(call)).answer;
  const RunRecord streamed = std::get<Result<RunRecord>>(answer).value();
  EXPECT_EQ(Ended(streamed.id).status, RunStatus::kCompleted);
  RunUntil([&] { return false; }, 300ms);
  EXPECT_EQ(Stored("run_waiting_1").status, RunStatus::kQueued);

  // A background run queued here is started (its queueing wakes the worker) with the one waiting;
  // the one queued after them starts when one of them ends, long before the next poll.
  model_.thinking = 100ms;
  for (int i = 0; i < 3; ++i)
    model_.script.push_back([](const ModelRequest&) { return Reply("Done."); });
  const InvokeCall queued_call{caller_, "bot",   Asking("Queued"), std::nullopt,
                               "",      answer_, nullptr};
  QueueAnswer queued = RunAsync(io_, runs.Queue(queued_call));
  ASSERT_TRUE(std::get<Result<RunRecord>>(queued));
  queue_directly("run_waiting_2");
  for (const char* id : {"run_waiting_1", "run_waiting_2"})
    EXPECT_EQ(Ended(id).status, RunStatus::kCompleted) << id;
  EXPECT_TRUE(StopWorker(worker));
}

// A server alone on its store (SQLite) writes a stateless streamed run at its end, or with its
// first events' write: here that write waits 10 s, so the runs below stay unwritten while they run.
class UnwrittenRunsTest : public RunsTest {
 protected:
  void TearDown() override {
    EXPECT_TRUE(StopWorker(later_worker_));
    RunsTest::TearDown();
  }
  RunWorkerDeps LaterDeps() {
    RunWorkerDeps deps = WorkerDeps();
    deps.write_behind = 10s;
    return deps;
  }
  RunRecord Streamed(const InvokeRequest& request) {
    const InvokeCall call{caller_, "bot", request, std::nullopt, "", answer_, nullptr};
    QueueAnswer answer = RunAsync(io_, later_runs_.Stream(call)).answer;
    return std::get<Result<RunRecord>>(answer).value();
  }

  // A running run as its recorder starts it, not in the store yet.
  static RunRecord Running(std::string id) {
    RunRecord running;
    running.id = std::move(id);
    running.org_id = "acme";
    running.env = "prod";
    running.agent_id = "bot";
    running.token_id = "tok";
    running.status = RunStatus::kRunning;
    running.created_at_ms = running.started_at_ms = 1000;
    return running;
  }

  RunWorker later_worker_{LaterDeps()};
  Runs later_runs_{invoke_,    idempotency_,  tenants_, runner_,
                   committer_, later_worker_, clock_,   RunsOptions{3, 5000ms, true}};
};

TEST_F(UnwrittenRunsTest, AShortStreamedRunIsWrittenOnceAtItsEndWithEveryEvent) {
  model_.script.push_back([](const ModelRequest&) { return CallsTool("lookup"); });
  model_.script.push_back([](const ModelRequest&) { return Reply("Order 42 ships today."); });
  const RunRecord run = Streamed(Asking("Where is order 42?"));
  EXPECT_EQ(run.status, RunStatus::kRunning);
  EXPECT_FALSE(store_->GetRun(run.id).value());  // not when it starts
  const RunRecord ended = Ended(run.id);
  EXPECT_EQ(ended.status, RunStatus::kCompleted);
  EXPECT_EQ(ended.server_id, lease_.id());
  EXPECT_EQ(ended.started_at_ms, run.started_at_ms);
  EXPECT_EQ(boost::json::parse(ended.result_json).at("response"), "Order 42 ships today.");
  EXPECT_EQ(EventTypes(run.id),
            (std::vector<std::string>{"run.started", "model.started", "model.finished",
                                      "tool.started", "tool.finished", "model.started",
                                      "model.finished", "text.delta", "run.completed"}));
  // Read as any ended run: after a Last-Event-ID, from the store.
  RunCursor resumed{run.id, 7, nullptr, nullptr};
  auto rest = NextEvents(later_runs_, resumed, 0ms);
  ASSERT_TRUE(rest) << rest.error().message;
  ASSERT_EQ(rest->events.size(), 2u);
  EXPECT_EQ(rest->events[1].data, ended.result_json);
  EXPECT_TRUE(rest->ended);
  EXPECT_EQ(Await(later_runs_.Get(caller_, run.id))->status, RunStatus::kCompleted);
}

TEST_F(UnwrittenRunsTest, AQuickStreamedRunEndsInItsTurnsCommit) {
  model_.script.push_back([](const ModelRequest&) { return Reply("Done."); });
  const std::size_t before = committer_.batches();
  const RunRecord run = Streamed(Asking("Quick"));
  const RunRecord ended = Ended(run.id);
  ASSERT_TRUE(RunUntil([&] { return !later_worker_.Ahead(run.id); }));
  EXPECT_EQ(committer_.batches() - before, 1u);  // the turn and its run: one write
  EXPECT_EQ(ended.status, RunStatus::kCompleted);
  EXPECT_EQ(boost::json::parse(ended.result_json).at("response"), "Done.");
  EXPECT_EQ(EventTypes(run.id),
            (std::vector<std::string>{"run.started", "model.started", "model.finished",
                                      "text.delta", "run.completed"}));
  EXPECT_EQ(store_->ListRunEvents(run.id, 0, 10).value().back().data, ended.result_json);
}

// The recorder's side of a run ending in its turn's commit (RunRecorder::EndWithTurn): a refused
// commit gives the events back and the run ends on its own; a written one only tells followers.
TEST_F(UnwrittenRunsTest, ARunWhoseTurnsCommitIsRefusedEndsOnItsOwnWithEveryEvent) {
  RunRecord running = Running("run_x");
  auto channel = std::make_shared<RunChannel>(100);
  RunRecorder recorder(committer_, channel, running.id, 100, io_.get_executor(), 0,
                       std::make_shared<const RunRecord>(running), 10s);
  recorder.ReportStarted("", "bot");
  recorder.Report(run_events::TextDelta("Hi"));
  InvokeResult result;
  result.response = "Hi";
  auto ended = recorder.EndWithTurn(InvokeBodyText(result), 2000);
  ASSERT_TRUE(ended);
  EXPECT_EQ(ended->kind, RunWrite::Kind::kCreateEnded);
  EXPECT_EQ(ended->run.status, RunStatus::kCompleted);
  EXPECT_EQ(ended->run.ended_at_ms, 2000);
  // Its events so far, and its terminal one, for the write that ends it.
  const auto& events = ended->events;
  ASSERT_EQ(events.size(), 3u);
  EXPECT_EQ(events[0].type, "run.started");
  EXPECT_EQ(events[0].data, run_events::Started(running.id, "", "bot").data);
  EXPECT_EQ(events[1].data, R"({"text":"Hi"})");
  EXPECT_EQ(events.back().seq, 3);
  EXPECT_EQ(events.back().type, "run.completed");
  EXPECT_EQ(events.back().data, ended->run.result_json);
  recorder.TurnCommitted(false);
  EXPECT_FALSE(recorder.ended_with_turn());
  EXPECT_FALSE(channel->Ended());  // its followers saw no end

  RunRecord failed = running;
  failed.status = RunStatus::kFailed;
  failed.ended_at_ms = 2100;
  const RunEvent terminal = run_events::Failed(Error(ErrorCode::kConflict, "refused"));
  failed.error_json = terminal.data;
  ASSERT_TRUE(Await(recorder.Finish(failed, terminal)).value());
  EXPECT_EQ(Stored(running.id).status, RunStatus::kFailed);
  EXPECT_EQ(EventTypes(running.id),
            (std::vector<std::string>{"run.started", "text.delta", "run.failed"}));

  // Written with its turn: the followers get its end, and its drain writes nothing more.
  running.id = "run_y";
  auto written_channel = std::make_shared<RunChannel>(100);
  RunRecorder written(committer_, written_channel, running.id, 100, io_.get_executor(), 0,
                      std::make_shared<const RunRecord>(running), 10s);
  written.ReportStarted("", "bot");
  auto rode = written.EndWithTurn(InvokeBodyText(result), 2000);
  ASSERT_TRUE(rode);
  written.TurnCommitted(true);
  EXPECT_TRUE(written.ended_with_turn());
  EXPECT_TRUE(written.RunStored());
  const auto seen = written_channel->After(0);
  ASSERT_EQ(seen.size(), 2u);
  EXPECT_EQ(seen.back().type, "run.completed");
  EXPECT_EQ(seen.back().seq, 2);
  const std::size_t batches = committer_.batches();
  RunAsync(io_, written.Drain());
  EXPECT_EQ(committer_.batches(), batches);
  EXPECT_FALSE(store_->GetRun(running.id).value());  // this test wrote no commit for it
}

// Written running by its first events' write, a run only this server follows writes the rest at
// its end, not every write-behind (issue 75: a streamed turn's store writes).
TEST_F(UnwrittenRunsTest, ARunWrittenLateWritesItsLaterEventsAtItsEnd) {
  RunRecord running = Running("run_late");
  auto channel = std::make_shared<RunChannel>(100);
  RunRecorder recorder(committer_, channel, running.id, 100, io_.get_executor(), 0,
                       std::make_shared<const RunRecord>(running), 20ms);
  recorder.ReportStarted("", "bot");
  ASSERT_TRUE(RunUntil([&] { return recorder.RunStored(); }));
  EXPECT_EQ(Stored(running.id).status, RunStatus::kRunning);
  EXPECT_EQ(EventTypes(running.id), std::vector<std::string>{"run.started"});
  const std::size_t batches = committer_.batches();
  recorder.Report(run_events::TextDelta("Hello"));
  recorder.Report(run_events::TextDelta(" world"));
  // Ten write-behind waits pass with no write.
  EXPECT_FALSE(RunUntil([&] { return committer_.batches() > batches; }, 200ms));
  EXPECT_EQ(channel->After(0).size(), 3u);  // its followers have them meanwhile

  RunRecord completed = running;
  completed.status = RunStatus::kCompleted;
  completed.ended_at_ms = 2000;
  completed.result_json = R"({"response":"Hello world"})";
  ASSERT_TRUE(
      Await(recorder.Finish(completed, run_events::Completed(completed.result_json))).value());
  EXPECT_EQ(committer_.batches() - batches, 1u);
  EXPECT_EQ(Stored(running.id).status, RunStatus::kCompleted);
  EXPECT_EQ(EventTypes(running.id),
            (std::vector<std::string>{"run.started", "text.delta", "text.delta", "run.completed"}));
}

TEST_F(UnwrittenRunsTest, AnUnwrittenRunIsReadFollowedAndCanceledOnItsServer) {
  model_.thinking = 5s;
  model_.script.push_back([](const ModelRequest&) { return Reply("Too late."); });
  const RunRecord run = Streamed(Asking("Think hard"));
  ASSERT_TRUE(RunUntil([&] { return !model_.seen.empty(); }));  // the model call is in flight
  EXPECT_FALSE(store_->GetRun(run.id).value());
  // Its caller reads it running; another environment does not find it.
  const auto got = Await(later_runs_.Get(caller_, run.id));
  ASSERT_TRUE(got) << got.error().message;
  EXPECT_EQ(got->status, RunStatus::kRunning);
  EXPECT_EQ(Await(later_runs_.Get(Caller{"acme", "staging", "tok"}, run.id)).error().code,
            ErrorCode::kRunNotFound);
  // A follower has its events so far from this server.
  RunCursor cursor{run.id, 0, nullptr, nullptr};
  auto so_far = NextEvents(later_runs_, cursor, 0ms);
  ASSERT_TRUE(so_far) << so_far.error().message;
  ASSERT_FALSE(so_far->events.empty());
  EXPECT_EQ(so_far->events[0].type, "run.started");
  EXPECT_FALSE(so_far->ended);
  // Canceled as any running run: ended canceled, written once with its events, nothing spent.
  auto canceled = Await(later_runs_.Cancel(caller_, run.id));
  ASSERT_TRUE(canceled) << canceled.error().message;
  EXPECT_EQ(canceled->status, RunStatus::kCanceled);
  EXPECT_EQ(boost::json::parse(canceled->error_json).at("status"), 499);
  const auto types = EventTypes(run.id);
  EXPECT_EQ(types.front(), "run.started");
  EXPECT_EQ(types.back(), "run.failed");
  EXPECT_TRUE(store_->CountTurnsPerDay(0).value().empty());
  for (const auto& row : store_->GetUsage("acme", "2026-11").value()) EXPECT_EQ(row.spent_usd, 0.0);
  EXPECT_EQ(Await(later_runs_.Cancel(caller_, run.id))->status, RunStatus::kCanceled);  // twice
  EXPECT_FALSE(later_worker_.Ahead(run.id));
}

TEST_F(UnwrittenRunsTest, ARunThatIsNotShortIsWrittenRunningWithItsFirstEvents) {
  RunWorkerDeps deps = WorkerDeps();
  deps.write_behind = 20ms;
  RunWorker worker{deps};
  Runs runs{invoke_,    idempotency_, tenants_, runner_,
            committer_, worker,       clock_,   RunsOptions{3, 5000ms, true}};
  model_.thinking = 2s;
  model_.script.push_back([](const ModelRequest&) { return Reply("Slow."); });
  const InvokeCall call{caller_, "bot", Asking("Slowly"), std::nullopt, "", answer_, nullptr};
  QueueAnswer answer = RunAsync(io_, runs.Stream(call)).answer;
  const RunRecord run = std::get<Result<RunRecord>>(answer).value();
  ASSERT_TRUE(RunUntil([&] { return store_->GetRun(run.id).value().has_value(); }));
  const auto written = store_->GetRun(run.id).value();
  EXPECT_EQ(written->status, RunStatus::kRunning);  // with its events so far, before it ends
  EXPECT_EQ(written->server_id, lease_.id());
  EXPECT_EQ(EventTypes(run.id).front(), "run.started");
  EXPECT_EQ(Ended(run.id).status, RunStatus::kCompleted);
  EXPECT_EQ(EventTypes(run.id).back(), "run.completed");
  // Its end is stored before its coroutine is done with the worker: it must not outlive it.
  EXPECT_TRUE(StopWorker(worker));
}

TEST_F(UnwrittenRunsTest, AStreamedRunOnAConversationIsWrittenAsItStarts) {
  model_.thinking = 300ms;
  model_.script.push_back([](const ModelRequest&) { return Reply("Hello."); });
  const RunRecord run = Streamed(Asking("Hi", /*stateful=*/true));
  const auto written = store_->GetRun(run.id).value();  // a conversation's busy check reads it
  ASSERT_TRUE(written);
  EXPECT_EQ(written->status, RunStatus::kRunning);
  EXPECT_EQ(Ended(run.id).status, RunStatus::kCompleted);
}

}  // namespace
}  // namespace agentgate::testing
