#include "runtime/tracer.hpp"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace agentgate {
namespace {

class Recorded final : public SpanSink {
 public:
  void Submit(const tracing::SpanRecord& span) override { spans.push_back(span); }
  std::vector<tracing::SpanRecord> spans;
};

// A request's or a run's log line names its trace and span, in the hex the traceparent has.
TEST(Tracer, ALogLineOfATracedRunNamesItsTraceAndSpan) {
  Recorded sink;
  const Tracer tracer(&sink, 1.0, true);
  const Span span = tracer.Start("invoke_agent bot", tracing::SpanKind::kInternal, std::nullopt);
  std::string line;
  WithTraceFields(span.context_ptr(), [&](std::initializer_list<log::Field> ids) {
    line = log::Line(0, "warn", "run_not_finished", {{"run_id", std::string_view("run_1")}}, ids);
  });
  const std::string traceparent = span.context()->Traceparent();  // 00-<trace>-<span>-01
  EXPECT_NE(line.find("\"trace_id\":\"" + traceparent.substr(3, 32) + "\""), std::string::npos)
      << line;
  EXPECT_NE(line.find("\"span_id\":\"" + traceparent.substr(36, 16) + "\""), std::string::npos)
      << line;
  WithTraceFields(nullptr, [&](std::initializer_list<log::Field> ids) {
    line = log::Line(0, "warn", "run_not_finished", {}, ids);
  });
  EXPECT_EQ(line.find("trace_id"), std::string::npos);  // untraced: no empty ids
}

TEST(Tracer, OffRecordsNothingAndGivesNoContext) {
  const Tracer off;
  Span span = off.Start("invoke_agent bot", tracing::SpanKind::kInternal, std::nullopt);
  EXPECT_FALSE(span.recording());
  EXPECT_FALSE(span.context());
  span.Set("gen_ai.agent.id", std::string("bot"));  // harmless
}

TEST(Tracer, AChildContinuesItsParentsTraceAndEndsOnce) {
  Recorded sink;
  const Tracer tracer(&sink, 1.0, true);
  {
    Span root = tracer.Start("POST /api/agents/{agent_id}/invoke", tracing::SpanKind::kServer,
                             std::nullopt);
    ASSERT_TRUE(root.recording());
    Span child = tracer.Start("chat m1", tracing::SpanKind::kClient, root.context());
    child.Set("gen_ai.request.model", std::string("m1"));
    child.Fail("HTTP 503");
    EXPECT_EQ(child.context()->trace_id, root.context()->trace_id);
    EXPECT_NE(child.context()->span_id, root.context()->span_id);
    const std::string header = child.context()->Traceparent();
    EXPECT_EQ(header, "00-" + tracing::Hex(root.context()->trace_id) + "-" +
                          tracing::Hex(child.context()->span_id) + "-01");
    child.End();
    child.End();  // once
    ASSERT_EQ(sink.spans.size(), 1u);
  }  // the root ends as it goes
  ASSERT_EQ(sink.spans.size(), 2u);
  const auto& chat = sink.spans[0];
  const auto& server = sink.spans[1];
  EXPECT_EQ(chat.parent, server.span_id);
  EXPECT_FALSE(server.parent);
  EXPECT_EQ(chat.name, "chat m1");
  EXPECT_TRUE(chat.error);
  EXPECT_EQ(chat.attributes.at(0).key, "gen_ai.request.model");
  EXPECT_LE(server.start_unix_ns, chat.start_unix_ns);
  EXPECT_LE(chat.end_unix_ns, server.end_unix_ns);
}

TEST(Tracer, ACallersSampledFlagDecidesForItsTraceUnlessTheRatioAloneIsAsked) {
  Recorded sink;
  const auto caller =
      *tracing::ParseTraceparent("00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-00");
  const Tracer parent_based(&sink, 1.0, true);
  Span declined =
      parent_based.Start("invoke", tracing::SpanKind::kServer, SpanContext::From(caller));
  EXPECT_FALSE(declined.recording());
  ASSERT_TRUE(declined.context());  // still propagated, not sampled
  EXPECT_EQ(declined.context()->Traceparent().substr(0, 36),
            "00-4bf92f3577b34da6a3ce929d0e0e4736-");
  EXPECT_TRUE(declined.context()->Traceparent().ends_with("-00"));

  const Tracer by_ratio(&sink, 1.0, false);
  Span taken = by_ratio.Start("invoke", tracing::SpanKind::kServer, SpanContext::From(caller));
  EXPECT_TRUE(taken.recording());
  taken.End();
  ASSERT_EQ(sink.spans.size(), 1u);
  EXPECT_EQ(tracing::Hex(*sink.spans[0].parent), "00f067aa0ba902b7");

  const Tracer none(&sink, 0.0, true);
  EXPECT_FALSE(none.Start("invoke", tracing::SpanKind::kServer, std::nullopt).recording());
}

}  // namespace
}  // namespace agentgate
