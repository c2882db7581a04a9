// How the queue limits count paused and resumed runs (docs/runs.md, "Where runs execute"), at the
// level of the use cases: a paused run waits in the store and counts toward its organization's
// max_queued_per_org; a paused run decided in the background goes back to the queue and runs
// under max_concurrent as any background run.
#include "app/runs_fixture.hpp"

#include <boost/json/parse.hpp>

#include <algorithm>

namespace agentgate::testing {
namespace {

using RunLimitsTest = PausingRunsTest;

TEST_F(RunLimitsTest, APausedRunCountsTowardItsOrganizationsQueueBound) {
  std::int64_t last = 0;
  Paused(last);
  worker_.Stop();  // what is queued now stays queued
  RunUntil([] { return false; }, 50ms);
  Queued(Asking("One"));
  Queued(Asking("Two"));  // with the paused one, the bound of 3
  const Error refused = Refused(Asking("Three"));
  EXPECT_EQ(refused.code, ErrorCode::kQueueFull);
  EXPECT_NE(refused.message.find("paused"), std::string::npos) << refused.message;
  EXPECT_NE(refused.message.find("max_queued_per_org"), std::string::npos) << refused.message;
}

TEST_F(RunLimitsTest, ARunDecidedInTheBackgroundWaitsInTheQueueForRoomUnderMaxConcurrent) {
  std::int64_t last = 0;
  const RunRecord paused = Paused(last);
  // Both of the worker's places taken by runs whose model takes a while.
  model_.thinking = 300ms;
  for (const char* reply : {"Busy one.", "Busy two.", "Refunded."})
    model_.script.push_back([reply](const ModelRequest&) { return Reply(reply); });
  const RunRecord busy_one = Queued(Asking("Busy"));
  const RunRecord busy_two = Queued(Asking("Busy too"));
  ASSERT_TRUE(RunUntil([&] { return worker_.Running() == 2; }));

  const auto decided = Await(runs_.Decide(
      caller_, paused.id, ApprovalRequest{{ApprovalDecision{"call-1", true, ""}}, true}));
  ASSERT_TRUE(decided) << decided.error().message;
  const auto* answer = std::get_if<RunRecord>(&*decided);
  ASSERT_NE(answer, nullptr);
  EXPECT_EQ(answer->status, RunStatus::kQueued);
  std::size_t most = 0;
  RunUntil([&] { return (most = std::max(most, worker_.Running())), false; }, 100ms);
  EXPECT_EQ(Stored(paused.id).status, RunStatus::kQueued);  // no place for it yet

  ASSERT_TRUE(RunUntil([&] {
    most = std::max(most, worker_.Running());
    return HasEnded(Stored(paused.id).status);
  }));
  EXPECT_LE(most, 2u);
  const RunRecord ended = Stored(paused.id);
  EXPECT_EQ(ended.status, RunStatus::kCompleted);
  EXPECT_EQ(boost::json::parse(ended.result_json).at("response"), "Refunded.");
  for (const auto& id : {busy_one.id, busy_two.id})
    EXPECT_EQ(Ended(id).status, RunStatus::kCompleted) << id;
  // It went on where it paused: its next events after the pause's, its approved call run once.
  const auto types = EventTypes(paused.id);
  ASSERT_GT(types.size(), static_cast<std::size_t>(last));
  EXPECT_EQ(types[static_cast<std::size_t>(last)], "tool.started");
  EXPECT_EQ(types.back(), "run.completed");
  EXPECT_EQ(http_.sent.size(), 1u);
}

}  // namespace
}  // namespace agentgate::testing
