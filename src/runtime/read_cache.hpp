#pragma once
// The bookkeeping of a read-through cache, without I/O. A value is fresh for `fresh_for_ms` after
// the store read that produced it *began*, so a change committed anywhere is seen within that time
// of its commit. InvalidateAll() makes every value stale at once and refuses values whose read
// began before it (they may predate the change). At most `capacity` entries: a full shard first
// drops its stale entries, then everything; a stale entry is also dropped when it is looked up. A
// key longer than kMaxKeyBytes is never kept (a real id is short; a made-up one sent by anybody
// must not pin memory), so the cache's bytes are bounded too. Sharded, so concurrent lookups rarely
// share a mutex.

#include <array>
#include <atomic>
#include <cstdint>
#include <mutex>
#include <optional>
#include <string>
#include <unordered_map>

namespace agentgate {

template <class Value>
class ReadCache {
 public:
  using Ms = std::int64_t;

  // Taken before the store read; Put() needs it.
  struct Ticket {
    Ms read_started = 0;
    std::uint64_t generation = 0;
  };

  static constexpr std::size_t kMaxKeyBytes = 256;

  ReadCache(Ms fresh_for_ms, std::size_t capacity)
      : fresh_for_(fresh_for_ms), shard_capacity_(capacity / kShards + 1) {}

  std::optional<Value> Get(const std::string& key, Ms now) {
    if (key.size() > kMaxKeyBytes) return std::nullopt;
    Shard& shard = ShardOf(key);
    std::lock_guard lock(shard.mutex);
    auto it = shard.entries.find(key);
    if (it == shard.entries.end()) return std::nullopt;
    if (now - it->second.read_started >= fresh_for_) {
      shard.entries.erase(it);
      return std::nullopt;
    }
    return it->second.value;
  }

  Ticket BeginRead(Ms now) const { return Ticket{now, generation_.load()}; }

  void Put(const std::string& key, Value value, Ticket ticket) {
    if (key.size() > kMaxKeyBytes) return;
    Shard& shard = ShardOf(key);
    std::lock_guard lock(shard.mutex);
    if (ticket.generation != generation_.load()) return;  // read before an invalidation
    if (shard.entries.size() >= shard_capacity_ && !shard.entries.contains(key)) {
      std::erase_if(shard.entries, [&](const auto& kv) {
        return ticket.read_started - kv.second.read_started >= fresh_for_;
      });
      if (shard.entries.size() >= shard_capacity_) shard.entries.clear();
    }
    shard.entries.insert_or_assign(key, Entry{std::move(value), ticket.read_started});
  }

  void InvalidateAll() {
    ++generation_;  // first, so a Put racing with the clearing below is refused or cleared
    for (auto& shard : shards_) {
      std::lock_guard lock(shard.mutex);
      shard.entries.clear();
    }
  }

  std::size_t size() const {
    std::size_t n = 0;
    for (const auto& shard : shards_) {
      std::lock_guard lock(shard.mutex);
      n += shard.entries.size();
    }
    return n;
  }

  // The keys' bytes and each entry's own size: what the cache holds beyond what a value points to
  // (values are records of bounded size, written by the operator).
  std::size_t bytes() const {
    std::size_t n = 0;
    for (const auto& shard : shards_) {
      std::lock_guard lock(shard.mutex);
      for (const auto& [key, entry] : shard.entries) n += key.capacity() + sizeof(entry);
    }
    return n;
  }

 private:
  static constexpr std::size_t kShards = 16;
  struct Entry {
    Value value;
    Ms read_started;
  };
  struct Shard {
    mutable std::mutex mutex;
    std::unordered_map<std::string, Entry> entries;
  };

  Shard& ShardOf(const std::string& key) {
    return shards_[std::hash<std::string>{}(key) % kShards];
  }

  const Ms fresh_for_;
  const std::size_t shard_capacity_;
  std::atomic<std::uint64_t> generation_{0};
  std::array<Shard, kShards> shards_;
};

}  // namespace agentgate
