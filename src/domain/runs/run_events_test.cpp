#include "domain/runs/run_events.hpp"

#include <gtest/gtest.h>

namespace agentgate {

TEST(RunEvents, AreOneLineOfJsonEachAndFramedAsServerSentEvents) {
  RunEvent started = run_events::Started("run_1", "", "bot");
  started.seq = 1;
  std::string frame;
  AppendSseFrame(frame, started);
  EXPECT_EQ(frame,
            "id: 1\nevent: run.started\ndata: "
            "{\"run_id\":\"run_1\",\"conversation_id\":null,\"agent_id\":\"bot\"}\n\n");
  RunEvent delta = run_events::TextDelta("two\nlines");
  EXPECT_EQ(delta.data, "{\"text\":\"two\\nlines\"}");  // a newline never splits a data: line
  EXPECT_EQ(run_events::TextDelta("a", 2).data, "{\"text\":\"a\",\"call\":2}");
  RunEvent failed = run_events::Failed(Error(ErrorCode::kTurnTimeout, "capped"));
  EXPECT_EQ(failed.type, "run.failed");
  EXPECT_EQ(failed.data, "{\"status\":504,\"code\":\"turn_timeout\",\"message\":\"capped\"}");
  EXPECT_TRUE(run_events::IsTerminal("run.completed"));
  EXPECT_FALSE(run_events::IsTerminal("text.delta"));
  // Several frames sent at once are the frames one after another, after what was there.
  delta.seq = 12345678901;
  std::string frames = ": keep-alive\n\n";
  AppendSseFrame(frames, started);
  AppendSseFrame(frames, delta);
  EXPECT_EQ(frames, ": keep-alive\n\n" + frame +
                        "id: 12345678901\nevent: text.delta\ndata: " + delta.data + "\n\n");
}

TEST(RunEvents, EachStepsDataHasItsFieldsInOrder) {
  EXPECT_EQ(run_events::Started("run_1", "conv_1", "bot").data,
            R"({"run_id":"run_1","conversation_id":"conv_1","agent_id":"bot"})");
  EXPECT_EQ(run_events::ModelStarted(1, "openai", "gpt-4o").data,
            R"({"call":1,"provider":"openai","model":"gpt-4o"})");
  EXPECT_EQ(run_events::ModelFinished(1, 120, 30, 0.0015).data,
            R"({"call":1,"input_tokens":120,"output_tokens":30,"cost_usd":0.0015})");
  EXPECT_EQ(run_events::ModelFailed(2, "upstream 503").data,
            R"({"call":2,"failure":"upstream 503"})");
  EXPECT_EQ(run_events::ToolStarted("call_0", "track").data,
            R"({"call_id":"call_0","name":"track"})");
  EXPECT_EQ(run_events::ToolFinished("call_0", "track", true, 12).data,
            R"({"call_id":"call_0","name":"track","ok":true,"ms":12})");
  EXPECT_EQ(run_events::TextRetracted(std::nullopt).data, R"({"reason":"blocked"})");
  EXPECT_EQ(run_events::TextRetracted(3).data, R"({"reason":"model_call_failed","call":3})");
  // A long text is made past the event's stack buffer, whole.
  const std::string long_text(3000, 'x');
  EXPECT_EQ(run_events::TextDelta(long_text).data, "{\"text\":\"" + long_text + "\"}");
}

TEST(RunEvents, ALastEventIdIsAnEventNumber) {
  EXPECT_EQ(ParseLastEventId("0").value(), 0);
  EXPECT_EQ(ParseLastEventId("42").value(), 42);
  for (const char* bad : {"", "-1", "4x", "x", " 1", "99999999999999999999"}) {
    auto parsed = ParseLastEventId(bad);
    ASSERT_FALSE(parsed) << bad;
    EXPECT_NE(parsed.error().message.find("Last-Event-ID"), std::string::npos);
  }
}

TEST(RunStatuses, HaveTheirWireNames) {
  EXPECT_EQ(RunStatusName(RunStatus::kQueued), "queued");
  EXPECT_EQ(ParseRunStatus("canceled"), RunStatus::kCanceled);
  EXPECT_FALSE(ParseRunStatus("paused"));
  EXPECT_TRUE(HasEnded(RunStatus::kFailed));
  EXPECT_FALSE(HasEnded(RunStatus::kRunning));
}

}  // namespace agentgate
