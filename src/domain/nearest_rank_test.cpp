#include "domain/nearest_rank.hpp"

#include <gtest/gtest.h>

namespace agentgate {

TEST(NearestRank, IsTheSmallestValueWithTheFractionAtOrBelowIt) {
  EXPECT_EQ(NearestRankIndex(0.5, 10), 4);   // the 5th of 10
  EXPECT_EQ(NearestRankIndex(0.95, 10), 9);  // ceil(9.5): the 10th
  EXPECT_EQ(NearestRankIndex(0.95, 21), 19);
  EXPECT_EQ(NearestRankIndex(0.5, 1), 0);
  EXPECT_EQ(NearestRankIndex(0.01, 3), 0);  // never before the first
  EXPECT_EQ(NearestRankIndex(1.0, 3), 2);
}

}  // namespace agentgate
