#include "runtime/gateway_call_tally.hpp"

#include <gtest/gtest.h>

#include <thread>

namespace agentgate {

TEST(GatewayCallTally, CountsPerStatusUntilTakenFromManyThreads) {
  GatewayCallTally tally;
  EXPECT_TRUE(tally.Take().empty());
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&] {
      for (int i = 0; i < 1000; ++i) tally.Count(i % 10 == 0 ? 502 : 200);
    });
  }
  for (auto& t : threads) t.join();
  tally.Count(42);    // not an HTTP status: counted as 599, never lost
  tally.Count(1000);  // likewise
  using Calls = std::vector<std::pair<int, std::int64_t>>;
  const Calls taken = tally.Take();
  EXPECT_EQ(taken, (Calls{{200, 3600}, {502, 400}, {599, 2}}));
  EXPECT_TRUE(tally.Take().empty());  // taken means zero again
  tally.Restore(taken);               // a failed write puts them back
  tally.Count(200);
  EXPECT_EQ(tally.Take(), (Calls{{200, 3601}, {502, 400}, {599, 2}}));
}

}  // namespace agentgate
