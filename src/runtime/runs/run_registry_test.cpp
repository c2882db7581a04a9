#include "runtime/runs/run_registry.hpp"

#include <gtest/gtest.h>
#include <boost/asio/io_context.hpp>

namespace agentgate {
namespace {

RunRecord RunAs(std::string id, RunStatus status) {
  RunRecord run;
  run.id = std::move(id);
  run.status = status;
  return run;
}

class RunRegistryTest : public ::testing::Test {
 protected:
  boost::asio::io_context io_;
  RunRegistry registry_{10};
};

TEST_F(RunRegistryTest, ARunIsFoundFromItsEntryUntilItEndsAndOnlyBackgroundRunsTakeRoom) {
  const auto queued =
      registry_.Register("run_1", RunKind::kBackground, nullptr, io_.get_executor());
  registry_.Register("run_2", RunKind::kStreamed, nullptr, io_.get_executor());
  EXPECT_EQ(registry_.Running(), 2u);
  EXPECT_EQ(registry_.RunningBackground(), 1);
  EXPECT_EQ(registry_.Channel("run_1"), queued.channel);
  EXPECT_EQ(registry_.Channel("run_3"), nullptr);

  EXPECT_EQ(registry_.Ended("run_1"), RunKind::kBackground);
  EXPECT_EQ(registry_.Ended("run_1"), std::nullopt);  // once
  EXPECT_EQ(registry_.Ended("run_2"), RunKind::kStreamed);
  EXPECT_EQ(registry_.Running(), 0u);
  EXPECT_EQ(registry_.RunningBackground(), 0);
  EXPECT_EQ(registry_.Channel("run_1"), nullptr);
}

TEST_F(RunRegistryTest, AheadOfTheStoreItHasAnUnwrittenRunAsItStartedAndAnEndingOneAsItEnded) {
  const auto started = std::make_shared<const RunRecord>(RunAs("run_quick", RunStatus::kRunning));
  registry_.Register("run_quick", RunKind::kStreamed, started, io_.get_executor());
  registry_.Register("run_stored", RunKind::kBackground, nullptr, io_.get_executor());
  ASSERT_TRUE(registry_.Ahead("run_quick"));
  EXPECT_EQ(registry_.Ahead("run_quick")->status, RunStatus::kRunning);
  EXPECT_FALSE(registry_.Ahead("run_stored"));  // the store has it as it is

  registry_.Ending(RunAs("run_stored", RunStatus::kCompleted));
  ASSERT_TRUE(registry_.Ahead("run_stored"));
  EXPECT_EQ(registry_.Ahead("run_stored")->status, RunStatus::kCompleted);
  registry_.Ending(RunAs("run_gone", RunStatus::kCompleted));  // not here: nothing to note
  EXPECT_FALSE(registry_.Ahead("run_gone"));

  registry_.Ended("run_stored");
  EXPECT_FALSE(registry_.Ahead("run_stored"));  // its end is in the store now
}

TEST_F(RunRegistryTest, ACancelReachesARunRunningHereOnItsExecutor) {
  const auto entered = registry_.Register("run_1", RunKind::kResumed, nullptr, io_.get_executor());
  bool canceled = false;
  entered.cancel->OnCancel([&] { canceled = true; });
  EXPECT_FALSE(registry_.Cancel("run_other"));
  EXPECT_TRUE(registry_.Cancel("run_1"));
  EXPECT_FALSE(canceled);  // not on the caller's thread
  io_.run();
  EXPECT_TRUE(canceled);
}

TEST_F(RunRegistryTest, ARunEnteredTwiceKeepsItsFirstEntryAndTakesRoomOnce) {
  const auto first = registry_.Register("run_1", RunKind::kBackground, nullptr, io_.get_executor());
  registry_.Register("run_1", RunKind::kBackground, nullptr, io_.get_executor());
  EXPECT_EQ(registry_.RunningBackground(), 1);
  EXPECT_EQ(registry_.Channel("run_1"), first.channel);
}

}  // namespace
}  // namespace agentgate
