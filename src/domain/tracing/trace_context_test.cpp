#include "domain/tracing/trace_context.hpp"

#include <gtest/gtest.h>

namespace agentgate::tracing {
namespace {

constexpr std::string_view kExample = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01";

TEST(Traceparent, ReadsTheSpecificationsExampleAndWritesItBack) {
  const auto context = ParseTraceparent(kExample, "congo=t61rcWkgMzE");
  ASSERT_TRUE(context);
  EXPECT_EQ(Hex(context->trace_id), "4bf92f3577b34da6a3ce929d0e0e4736");
  EXPECT_EQ(Hex(context->span_id), "00f067aa0ba902b7");
  EXPECT_TRUE(context->sampled);
  EXPECT_EQ(context->tracestate, "congo=t61rcWkgMzE");
  EXPECT_EQ(FormatTraceparent(context->trace_id, context->span_id, true), kExample);
  EXPECT_EQ(FormatTraceparent(context->trace_id, context->span_id, false).substr(53), "00");
  EXPECT_FALSE(
      ParseTraceparent("00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-00")->sampled);
}

TEST(Traceparent, RefusesWhatTheSpecificationRefuses) {
  for (const char* bad :
       {"",
        "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7",       // no flags
        "00-4BF92F3577B34DA6A3CE929D0E0E4736-00f067aa0ba902b7-01",    // upper case
        "00-00000000000000000000000000000000-00f067aa0ba902b7-01",    // zero trace id
        "00-4bf92f3577b34da6a3ce929d0e0e4736-0000000000000000-01",    // zero parent id
        "ff-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01",    // version ff
        "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01-x",  // 00 has no more fields
        "00_4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01",
        "0g-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"}) {
    EXPECT_FALSE(ParseTraceparent(bad)) << bad;
  }
  // A later version is read by version 00's fields, with more after a dash.
  EXPECT_TRUE(ParseTraceparent("01-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01-later"));
  EXPECT_FALSE(ParseTraceparent("01-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01later"));
  // An oversized tracestate is dropped, the traceparent kept.
  const auto big = ParseTraceparent(kExample, std::string(600, 'a'));
  ASSERT_TRUE(big);
  EXPECT_TRUE(big->tracestate.empty());
}

TEST(Sampling, ARatioSamplesThatShareOfTraceIdsAndTheSameIdAlike) {
  TraceId id{};
  EXPECT_FALSE(SampledByRatio(id, 0.0));
  EXPECT_TRUE(SampledByRatio(id, 1.0));
  int sampled = 0;
  std::uint64_t state = 88172645463325252ull;  // xorshift: ids spread over the range
  for (int i = 0; i < 20000; ++i) {
    state ^= state << 13;
    state ^= state >> 7;
    state ^= state << 17;
    for (int b = 0; b < 8; ++b) id[8 + b] = static_cast<std::uint8_t>(state >> (8 * b));
    const bool once = SampledByRatio(id, 0.25);
    EXPECT_EQ(once, SampledByRatio(id, 0.25));
    sampled += once ? 1 : 0;
  }
  EXPECT_NEAR(sampled / 20000.0, 0.25, 0.02);
}

}  // namespace
}  // namespace agentgate::tracing
