#include "runtime/handoff_wait.hpp"

#include <gtest/gtest.h>

#include <thread>

namespace agentgate {

using std::chrono::microseconds;

TEST(SpinPolicy, AQuietThreadSleepsAtOnce) {
  const SpinPolicy policy(microseconds(500));
  EXPECT_FALSE(policy.ShouldSpin());
}

TEST(SpinPolicy, WorkThatKeepsFollowingWithinTheBudgetIsSpunFor) {
  SpinPolicy policy(microseconds(500));
  int observed = 0;
  while (!policy.ShouldSpin() && observed < 100) {
    policy.ObserveWait(microseconds(300));
    ++observed;
  }
  EXPECT_TRUE(policy.ShouldSpin());
  EXPECT_GT(observed, 10);  // one short gap does not outweigh a second of quiet
}

TEST(SpinPolicy, LongGapsStopTheSpinningAndShortOnesBringItBack) {
  SpinPolicy policy(microseconds(500));
  for (int i = 0; i < 100; ++i) policy.ObserveWait(microseconds(100));
  ASSERT_TRUE(policy.ShouldSpin());
  int long_gaps = 0;
  while (policy.ShouldSpin()) {
    policy.ObserveWait(std::chrono::milliseconds(20));
    ++long_gaps;
  }
  EXPECT_LE(long_gaps, 2);  // a slower pace is believed quickly: spinning through it is waste
  for (int i = 0; i < 100; ++i) policy.ObserveWait(microseconds(100));
  EXPECT_TRUE(policy.ShouldSpin());
}

TEST(SpinPolicy, ABudgetOfZeroNeverSpins) {
  SpinPolicy policy(microseconds(0));
  for (int i = 0; i < 100; ++i) policy.ObserveWait(microseconds(0));
  EXPECT_FALSE(policy.ShouldSpin());
}

TEST(SpinPolicy, ANegativeOrHugeGapIsBounded) {
  SpinPolicy policy(microseconds(500));
  for (int i = 0; i < 100; ++i)
    policy.ObserveWait(microseconds(-1000000));  // clocks of two threads
  EXPECT_TRUE(policy.ShouldSpin());
  policy.ObserveWait(std::chrono::hours(1000000));
  EXPECT_FALSE(policy.ShouldSpin());
  for (int i = 0; i < 100; ++i) policy.ObserveWait(microseconds(0));
  EXPECT_TRUE(policy.ShouldSpin());  // the hour counted as a second, not as forever
}

TEST(SpinBackoff, EachContendedSpinInARowSkipsTwiceAsManyChances) {
  SpinBackoff backoff;
  EXPECT_TRUE(backoff.Allows());
  auto skipped = [&] {
    int n = 0;
    while (!backoff.Allows()) ++n;
    return n;
  };
  backoff.Contended();
  EXPECT_EQ(skipped(), 1);
  backoff.Contended();
  EXPECT_EQ(skipped(), 2);
  backoff.Contended();
  EXPECT_EQ(skipped(), 4);
  for (int i = 0; i < 20; ++i) backoff.Contended();
  EXPECT_EQ(skipped(), 1024);
  backoff.Uncontended();  // a spin that had its CPU starts the count over
  backoff.Contended();
  EXPECT_EQ(skipped(), 1);
}

TEST(ContentionWatch, AThreadThatWasOffItsCpuWhileTurnsRanSawContention) {
  const RunningTurn first;
  const RunningTurn second;
  const ContentionWatch watch;
  std::this_thread::sleep_for(std::chrono::milliseconds(2));  // as if others ran in its yields
  EXPECT_TRUE(watch.Contended());
}

TEST(ContentionWatch, ALoneTurnsSpinIsNeverContended) {
  const ContentionWatch idle;
  const RunningTurn lone;
  const ContentionWatch watch;
  std::this_thread::sleep_for(std::chrono::milliseconds(2));
  EXPECT_FALSE(idle.Contended());
  EXPECT_FALSE(watch.Contended());
  {
    const RunningTurn another;  // judged when asked: a second turn now makes it count
    EXPECT_TRUE(watch.Contended());
  }
  EXPECT_FALSE(watch.Contended());
}

}  // namespace agentgate
