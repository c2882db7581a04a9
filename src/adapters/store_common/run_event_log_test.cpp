#include "adapters/store_common/run_event_log.hpp"

#include <gtest/gtest.h>

namespace agentgate {
namespace {

std::vector<RunEvent> Sample() {
  return {{1, "run.started", R"({"run_id":"run_1"})"},
          {2, "text.delta", "{\"text\":\"tab\\there\"}\n\t5\tfake\t1\tx\n"},  // any byte in data
          {3, "text.delta", ""},
          {4, "run.completed", R"({"response":"ok"})"}};
}

// The events packed one after another, as a run's recorder packs them.
std::string Pack(const std::vector<RunEvent>& events, std::string_view outcome = {}) {
  RunEventPacker packer(outcome);
  for (const auto& e : events) packer.Add(e);
  return packer.Take();
}

void ExpectSame(const std::vector<RunEvent>& got, const std::vector<RunEvent>& want) {
  ASSERT_EQ(got.size(), want.size());
  for (std::size_t i = 0; i < got.size(); ++i) {
    EXPECT_EQ(got[i].seq, want[i].seq);
    EXPECT_EQ(got[i].type, want[i].type);
    EXPECT_EQ(got[i].data, want[i].data);
  }
}

TEST(RunEventLog, EventsComeBackAsTheyWentInWhateverTheirDataHolds) {
  const auto events = Sample();
  ExpectSame(UnpackRunEvents(Pack(events), 0, 100), events);
  EXPECT_TRUE(UnpackRunEvents(Pack({}), 0, 100).empty());
}

TEST(RunEventLog, OnlyThoseAfterTheSequenceAndAtMostTheLimitAreRead) {
  const auto events = Sample();
  const std::string log = Pack(events);
  ExpectSame(UnpackRunEvents(log, 2, 100), {events[2], events[3]});
  ExpectSame(UnpackRunEvents(log, 0, 2), {events[0], events[1]});
  ExpectSame(UnpackRunEvents(log, 1, 1), {events[1]});
  EXPECT_TRUE(UnpackRunEvents(log, 4, 100).empty());
}

TEST(RunEventLog, TheTerminalEventsDataIsKeptOnceAsTheRunsOutcome) {
  const auto events = Sample();
  const std::string outcome = events[3].data;
  const std::string log = Pack(events, outcome);
  EXPECT_EQ(log.find(outcome), std::string::npos);  // only in the row's result column
  EXPECT_LT(log.size(), Pack(events).size());
  ExpectSame(UnpackRunEvents(log, 0, 100, outcome), events);
  ExpectSame(UnpackRunEvents(log, 3, 100, outcome), {events[3]});
  ExpectSame(UnpackRunEvents(Pack(events, ""), 0, 100, ""), events);  // no outcome
  EXPECT_TRUE(UnpackRunEvents("1\trun.failed\t=\tx\n", 0, 100, "{}").empty());
}

TEST(RunEventLog, TheStartsDataIsKeptOnceAsTheRowMakesItAgain) {
  const std::string started = RunStartedData("run_1", "", "bot");
  EXPECT_EQ(started, R"({"run_id":"run_1","conversation_id":null,"agent_id":"bot"})");
  std::vector<RunEvent> events = Sample();
  events[0].data = started;
  RunEventPacker packer(events[3].data, started);
  for (const auto& e : events) packer.Add(e);
  const std::string log = packer.Take();
  EXPECT_EQ(log.find("run_1"), std::string::npos);  // made again from the row's id
  EXPECT_EQ(log.rfind("1\trun.started\t@\t\n", 0), 0u);
  ExpectSame(UnpackRunEvents(log, 0, 100, events[3].data, started), events);
  // A reader that cannot make the start again reads nothing from it on.
  EXPECT_TRUE(UnpackRunEvents(log, 0, 100, events[3].data).empty());
  // Another run's start is packed whole.
  events[0].data = RunStartedData("run_2", "", "bot");
  RunEventPacker other(events[3].data, started);
  other.Add(events[0]);
  ExpectSame(UnpackRunEvents(other.Take(), 0, 100, events[3].data, started), {events[0]});
}

TEST(RunEventLog, ALogCutShortOrGarbledEndsWhereItStopsMakingSense) {
  const auto events = Sample();
  const std::string log = Pack(events);
  ExpectSame(UnpackRunEvents(log.substr(0, log.size() - 3), 0, 100),
             {events[0], events[1], events[2]});
  ExpectSame(UnpackRunEvents(Pack({events[0]}) + "x\tbad\t9\tshort\n", 0, 100), {events[0]});
  EXPECT_TRUE(UnpackRunEvents("1\trun.started\t-1\t\n", 0, 100).empty());
  EXPECT_TRUE(UnpackRunEvents("1\trun.started\t2\tabc\n", 0, 100).empty());  // no newline at 2
}

}  // namespace
}  // namespace agentgate
