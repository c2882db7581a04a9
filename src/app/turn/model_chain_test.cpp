#include "app/turn/model_chain.hpp"

#include <gtest/gtest.h>

namespace agentgate {
namespace {

using std::chrono::milliseconds;
using namespace std::chrono_literals;

class HandClock final : public Clock {
 public:
  std::int64_t NowMs() const override { return ms; }
  SteadyTime SteadyNow() const override { return SteadyTime(milliseconds(ms)); }
  std::int64_t ms = 1'000'000;
};

// Never called: the chain only chooses where a call goes.
class Unused final : public ModelClient {
 public:
  boost::asio::awaitable<ModelResult> Complete(const ModelRequest&, milliseconds,
                                               const ModelCallOptions&) override {
    co_return ModelFailure{};
  }
};

ModelFailure Failed(ModelFailure::Kind kind, bool account = false) {
  ModelFailure f;
  f.kind = kind;
  f.account = account;
  return f;
}

// Two providers: "a" with two keys and models a1, a2; "b" with one key and model b1.
struct Chains : ::testing::Test {
  HandClock clock;
  Unused client;
  ProviderPool a{"a", {&client, &client}, fallback::BreakerLimits{2, 1000ms}, clock, nullptr};
  ProviderPool b{"b", {&client}, fallback::BreakerLimits{2, 1000ms}, clock, nullptr};
  ModelChain chain{{{"a", "a1", &a, {}}, {"a", "a2", &a, {}}, {"b", "b1", &b, {}}}, nullptr};
  const milliseconds plenty{60000};

  // The call failed: the pool is told, as MeteredModel tells it, and the chain decides.
  fallback::Decision Fail(const ModelFailure& failure) {
    const std::size_t key = chain.Key();
    chain.entry().pool->Report(key, failure, failure.retry_after.value_or(1000ms));
    return chain.AfterFailure(failure, plenty);
  }
};

TEST_F(Chains, ATransientFailureTriesTheNextKeyThenTheNextModel) {
  chain.StartStep();
  EXPECT_EQ(chain.Key(), 0u);
  EXPECT_EQ(Fail(Failed(ModelFailure::Kind::kTransient)).move, fallback::Move::kNextKey);
  EXPECT_EQ(chain.entry().model, "a1");
  EXPECT_EQ(chain.Key(), 1u);
  EXPECT_EQ(Fail(Failed(ModelFailure::Kind::kTransient)).move, fallback::Move::kNextModel);
  EXPECT_EQ(chain.entry().model, "a2");
}

TEST_F(Chains, AnAccountRefusalSkipsTheProvidersOtherModels) {
  chain.StartStep();
  EXPECT_EQ(Fail(Failed(ModelFailure::Kind::kRefused, true)).move, fallback::Move::kNextProvider);
  EXPECT_EQ(chain.entry().model, "b1");
}

TEST_F(Chains, ABadRequestStopsWithoutFallingBack) {
  chain.StartStep();
  const auto decision = Fail(Failed(ModelFailure::Kind::kRejected));
  EXPECT_EQ(decision.move, fallback::Move::kStop);
  EXPECT_EQ(decision.stop, StopReason::kLlmError);
  EXPECT_EQ(chain.entry().model, "a1");
}

TEST_F(Chains, AKeyUnder429IsPassedOverUntilItsWaitEndsThenUsedAgain) {
  chain.StartStep();
  ModelFailure throttled = Failed(ModelFailure::Kind::kThrottled);
  throttled.retry_after = 2000ms;
  EXPECT_EQ(chain.Key(), 0u);
  EXPECT_EQ(Fail(throttled).move, fallback::Move::kNextKey);
  // The next steps use key 1 only, while key 0 cools down.
  for (int step = 0; step < 3; ++step) {
    chain.StartStep();
    EXPECT_EQ(chain.Key(), 1u);
    a.Report(1, ModelReply{}, 0ms);
  }
  clock.ms += 2000;
  chain.StartStep();
  EXPECT_EQ(chain.Key(), 0u);  // cooled down: back in turn
}

TEST_F(Chains, TheTurnStaysWhereItMovedAndEntriesWithNothingUsableArePassedOver) {
  chain.StartStep();
  Fail(Failed(ModelFailure::Kind::kTransient));
  Fail(Failed(ModelFailure::Kind::kTransient));
  EXPECT_EQ(chain.entry().model, "a2");
  chain.StartStep();
  EXPECT_EQ(chain.entry().model, "a2");  // the next step stays on the fallback

  // A new turn on a fresh chain: both of a's keys are open now (two failures each)...
  for (std::size_t key : {0u, 1u}) a.Report(key, Failed(ModelFailure::Kind::kTransient), 0ms);
  ModelChain next{{{"a", "a1", &a, {}}, {"b", "b1", &b, {}}}, nullptr};
  next.StartStep();
  EXPECT_EQ(next.entry().model, "b1");  // ...so it starts on b
}

TEST_F(Chains, OneModelWithOneKeyRetriesAsTheRetryPolicyAlwaysDid) {
  ModelChain single{{{"b", "b1", &b, {}}}, nullptr};
  single.StartStep();
  auto fail = [&] {
    const ModelFailure failure = Failed(ModelFailure::Kind::kTransient);
    b.Report(single.Key(), failure, 0ms);
    return single.AfterFailure(failure, plenty);
  };
  EXPECT_EQ(fail().move, fallback::Move::kRetrySame);
  EXPECT_EQ(fail().move, fallback::Move::kRetrySame);  // its breaker opened: nowhere else to go
  EXPECT_EQ(fail().move, fallback::Move::kStop);
}

TEST(ProviderPools, AnOpenKeyIsProbedByOneCallAfterItsCooldown) {
  HandClock clock;
  Unused client;
  ProviderPool pool{"p", {&client, &client}, fallback::BreakerLimits{1, 1000ms}, clock, nullptr};
  auto key = pool.Pick(0, false);
  ASSERT_EQ(key, 0u);
  pool.Report(0, Failed(ModelFailure::Kind::kTransient), 0ms);  // key 0 opens
  EXPECT_EQ(pool.Pick(0, false), 1u);
  EXPECT_EQ(pool.Pick(0, false), 1u);
  EXPECT_EQ(pool.Pick(KeySet{2}, false), std::nullopt);  // key 1 tried, key 0 open
  EXPECT_EQ(pool.Pick(KeySet{2}, true), 0u);             // unless nothing else is left
  pool.Abandon(0);
  clock.ms += 1000;
  EXPECT_EQ(pool.Pick(KeySet{2}, false), 0u);  // the probe
  EXPECT_FALSE(pool.HasUsable(KeySet{2}));     // one probe at a time
  pool.Report(0, ModelReply{}, 0ms);
  EXPECT_TRUE(pool.HasUsable(KeySet{2}));
}

}  // namespace
}  // namespace agentgate
