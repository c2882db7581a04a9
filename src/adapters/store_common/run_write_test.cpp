// The run-write plan over rows kept in memory: which writes each run write makes, and which it
// refuses. The engines' SQL is tested by the store contract (tests/store).
#include "adapters/store_common/run_write.hpp"

#include "adapters/store_common/run_event_log.hpp"
#include "domain/runs/run_state.hpp"

#include <gtest/gtest.h>

#include <limits>
#include <map>

namespace agentgate {
namespace {

struct Rows final : RunRowWriter {
  std::map<std::string, RunRecord> runs;
  std::map<std::string, std::string> folded;
  std::map<std::string, std::vector<RunEvent>> events;
  std::vector<std::string> deliveries;  // "<run id> <type>"
  bool key_taken_over = false;

  std::int64_t WaitingRunsOf(const std::string& org_id) override {
    std::int64_t n = 0;
    for (const auto& [id, run] : runs)
      n += run.org_id == org_id &&
           (run.status == RunStatus::kQueued || run.status == RunStatus::kRequiresAction);
    return n;
  }
  bool CompleteIdempotencyKey(const IdempotencyCompletion&) override { return !key_taken_over; }
  void InsertRun(const RunRecord& run) override { runs.emplace(run.id, run); }
  void InsertEndedRun(const RunRecord& run, const std::string& log) override {
    runs.emplace(run.id, run);
    folded[run.id] = log;
  }
  void InsertEvents(const std::string& run_id, const std::vector<RunEvent>& added) override {
    auto& all = events[run_id];
    all.insert(all.end(), added.begin(), added.end());
  }
  std::optional<RunStatus> StatusForUpdate(const std::string& run_id) override {
    auto it = runs.find(run_id);
    if (it == runs.end()) return std::nullopt;
    return it->second.status;
  }
  std::int64_t LastEventSeq(const std::string& run_id) override {
    const auto& all = events[run_id];
    return all.empty() ? 0 : all.back().seq;
  }
  void UpdateEnd(const RunRecord& run, const std::string& log) override {
    folded[run.id] = log;
    RunRecord& stored = runs.at(run.id);
    stored.status = run.status;
    stored.result_json = run.result_json;
    stored.error_json = run.error_json;
    stored.ended_at_ms = run.ended_at_ms;
    stored.request_json.clear();
    stored.paused_json.clear();
  }
  void AskCancel(const std::string& run_id) override { runs.at(run_id).cancel_requested = true; }
  // Every event of the run, as ListRunEvents reads them: its rows, then its folded ones.
  std::vector<RunEvent> Read(const std::string& run_id, std::int64_t after = 0, int limit = 100) {
    const RunRecord& run = runs.at(run_id);
    const FoldedEventsRow row{folded[run_id], run.result_json, run.error_json, run.conversation_id,
                              run.agent_id};
    return ReadRunEvents(run_id, row, after, limit, [&](std::int64_t from, int most) {
      std::vector<RunEvent> out;
      for (const auto& e : events[run_id])
        if (e.seq > from && static_cast<int>(out.size()) < most) out.push_back(e);
      return out;
    });
  }
  void EnqueueEndWebhooks(const RunRecord& run, const std::string& type) override {
    deliveries.push_back(run.id + " " + type);
  }
};

RunRecord ARun(const std::string& id, RunStatus status) {
  RunRecord run;
  run.id = id;
  run.org_id = "acme";
  run.env = "prod";
  run.agent_id = "bot";
  run.status = status;
  run.notify = true;
  return run;
}

RunEvent Event(std::int64_t seq, std::string type, std::string data = "{}") {
  return RunEvent{seq, std::move(type), std::move(data)};
}

TEST(RunWritePlan, AQueuedRunIsRefusedPastItsOrganizationsBoundAndARunningOneIsNot) {
  Rows rows;
  RunWrite create{RunWrite::Kind::kCreate, ARun("r1", RunStatus::kQueued), {}, 1, std::nullopt};
  EXPECT_TRUE(WriteRun(rows, create).value());
  create.run.id = "r2";
  EXPECT_FALSE(WriteRun(rows, create).value());
  EXPECT_FALSE(rows.runs.contains("r2"));
  RunWrite running{RunWrite::Kind::kCreate,
                   ARun("r3", RunStatus::kRunning),
                   {Event(1, "run.started")},
                   1,
                   std::nullopt};
  EXPECT_TRUE(WriteRun(rows, running).value());
  EXPECT_EQ(rows.events["r3"].size(), 1u);
}

TEST(RunWritePlan, ACreateWhoseKeyWasTakenOverWritesNothing) {
  Rows rows;
  rows.key_taken_over = true;
  const RunWrite create{
      RunWrite::Kind::kCreate, ARun("r1", RunStatus::kQueued), {}, 10, IdempotencyCompletion{}};
  const auto written = WriteRun(rows, create);
  ASSERT_FALSE(written);
  EXPECT_EQ(written.error().code, ErrorCode::kConflict);
  EXPECT_TRUE(rows.runs.empty());
}

TEST(RunWritePlan, OnlyARunningRunFinishesAndItsEndIsDelivered) {
  Rows rows;
  rows.runs.emplace("r1", ARun("r1", RunStatus::kRunning));
  RunRecord ended = ARun("r1", RunStatus::kCompleted);
  ended.result_json = R"({"response":"ok"})";
  const RunWrite finish{
      RunWrite::Kind::kFinish, ended, {Event(2, "run.completed")}, 0, std::nullopt};
  EXPECT_TRUE(WriteRun(rows, finish).value());
  EXPECT_EQ(rows.runs.at("r1").status, RunStatus::kCompleted);
  EXPECT_EQ(rows.deliveries, std::vector<std::string>{"r1 run.completed"});
  // Its second finish (or one after a cancel or an interrupt) is refused and writes nothing.
  EXPECT_FALSE(WriteRun(rows, finish).value());
  EXPECT_EQ(rows.Read("r1").size(), 1u);
  EXPECT_FALSE(
      WriteRun(
          rows,
          RunWrite{RunWrite::Kind::kFinish, ARun("nope", RunStatus::kFailed), {}, 0, std::nullopt})
          .value());
}

TEST(RunWritePlan, ARunWrittenOnceAtItsEndKeepsItsEventsFoldedInItsRow) {
  Rows rows;
  RunRecord run = ARun("r1", RunStatus::kCompleted);
  run.result_json = R"({"response":"ok"})";
  const std::vector<RunEvent> events = {
      Event(1, "run.started", run_events::Started("r1", "", "bot").data),
      Event(2, "text.delta", R"({"text":"ok"})"), Event(3, "run.completed", run.result_json)};
  EXPECT_TRUE(
      WriteRun(rows, RunWrite{RunWrite::Kind::kCreateEnded, run, events, 0, std::nullopt}).value());
  EXPECT_TRUE(rows.events["r1"].empty());
  // Its start and its outcome are references to what its row has.
  EXPECT_NE(rows.folded.at("r1").find("\trun.started\t@\t"), std::string::npos);
  EXPECT_NE(rows.folded.at("r1").find("\trun.completed\t=\t"), std::string::npos);
  const auto read = rows.Read("r1", 1, 10);
  ASSERT_EQ(read.size(), 2u);
  EXPECT_EQ(read.back().data, run.result_json);
  EXPECT_EQ(rows.deliveries, std::vector<std::string>{"r1 run.completed"});
}

TEST(RunWritePlan, ARunWrittenWhileItRanKeepsThoseEventsInRowsAndItsLastFoldedAtItsEnd) {
  Rows rows;
  RunRecord run = ARun("r", RunStatus::kRunning);
  const RunWrite create{RunWrite::Kind::kCreate,
                        run,
                        {Event(1, "run.started"), Event(2, "text.delta", R"({"text":"a"})")},
                        0,
                        std::nullopt};
  ASSERT_TRUE(WriteRun(rows, create).value());
  ASSERT_TRUE(WriteRun(rows, RunWrite{RunWrite::Kind::kAppend,
                                      run,
                                      {Event(3, "text.delta", R"({"text":"b"})")},
                                      0,
                                      std::nullopt})
                  .value());
  run.status = RunStatus::kCompleted;
  run.result_json = R"({"response":"abcd"})";
  const std::vector<RunEvent> last = {Event(4, "text.delta", R"({"text":"c"})"),
                                      Event(5, "text.delta", R"({"text":"d"})"),
                                      Event(6, "run.completed", run.result_json)};
  ASSERT_TRUE(
      WriteRun(rows, RunWrite{RunWrite::Kind::kFinish, run, last, 0, std::nullopt}).value());
  EXPECT_EQ(rows.events["r"].size(), 3u);  // the end wrote no row
  std::vector<std::int64_t> seqs;
  for (const auto& e : rows.Read("r")) seqs.push_back(e.seq);
  EXPECT_EQ(seqs, (std::vector<std::int64_t>{1, 2, 3, 4, 5, 6}));
  EXPECT_EQ(rows.Read("r").back().data, run.result_json);
  // Read in pages across the two: from rows into the log, and within the log.
  const auto across = rows.Read("r", 2, 2);
  ASSERT_EQ(across.size(), 2u);
  EXPECT_EQ(across.front().seq, 3);
  EXPECT_EQ(across.back().seq, 4);
  EXPECT_EQ(across.back().data, R"({"text":"c"})");
  EXPECT_EQ(rows.Read("r", 4, 1).front().seq, 5);
  EXPECT_TRUE(rows.Read("r", 6).empty());
  // The log says where it starts: rows are read only for what comes before.
  EXPECT_EQ(FirstFoldedSeq(rows.folded.at("r")), 4);
  EXPECT_EQ(FirstFoldedSeq("garbled"), std::numeric_limits<std::int64_t>::max());
}

TEST(RunWritePlan, ACancelEndsAWaitingRunAtOnceAsksARunningOnesServerAndLeavesAnEndedOne) {
  Rows rows;
  const RunEvent canceled = run_events::Failed(Error(ErrorCode::kCanceled, "canceled"));
  RunRecord paused = ARun("p", RunStatus::kRequiresAction);
  paused.paused_json = "{...}";
  rows.runs.emplace("p", paused);
  rows.events["p"] = {Event(1, "run.started"), Event(2, "run.requires_action")};
  CancelLockedRun(rows, paused, 500, canceled);
  EXPECT_EQ(paused.status, RunStatus::kCanceled);
  EXPECT_EQ(paused.ended_at_ms, 500);
  EXPECT_TRUE(paused.paused_json.empty());  // it keeps nothing of what it held
  EXPECT_EQ(rows.runs.at("p").status, RunStatus::kCanceled);
  EXPECT_EQ(rows.Read("p").back().seq, 3);  // after its last
  EXPECT_EQ(rows.deliveries, std::vector<std::string>{"p run.canceled"});

  RunRecord running = ARun("r", RunStatus::kRunning);
  rows.runs.emplace("r", running);
  CancelLockedRun(rows, running, 500, canceled);
  EXPECT_EQ(running.status, RunStatus::kRunning);
  EXPECT_TRUE(running.cancel_requested);
  EXPECT_TRUE(rows.runs.at("r").cancel_requested);
  EXPECT_TRUE(rows.events["r"].empty());

  RunRecord done = ARun("d", RunStatus::kCompleted);
  rows.runs.emplace("d", done);
  CancelLockedRun(rows, done, 500, canceled);
  EXPECT_EQ(rows.runs.at("d").status, RunStatus::kCompleted);
  EXPECT_EQ(rows.deliveries.size(), 1u);
}

TEST(RunWritePlan, PausedRunsPastTheirExpiryEndFailedAndOnlyThose) {
  Rows rows;
  RunRecord due = ARun("due", RunStatus::kRequiresAction);
  due.expires_at_ms = 1000;
  RunRecord later = ARun("later", RunStatus::kRequiresAction);
  later.expires_at_ms = 2000;
  rows.runs.emplace("due", due);
  rows.runs.emplace("later", later);
  std::vector<RunRecord> read = {due, later};
  const RunEvent expired =
      run_events::Failed(run_state::EndingError(RunEnding::kExpired, RunStatus::kRequiresAction));
  EXPECT_EQ(ExpireLockedRuns(rows, read, 1000, expired), 1);
  EXPECT_EQ(rows.runs.at("due").status, RunStatus::kFailed);
  EXPECT_EQ(rows.runs.at("due").error_json, expired.data);
  EXPECT_EQ(rows.runs.at("later").status, RunStatus::kRequiresAction);
  EXPECT_EQ(rows.deliveries, std::vector<std::string>{"due run.failed"});
}

TEST(RunWritePlan, ARunOfALapsedServerEndsInterruptedAndAnEndedOneIsLeft) {
  Rows rows;
  RunRecord running = ARun("r", RunStatus::kRunning);
  RunRecord ended = ARun("e", RunStatus::kCompleted);
  rows.runs.emplace("r", running);
  rows.runs.emplace("e", ended);
  rows.events["r"] = {Event(1, "run.started")};
  std::vector<RunRecord> read = {running, ended};
  InterruptLockedRuns(rows, read, 700);
  EXPECT_EQ(rows.runs.at("r").status, RunStatus::kFailed);
  EXPECT_NE(rows.runs.at("r").error_json.find("interrupted"), std::string::npos);
  EXPECT_EQ(rows.Read("r").back().seq, 2);
  EXPECT_EQ(rows.runs.at("e").status, RunStatus::kCompleted);
}

}  // namespace
}  // namespace agentgate
