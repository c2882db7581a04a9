#include "domain/runs/quick_run.hpp"

#include "domain/runs/run_event_log.hpp"

#include <gtest/gtest.h>

#include <functional>
#include <vector>

namespace agentgate {
namespace {

// A one-call turn's answer, as the turn makes it.
InvokeResult OneCall(std::string response = "All good.") {
  InvokeResult result;
  result.response = std::move(response);
  result.usage.input_tokens = 20;
  result.usage.output_tokens = 4;
  result.cost_usd = 0.1 + 0.2;  // no short decimal: its text must still read back the same
  result.model_calls = 1;
  result.models.push_back(ModelUsage{"bench", "gpt-bench", 1, 0, result.usage, result.cost_usd});
  result.turn_id = "turn_1";
  return result;
}

const std::string kStarted = RunStartedData("run_1", "", "bench");

// The run's events as its recorder has them: its start, what its model call said, its end.
std::vector<RunEvent> EventsOf(const InvokeResult& result) {
  std::vector<RunEvent> events{run_events::Started("run_1", "", "bench"),
                               run_events::ModelStarted(1, "bench", "gpt-bench"),
                               run_events::ModelFinished(1, 20, 4, result.cost_usd),
                               run_events::TextDelta(result.response, 1)};
  for (std::size_t i = 0; i < events.size(); ++i) events[i].seq = static_cast<std::int64_t>(i) + 1;
  return events;
}

bool Checks(const QuickRun& run, const std::vector<RunEvent>& events) {
  const auto between = QuickRunEvents(run);
  QuickRunCheck check(between, kStarted);
  for (const auto& e : events) check.Add(e);
  return check.Same();
}

}  // namespace

TEST(QuickRun, AOneCallAnswerIsOneAndItsFactsMakeTheSameBody) {
  const InvokeResult result = OneCall("a \"quoted\"\treply\nwith lines");
  const auto quick = QuickRunOf(result);
  ASSERT_TRUE(quick);
  EXPECT_EQ(quick->provider, "bench");
  EXPECT_EQ(quick->model, "gpt-bench");
  EXPECT_EQ(InvokeBodyText(QuickRunResult(*quick)), InvokeBodyText(result));
  EXPECT_TRUE(Checks(*quick, EventsOf(result)));
}

// Each field its facts do not make, changed alone, makes it a run kept whole.
TEST(QuickRun, AnAnswerItsFactsDoNotMakeIsNotOne) {
  const std::vector<std::function<void(InvokeResult&)>> changes = {
      [](InvokeResult& r) { r.blocked = true; },
      [](InvokeResult& r) { r.conversation_id = "conv_1"; },
      [](InvokeResult& r) { r.stop_reason = StopReason::kMaxIterations; },
      [](InvokeResult& r) { r.model_calls = 2; },
      [](InvokeResult& r) { r.models.push_back(r.models.front()); },
      [](InvokeResult& r) { r.models.clear(); },
      [](InvokeResult& r) { r.models.front().failed_calls = 1; },
      [](InvokeResult& r) { r.models.front().calls = 2; },
      [](InvokeResult& r) { r.models.front().tokens.cached_input_tokens = 5; },
      [](InvokeResult& r) { r.usage.cache_write_tokens = 5; },
      [](InvokeResult& r) { r.models.front().cost_usd = 1; },
      [](InvokeResult& r) { r.models.front().tokens.input_tokens = 19; },
      [](InvokeResult& r) { r.run_id = "run_1"; },
      [](InvokeResult& r) {
        r.pending_actions.push_back(ToolCall{"c1", "lookup", "{}"});
      },
  };
  for (std::size_t i = 0; i < changes.size(); ++i) {
    InvokeResult result = OneCall();
    changes[i](result);
    EXPECT_FALSE(QuickRunOf(result)) << "change " << i;
  }
}

// Its events must be exactly what its facts make: any other run is kept whole.
TEST(QuickRun, EventsItsFactsDoNotMakeAreNotAQuickRuns) {
  const InvokeResult result = OneCall();
  const QuickRun quick = *QuickRunOf(result);
  const std::vector<std::function<void(std::vector<RunEvent>&)>> changes = {
      [](std::vector<RunEvent>& e) { e.pop_back(); },
      [](std::vector<RunEvent>& e) { e.push_back(run_events::TextDelta("more", 1)); },
      [](std::vector<RunEvent>& e) { std::swap(e[2].data, e[3].data); },
      [](std::vector<RunEvent>& e) { e[3] = run_events::TextDelta("All good.", std::nullopt); },
      [](std::vector<RunEvent>& e) { e[0] = run_events::Started("run_2", "", "bench"); },
      [](std::vector<RunEvent>& e) { e[2].seq = 7; },
      [](std::vector<RunEvent>& e) { e[1].type = "model.finished"; },
  };
  for (std::size_t i = 0; i < changes.size(); ++i) {
    auto events = EventsOf(result);
    changes[i](events);
    for (std::size_t n = 0; n < events.size(); ++n) {
      if (events[n].seq == 0) events[n].seq = static_cast<std::int64_t>(n) + 1;
    }
    EXPECT_FALSE(Checks(quick, events)) << "change " << i;
  }
}

TEST(QuickRunLog, ItsFactsReadBackAndMakeItsEventsAndItsResult) {
  const InvokeResult result = OneCall("tabs\tand\nlines ~ all kept");
  const QuickRun quick = *QuickRunOf(result);
  const std::string log = PackQuickRun(quick);
  ASSERT_TRUE(IsQuickRunLog(log));
  const auto back = UnpackQuickRun(log);
  ASSERT_TRUE(back);
  EXPECT_EQ(back->cost_usd, result.cost_usd);  // exactly: the shortest text that reads back
  EXPECT_EQ(back->response, result.response);
  EXPECT_EQ(QuickRunResultText(log), InvokeBodyText(result));

  // Every event, as the run had them, its end the plain call's body; after an id, within a limit.
  auto had = EventsOf(result);
  had.push_back(run_events::Completed(InvokeBodyText(result)));
  had.back().seq = 5;
  const auto all = UnpackRunEvents(log, 0, 100, {}, kStarted);
  ASSERT_EQ(all.size(), had.size());
  for (std::size_t i = 0; i < had.size(); ++i) {
    EXPECT_EQ(all[i].seq, had[i].seq);
    EXPECT_EQ(all[i].type, had[i].type);
    EXPECT_EQ(all[i].data, had[i].data);
  }
  const auto later = UnpackRunEvents(log, 2, 2, InvokeBodyText(result), kStarted);
  ASSERT_EQ(later.size(), 2u);
  EXPECT_EQ(later[0].seq, 3);
  EXPECT_EQ(later[1].seq, 4);
  // Its start is made from its row: without it, nothing is made up.
  EXPECT_TRUE(UnpackRunEvents(log, 0, 100, {}, {}).empty());
}

TEST(QuickRunLog, AGarbledOneReadsAsNothing) {
  const std::string log = PackQuickRun(*QuickRunOf(OneCall()));
  for (const std::string& garbled :
       {std::string("~bench\tgpt-bench\t20\t4"), std::string("~bench\tgpt-bench\tx\t4\t0.3\tok"),
        std::string("~bench\tgpt-bench\t20\t4\t0.3z\tok"), log.substr(1)}) {
    EXPECT_FALSE(UnpackQuickRun(garbled)) << garbled;
    EXPECT_FALSE(QuickRunResultText(garbled)) << garbled;
  }
  EXPECT_TRUE(UnpackRunEvents("~bench\tgpt-bench", 0, 100, {}, kStarted).empty());
}

}  // namespace agentgate
