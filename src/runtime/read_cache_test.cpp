#include "runtime/read_cache.hpp"

#include <gtest/gtest.h>

#include <thread>
#include <vector>

namespace agentgate {

TEST(ReadCache, AValueIsFreshForAWhileAfterItsReadBegan) {
  ReadCache<int> cache(1000, 100);
  const auto ticket = cache.BeginRead(5000);
  cache.Put("token", 7, ticket);
  EXPECT_EQ(cache.Get("token", 5000), 7);
  EXPECT_EQ(cache.Get("token", 5999), 7);
  EXPECT_FALSE(cache.Get("token", 6000));  // 1 s after the read began, not after the Put
  EXPECT_FALSE(cache.Get("other", 5000));
}

TEST(ReadCache, AnInvalidationIsSeenAtOnceAndRefusesReadsThatBeganBeforeIt) {
  ReadCache<int> cache(1000, 100);
  cache.Put("grant", 1, cache.BeginRead(0));
  const auto before = cache.BeginRead(10);  // a read in flight when the grant is revoked
  cache.InvalidateAll();
  EXPECT_FALSE(cache.Get("grant", 10));
  cache.Put("grant", 1, before);
  EXPECT_FALSE(cache.Get("grant", 20));  // the stale read is not kept
  cache.Put("grant", 0, cache.BeginRead(20));
  EXPECT_EQ(cache.Get("grant", 20), 0);
}

TEST(ReadCache, NeverHoldsMoreThanItsCapacity) {
  ReadCache<int> cache(1000, 160);  // 16 shards of 11
  for (int i = 0; i < 10000; ++i)
    cache.Put("key-" + std::to_string(i), i, cache.BeginRead(i / 100));
  EXPECT_LE(cache.size(), 16u * 11u);
  EXPECT_EQ(cache.Get("key-9999", 100), 9999);  // the newest survive
  // Stale entries go first: fresh ones are kept while there is room.
  ReadCache<int> roomy(1000, 16 * 100);
  for (int i = 0; i < 16 * 50; ++i) roomy.Put("old-" + std::to_string(i), i, roomy.BeginRead(0));
  for (int i = 0; i < 16 * 80; ++i) roomy.Put("new-" + std::to_string(i), i, roomy.BeginRead(5000));
  EXPECT_FALSE(roomy.Get("old-1", 5000));
  EXPECT_GT(roomy.size(), 16u * 60u);
}

TEST(ReadCache, ItsBytesStayBoundedWhateverKeysStrangersSend) {
  ReadCache<int> cache(1000, 1600);
  // Unknown ids of every length, as an unauthenticated caller can send them: a long one is never
  // kept, a short one only up to the capacity.
  for (int i = 0; i < 10000; ++i) {
    const std::string huge = std::to_string(i) + std::string(64 * 1024, 'x');
    cache.Put(huge, i, cache.BeginRead(0));
    EXPECT_FALSE(cache.Get(huge, 0));
  }
  EXPECT_EQ(cache.size(), 0u);
  EXPECT_EQ(cache.bytes(), 0u);
  const std::string longest(ReadCache<int>::kMaxKeyBytes, 'k');
  for (int i = 0; i < 10000; ++i) {
    std::string key = longest;
    key.replace(0, 5, std::to_string(10000 + i));
    cache.Put(key, i, cache.BeginRead(0));
  }
  EXPECT_LE(cache.size(), 16u * 101u);
  EXPECT_LE(cache.bytes(), 16u * 101u * (ReadCache<int>::kMaxKeyBytes + 64));
}

TEST(ReadCache, AStaleEntryIsDroppedWhenLookedUp) {
  ReadCache<int> cache(1000, 100);
  cache.Put("token", 7, cache.BeginRead(0));
  EXPECT_EQ(cache.size(), 1u);
  EXPECT_FALSE(cache.Get("token", 1000));
  EXPECT_EQ(cache.size(), 0u);
}

TEST(ReadCache, ConcurrentReadersAndAnInvalidatorAgree) {
  ReadCache<int> cache(1000, 1000);
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&cache, t] {
      for (int i = 0; i < 20000; ++i) {
        const std::string key = "k" + std::to_string((i + t) % 50);
        if (!cache.Get(key, 0)) cache.Put(key, i, cache.BeginRead(0));
      }
    });
  }
  for (int i = 0; i < 200; ++i) cache.InvalidateAll();
  for (auto& t : threads) t.join();
  EXPECT_LE(cache.size(), 50u);
}

}  // namespace agentgate
