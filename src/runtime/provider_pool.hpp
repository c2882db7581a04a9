#pragma once
// The model providers a server calls, each with its key pool (docs/daemon.md "Fallbacks and key
// pools"): a model client per key, used in turn, each key with its circuit breaker
// (domain/agent/key_breaker). Shared by every turn on every thread of this server (the breakers
// are per server); each pool's state is under its own lock, held only to pick or to report.

#include "domain/agent/fallback_rules.hpp"
#include "domain/agent/key_breaker.hpp"
#include "observability/metrics.hpp"
#include "ports/clock.hpp"
#include "ports/model_client.hpp"

#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

namespace agentgate {

// A pool's keys a call has tried (bit k: key k). Pools hold at most kMaxKeys keys.
using KeySet = std::uint32_t;

class ProviderPool {
 public:
  static constexpr std::size_t kMaxKeys = 32;

  // `clients[k]` calls with key k (the built-in offline model and a provider without keys have
  // one client, and so one "key"). `metrics` may be null.
  ProviderPool(std::string name, std::vector<ModelClient*> clients, fallback::BreakerLimits limits,
               const Clock& clock, Metrics* metrics);

  const std::string& name() const { return name_; }
  std::size_t size() const { return keys_.size(); }
  ModelClient& client(std::size_t key) const { return *keys_[key].client; }

  // The key a call uses: the next usable one in turn that `tried` does not hold; with none
  // usable, when `any`, the first untried one anyway (a breaker skips a key only when there is
  // somewhere else to go). None: every key is tried.
  std::optional<std::size_t> Pick(KeySet tried, bool any);
  // Whether a key `tried` does not hold is usable now.
  bool HasUsable(KeySet tried) const;

  // How the call on `key` went.
  void Report(std::size_t key, const ModelResult& result, std::chrono::milliseconds throttle_wait);
  // The call on `key` ended without a verdict (its turn was stopped).
  void Abandon(std::size_t key);

 private:
  struct Key {
    ModelClient* client;
    fallback::KeyBreaker breaker;
    fallback::KeyState shown = fallback::KeyState::kClosed;  // what /metrics says
  };
  void Show(std::size_t key);  // under the lock

  const std::string name_;
  const fallback::BreakerLimits limits_;
  const Clock& clock_;
  Metrics* metrics_;
  mutable std::mutex mutex_;
  std::vector<Key> keys_;
  std::size_t next_ = 0;  // round robin
};

// Every provider's pool, by provider name.
class ProviderPools {
 public:
  void Add(std::unique_ptr<ProviderPool> pool) {
    const std::string name = pool->name();
    pools_[name] = std::move(pool);
  }
  ProviderPool* Find(const std::string& name) const {
    auto it = pools_.find(name);
    return it == pools_.end() ? nullptr : it->second.get();
  }

 private:
  std::map<std::string, std::unique_ptr<ProviderPool>> pools_;
};

}  // namespace agentgate
