#include "runtime/provider_pool.hpp"

namespace agentgate {

namespace {

double StateValue(fallback::KeyState state) {
  switch (state) {
    case fallback::KeyState::kClosed:
      return 0;
    case fallback::KeyState::kOpen:
      return 1;
    case fallback::KeyState::kHalfOpen:
      return 2;
  }
  return 0;
}

}  // namespace

ProviderPool::ProviderPool(std::string name, std::vector<ModelClient*> clients,
                           fallback::BreakerLimits limits, const Clock& clock, Metrics* metrics)
    : name_(std::move(name)), limits_(limits), clock_(clock), metrics_(metrics) {
  for (auto* client : clients) keys_.push_back(Key{client, {}, fallback::KeyState::kClosed});
  if (keys_.size() > kMaxKeys) keys_.resize(kMaxKeys);  // the config refuses more
  if (metrics_ == nullptr) return;
  for (std::size_t k = 0; k < keys_.size(); ++k) {
    const std::string key = std::to_string(k);
    metrics_->AddGauge("agentgate_model_key_state", {{"provider", name_}, {"key", key}}, 0);
  }
}

std::optional<std::size_t> ProviderPool::Pick(KeySet tried, bool any) {
  const auto now = clock_.SteadyNow();
  std::lock_guard lock(mutex_);
  const std::size_t n = keys_.size();
  std::optional<std::size_t> untried;
  for (std::size_t i = 0; i < n; ++i) {
    const std::size_t k = (next_ + i) % n;
    if ((tried & (KeySet{1} << k)) != 0) continue;
    if (!untried) untried = k;
    if (!keys_[k].breaker.Usable(now)) continue;
    next_ = (k + 1) % n;
    keys_[k].breaker.Take(now);
    Show(k);
    return k;
  }
  if (any && untried) {
    keys_[*untried].breaker.Take(now);
    Show(*untried);
  }
  return any ? untried : std::nullopt;
}

bool ProviderPool::HasUsable(KeySet tried) const {
  const auto now = clock_.SteadyNow();
  std::lock_guard lock(mutex_);
  for (std::size_t k = 0; k < keys_.size(); ++k) {
    if ((tried & (KeySet{1} << k)) == 0 && keys_[k].breaker.Usable(now)) return true;
  }
  return false;
}

void ProviderPool::Report(std::size_t key, const ModelResult& result,
                          std::chrono::milliseconds throttle_wait) {
  const auto now = clock_.SteadyNow();
  std::lock_guard lock(mutex_);
  auto& breaker = keys_[key].breaker;
  if (std::holds_alternative<ModelReply>(result)) {
    breaker.Answered();
  } else {
    switch (fallback::FailureOf(std::get<ModelFailure>(result))) {
      case fallback::Failure::kBadRequest:
        breaker.Answered();  // the key works; the request does not
        break;
      case fallback::Failure::kRateLimited:
        breaker.Throttled(now, throttle_wait);
        if (metrics_ != nullptr) {
          metrics_->Add("agentgate_model_key_cooldowns_total",
                        {{"provider", name_}, {"key", std::to_string(key)}});
        }
        break;
      case fallback::Failure::kTransient:
      case fallback::Failure::kKeyRefused:
      case fallback::Failure::kAccountRefused:
        breaker.Failed(now, limits_);
        break;
    }
  }
  Show(key);
}

void ProviderPool::Abandon(std::size_t key) {
  std::lock_guard lock(mutex_);
  keys_[key].breaker.Abandoned();
  Show(key);
}

void ProviderPool::Show(std::size_t key) {
  Key& k = keys_[key];
  const auto state = k.breaker.State();
  if (metrics_ == nullptr || state == k.shown) return;
  const std::string index = std::to_string(key);
  metrics_->AddGauge("agentgate_model_key_state", {{"provider", name_}, {"key", index}},
                     StateValue(state) - StateValue(k.shown));
  if (state == fallback::KeyState::kOpen && k.shown == fallback::KeyState::kClosed)
    metrics_->Add("agentgate_model_key_breaker_opened_total",
                  {{"provider", name_}, {"key", index}});
  k.shown = state;
}

}  // namespace agentgate
