#pragma once
// What remote tools said (an MCP server's tool list, a remote A2A agent's card), shared by every
// turn on the server: an entry is read while it is fresh (its fresh_until_ms), and past
// `max_entries` the cache starts again. Each entry's maker bounds its size, so the cache is
// bounded in bytes too.

#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <string>

namespace agentgate {

template <class Entry>
class FreshCache {
 public:
  explicit FreshCache(std::size_t max_entries) : max_entries_(max_entries) {}

  std::shared_ptr<const Entry> Find(const std::string& key, std::int64_t now_ms) {
    std::lock_guard lock(mutex_);
    auto it = entries_.find(key);
    if (it == entries_.end() || it->second->fresh_until_ms <= now_ms) return nullptr;
    return it->second;
  }

  void Put(const std::string& key, std::shared_ptr<const Entry> entry) {
    std::lock_guard lock(mutex_);
    if (entries_.size() >= max_entries_ && !entries_.contains(key)) entries_.clear();
    entries_[key] = std::move(entry);
  }

  void Forget(const std::string& key) {
    std::lock_guard lock(mutex_);
    entries_.erase(key);
  }

  std::size_t size() {
    std::lock_guard lock(mutex_);
    return entries_.size();
  }

 private:
  const std::size_t max_entries_;
  std::mutex mutex_;
  std::map<std::string, std::shared_ptr<const Entry>> entries_;
};

}  // namespace agentgate
