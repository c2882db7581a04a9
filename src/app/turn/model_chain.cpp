#include "app/turn/model_chain.hpp"

namespace agentgate {

using std::chrono::milliseconds;

void ModelChain::StartStep() {
  key_.reset();
  tried_ = 0;
  failures_here_ = 0;
  if (at_ + 1 == entries_.size() || entries_[at_].pool->HasUsable(0)) return;
  for (std::size_t next = at_ + 1; next < entries_.size(); ++next) {
    if (entries_[next].pool->HasUsable(0)) {
      MoveTo(next);
      return;
    }
  }
}

std::size_t ModelChain::Key() {
  if (!key_) {
    key_ = entries_[at_].pool->Pick(tried_, true);
    if (!key_) {  // every key tried in this step (the rules then moved on): start the pool again
      tried_ = 0;
      key_ = entries_[at_].pool->Pick(0, true);
    }
  }
  return *key_;
}

fallback::Decision ModelChain::AfterFailure(const ModelFailure& failure, milliseconds remaining,
                                            const RetryLimits& limits) {
  ++failures_here_;
  const std::size_t key = Key();
  tried_ |= KeySet{1} << key;
  ProviderPool& pool = *entries_[at_].pool;
  fallback::Options options;
  options.another_key = pool.HasUsable(tried_);
  options.another_model = at_ + 1 < entries_.size();
  for (std::size_t next = at_ + 1; next < entries_.size(); ++next)
    options.another_provider |= entries_[next].provider != entries_[at_].provider;
  const auto decision = fallback::Decide(fallback::FailureOf(failure), failure.retry_after,
                                         failures_here_, remaining, options, limits);
  switch (decision.move) {
    case fallback::Move::kRetrySame:
    case fallback::Move::kStop:
      break;
    case fallback::Move::kNextKey:
      key_.reset();
      failures_here_ = 0;
      break;
    case fallback::Move::kNextModel:
      MoveTo(at_ + 1);
      break;
    case fallback::Move::kNextProvider: {
      std::size_t next = at_ + 1;
      while (entries_[next].provider == entries_[at_].provider) ++next;
      MoveTo(next);
      break;
    }
  }
  return decision;
}

void ModelChain::MoveTo(std::size_t entry) {
  if (metrics_ != nullptr) {
    metrics_->Add("agentgate_model_fallbacks_total", {{"from_provider", entries_[at_].provider},
                                                      {"to_provider", entries_[entry].provider}});
  }
  at_ = entry;
  key_.reset();
  tried_ = 0;
  failures_here_ = 0;
}

}  // namespace agentgate
