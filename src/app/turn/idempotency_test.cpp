#include "app/turn/idempotency.hpp"

#include <gtest/gtest.h>

namespace agentgate {

TEST(IdempotencyFingerprint, IsTheRouteAgentAndBody) {
  const auto a = Idempotency::Fingerprint("invoke", "bot", R"({"message":"hi"})");
  EXPECT_EQ(a.size(), 64u);
  EXPECT_EQ(a, Idempotency::Fingerprint("invoke", "bot", R"({"message":"hi"})"));
  EXPECT_NE(a, Idempotency::Fingerprint("invoke", "other", R"({"message":"hi"})"));
  EXPECT_NE(a, Idempotency::Fingerprint("invoke", "bot", R"({"message":"ho"})"));
  EXPECT_NE(a, Idempotency::Fingerprint("flow", "bot", R"({"message":"hi"})"));
}

}  // namespace agentgate
