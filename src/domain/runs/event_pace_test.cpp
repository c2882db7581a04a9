#include "domain/runs/event_pace.hpp"

#include <gtest/gtest.h>

namespace agentgate {
namespace {

using std::chrono::milliseconds;

TEST(EventPace, OneEventAGapOnAverageWithABurstOfTwo) {
  EventPace pace(milliseconds(20));
  const EventPace::Time start{};
  // Pieces every millisecond for a second: about fifty events, and two more at the start.
  int events = 0;
  for (int ms = 0; ms < 1000; ++ms) {
    if (pace.Allows(start + milliseconds(ms))) {
      pace.Spend();
      ++events;
    }
  }
  EXPECT_GE(events, 50);
  EXPECT_LE(events, 53);
}

TEST(EventPace, AModelAsFastAsTheGapIsNotHeldByItsJitter) {
  EventPace pace(milliseconds(20));
  EventPace::Time at{};
  // Tokens 19.5 ms and 20.5 ms apart in turn: each goes as it arrives.
  for (int i = 0; i < 100; ++i) {
    at += std::chrono::microseconds(i % 2 == 0 ? 19500 : 20500);
    ASSERT_TRUE(pace.Allows(at)) << i;
    pace.Spend();
  }
}

}  // namespace
}  // namespace agentgate
