// A server's liveness lease on a real store: renewed by each pass, another server's lapsed lease
// released by it, and releases the store refused retried until it takes them.
#include "runtime/server_lease.hpp"
#include "observability/log.hpp"
#include "store/store_backends.hpp"
#include "support/manual_clock.hpp"

#include <gtest/gtest.h>
#include <boost/asio/thread_pool.hpp>

#include <atomic>
#include <future>
#include <thread>

namespace agentgate::testing {
namespace {

class ServerLeaseTest : public ::testing::Test {
 protected:
  void SetUp() override { log::SetEnabled(false); }

  SqliteBackend backend_;
  std::unique_ptr<Store> store_ = backend_.Open();
  boost::asio::thread_pool pool_{2};
  StoreRunner runner_{*store_, pool_};
  ManualClock clock_{1'000'000};
  ServerLease lease_{
      runner_, clock_,
      ServerLease::Options{std::chrono::milliseconds(1000), std::chrono::milliseconds(3000), 2}};
};

}  // namespace

TEST_F(ServerLeaseTest, EachPassRenewsTheLeaseAndReleasesLapsedServers) {
  EXPECT_FALSE(lease_.Pass(*store_));  // the first pass starts the lease
  EXPECT_TRUE(lease_.Pass(*store_));
  // Another server whose lease lapsed, with a ticket in front of ours.
  ASSERT_TRUE(store_->RenewServerLease("srv_dead", 1'000'000, 1'000'500));
  ASSERT_TRUE(store_->EnqueueTurn("c1", 9'000'000, "srv_dead"));
  const auto ours = store_->EnqueueTurn("c1", 9'000'000, lease_.id()).value();
  EXPECT_FALSE(store_->IsTurnAtHead("c1", ours, 1'000'000, lease_.id()).value());
  clock_.Advance(std::chrono::milliseconds(1000));
  EXPECT_TRUE(lease_.Pass(*store_));
  EXPECT_TRUE(store_->IsTurnAtHead("c1", ours, 1'001'000, lease_.id()).value());
  // Ours is still there: it was renewed until now + ttl.
  EXPECT_EQ(store_->ReleaseLapsedServers(1'003'999).value(), 0);
  EXPECT_EQ(store_->ReleaseLapsedServers(1'004'001).value(), 1);
}

TEST_F(ServerLeaseTest, AReleaseTheStoreRefusedIsTriedAgainOnEachPassUntilItWorks) {
  std::atomic<int> tries{0};
  const auto flaky = [&](Store&) -> Result<void> {
    if (++tries < 3) return MakeError(ErrorCode::kUnavailable, "database or disk is full");
    return {};
  };
  lease_.Post(flaky);
  pool_.wait();  // the first try has run (and failed) on the blocking pool
  EXPECT_EQ(tries.load(), 1);
  EXPECT_EQ(lease_.PendingReleases(), 1u);
  lease_.Pass(*store_);
  EXPECT_EQ(tries.load(), 2);
  EXPECT_EQ(lease_.PendingReleases(), 1u);
  lease_.Pass(*store_);
  EXPECT_EQ(tries.load(), 3);
  EXPECT_EQ(lease_.PendingReleases(), 0u);
}

TEST_F(ServerLeaseTest, ThePendingReleasesAreBounded) {
  for (int i = 0; i < 5; ++i)
    lease_.RetryLater(
        [](Store&) -> Result<void> { return MakeError(ErrorCode::kUnavailable, "x"); });
  EXPECT_EQ(lease_.PendingReleases(), 2u);  // max_pending_releases: the oldest were dropped
}

}  // namespace agentgate::testing

namespace agentgate::testing {

TEST(LeaseStall, IsThePassesGapOnlyWhenItExceedsTheTtl) {
  const SteadyTime t0{};
  const auto ttl = std::chrono::milliseconds(3000);
  EXPECT_FALSE(LeaseStall(std::nullopt, t0, ttl));
  EXPECT_FALSE(LeaseStall(t0, t0 + std::chrono::milliseconds(3000), ttl));
  EXPECT_EQ(LeaseStall(t0, t0 + std::chrono::milliseconds(7400), ttl),
            std::chrono::milliseconds(7400));
}

TEST(LeaseRenewer, RenewsWhileTheBlockingPoolIsFullOfStuckStoreCalls) {
  log::SetEnabled(false);
  SqliteBackend backend;
  std::unique_ptr<Store> store = backend.Open();
  boost::asio::thread_pool pool{1};
  StoreRunner runner{*store, pool};
  SystemClock clock;
  ServerLease lease{
      runner, clock,
      ServerLease::Options{std::chrono::milliseconds(20), std::chrono::milliseconds(3000), 100}};
  // The pool's one thread is held by a store call that does not return until the test says so.
  std::promise<void> unblock;
  std::shared_future<void> released = unblock.get_future().share();
  runner.Post([released](Store&) { released.wait(); });
  LeaseRenewer renewer{lease, *store, clock};
  renewer.Start();
  const auto give_up = std::chrono::steady_clock::now() + std::chrono::seconds(10);
  std::int64_t first = 0;
  while ((first = lease.LastRenewedMs()) == 0 && std::chrono::steady_clock::now() < give_up)
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  EXPECT_GT(first, 0) << "the lease was not renewed while the pool was stuck";
  while (lease.LastRenewedMs() == first && std::chrono::steady_clock::now() < give_up)
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  EXPECT_GT(lease.LastRenewedMs(), first) << "renewed once, then not again";
  renewer.Stop();
  unblock.set_value();
  pool.join();
}

}  // namespace agentgate::testing
