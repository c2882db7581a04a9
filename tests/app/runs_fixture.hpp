#pragma once
// The runs use-case tests' fixture (runs_test.cpp, run_followers_test.cpp): Runs and its RunWorker
// over the same InvokeAgent as the plain call (app_fixture.hpp), one event loop, a real SQLite
// store.
#include "app/app_fixture.hpp"
#include "app/runs/runs.hpp"

#include <chrono>
#include <optional>
#include <string>
#include <vector>

namespace agentgate::testing {

class RunsTest : public InvokeAgentTest {
 protected:
  void SetUp() override {
    InvokeAgentTest::SetUp();
    worker_.Start(io_.get_executor());
  }
  void TearDown() override {
    EXPECT_TRUE(StopWorker(worker_));  // no store call of its left out
    InvokeAgentTest::TearDown();
  }

  QueueAnswer Begin(const InvokeRequest& request, bool streamed,
                    const std::optional<std::string>& key = std::nullopt,
                    const std::string& fingerprint = "") {
    const std::string agent = "bot";
    const InvokeCall call{caller_, agent, request, key, fingerprint, answer_, nullptr};
    if (streamed) return RunAsync(io_, runs_.Stream(call)).answer;
    return RunAsync(io_, runs_.Queue(call));
  }
  // A streamed turn's run handed to its caller (`own`) to run.
  RunRecord HandedOver(const InvokeRequest& request, std::shared_ptr<StreamedRun>& own) {
    const InvokeCall call{caller_, "bot", request, std::nullopt, "", answer_, nullptr};
    auto begun = RunAsync(io_, runs_.Stream(call, false, true));
    own = std::move(begun.handed);
    const auto& answer = begun.answer;
    const auto& run = std::get<Result<RunRecord>>(answer);
    EXPECT_TRUE(run) << run.error().message;
    return run ? *run : RunRecord{};
  }
  RunRecord Queued(const InvokeRequest& request) {
    auto answer = Begin(request, false);
    const auto& run = std::get<Result<RunRecord>>(answer);
    EXPECT_TRUE(run) << run.error().message;
    return run ? *run : RunRecord{};
  }
  Error Refused(const InvokeRequest& request) {
    auto answer = Begin(request, false);
    const auto& run = std::get<Result<RunRecord>>(answer);
    EXPECT_FALSE(run);
    return run ? Error(ErrorCode::kInternal, "queued") : run.error();
  }

  // Stops `worker` and runs the loop until it has: a worker destroyed before its runs' coroutines
  // end leaves them resuming into freed memory.
  bool StopWorker(RunWorker& worker) {
    worker.Stop();
    return RunUntil([&] { return worker.Stopped(); });
  }
  // Runs the loop until `done()` or 10 s of real time.
  template <class Done>
  bool RunUntil(const Done& done, std::chrono::milliseconds within = 10s) {
    const auto until = std::chrono::steady_clock::now() + within;
    io_.restart();
    while (!done()) {
      if (std::chrono::steady_clock::now() > until) return false;
      io_.run_one_for(5ms);
    }
    return true;
  }
  RunRecord Stored(const std::string& run_id) { return store_->GetRun(run_id).value().value(); }
  RunRecord Ended(const std::string& run_id) {
    EXPECT_TRUE(RunUntil([&] {
      const auto run = store_->GetRun(run_id).value();  // a streamed run may be written at its end
      return run && HasEnded(run->status);
    })) << run_id;
    return Stored(run_id);
  }
  // A follower's look: the events it was given, and whether the run's end is among them.
  struct Look {
    std::vector<RunEvent> events;
    bool ended = false;
  };
  Result<Look> NextEvents(Runs& runs, RunCursor& cursor, std::chrono::milliseconds wait,
                          bool until_end = false) {
    Look look;
    const RunEventSink keep = [&look](const RunEvent& e) { look.events.push_back(e); };
    AG_TRY(const auto read, Await(runs.NextEvents(cursor, wait, keep, until_end)));
    EXPECT_EQ(read.events, look.events.size());
    look.ended = read.ended;
    return look;
  }
  std::vector<std::string> EventTypes(const std::string& run_id) {
    std::vector<std::string> types;
    std::int64_t seq = 0;
    for (const auto& e : store_->ListRunEvents(run_id, 0, 1000).value()) {
      EXPECT_EQ(e.seq, ++seq);  // numbered from 1, no gap
      types.push_back(e.type);
    }
    return types;
  }
  template <class T>
  Result<T> Await(asio::awaitable<Result<T>> work) {
    return RunAsync(io_, std::move(work));
  }

  // At most 2 runs at once, looking for queued ones every 20 ms, 100 events a run.
  RunWorkerDeps WorkerDeps() {
    return RunWorkerDeps{
        invoke_,  idempotency_,         tenants_, runner_, committer_, lease_, clock_,
        metrics_, {io_.get_executor()}, 2,        20ms,    100};
  }

  RunWorker worker_{WorkerDeps()};
  Runs runs_{invoke_,    idempotency_, tenants_, runner_,
             committer_, worker_,      clock_,   RunsOptions{3, 5000ms}};
};

inline constexpr const char* kApprovingConfig = R"({
  "name": "Bot",
  "instructions": "Answer briefly.",
  "model": {"provider": "fake", "name": "m1", "max_output_tokens": 100},
  "tools": [{"type": "http", "name": "lookup", "description": "Looks an order up",
             "parameters": {"type": "object"}, "url": "http://tools.test/lookup",
             "method": "POST", "approval": "always"}]
})";

// Runs of an agent whose lookup needs a person's approval (docs/daemon.md, Tool approvals).
class PausingRunsTest : public RunsTest {
 protected:
  void SetUp() override {
    RunsTest::SetUp();
    ASSERT_EQ(store_->AddAgentVersion("acme", "bot", kApprovingConfig, 1).value(), 2);
    ASSERT_TRUE(store_->SetDeployment("acme", "bot", "prod", 2));
    ASSERT_TRUE(store_->PutGrant("acme", "tok", "bot", {"chat", "approve"}));
    tenants_.Invalidate();
  }

  // A background run paused for the lookup's approval, out of this server's registry: the number
  // of its last event (the pause's) in `last`.
  RunRecord Paused(std::int64_t& last) {
    model_.script.push_back([](const ModelRequest&) { return CallsTool("lookup"); });
    const RunRecord queued = Queued(Asking("Look order 42 up"));
    EXPECT_TRUE(RunUntil([&] {
      const auto events = store_->ListRunEvents(queued.id, 0, 100).value();
      return !events.empty() && events.back().type == "run.requires_action" &&
             worker_.Running() == 0;
    }));
    last = static_cast<std::int64_t>(EventTypes(queued.id).size());
    return Stored(queued.id);
  }
};

}  // namespace agentgate::testing
