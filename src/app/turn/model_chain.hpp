#pragma once
// Where a turn's model calls go (docs/daemon.md "Fallbacks and key pools"): the agent's model and
// its fallbacks, in order, each on its provider's key pool. The turn keeps its place in the chain:
// once it moved down, its later steps stay there (the breakers steer later turns back when the
// first model recovers). Within one step, a failed call moves as the fallback rules say
// (domain/agent/fallback_rules): the same key again, the next key, the next model or provider.

#include "domain/agent/fallback_rules.hpp"
#include "domain/governance/price.hpp"
#include "observability/metrics.hpp"
#include "runtime/provider_pool.hpp"

#include <boost/container/small_vector.hpp>

#include <chrono>
#include <string>

namespace agentgate {

struct ChainEntry {
  std::string provider;
  std::string model;
  ProviderPool* pool = nullptr;
  Price price;
};

class ModelChain {
 public:
  // A model and its fallback or two live inside the chain (a turn's chain allocates nothing).
  using Entries = boost::container::small_vector<ChainEntry, 2>;

  ModelChain(Entries entries, Metrics* metrics) : entries_(std::move(entries)), metrics_(metrics) {}

  // A new model step: the keys tried are forgotten, and an entry whose keys are all cooling down
  // or open is passed over when a later one has a usable key.
  void StartStep();

  // The next call's model and key (one is picked if the step has none yet).
  const ChainEntry& entry() const { return entries_[at_]; }
  std::size_t Key();

  // After the current key's call failed: where the next call goes, already moved to (or the
  // stop). `remaining` is the time before the turn's soft deadline.
  fallback::Decision AfterFailure(const ModelFailure& failure, std::chrono::milliseconds remaining,
                                  const RetryLimits& limits = {});

 private:
  void MoveTo(std::size_t entry);

  Entries entries_;
  Metrics* metrics_;
  std::size_t at_ = 0;  // the entry the turn is on
  std::optional<std::size_t> key_;
  KeySet tried_ = 0;       // keys of this entry tried in this step
  int failures_here_ = 0;  // the current key's failures in this step
};

}  // namespace agentgate
