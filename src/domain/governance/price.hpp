#pragma once
// A model's price in USD per million tokens, from [prices."provider/model"]. Prompt caching has
// prices of its own: tokens read from the provider's cache, and (Anthropic) tokens written to it.
// A model without them is charged its plain input price for both (docs/daemon.md).

#include <optional>

namespace agentgate {

struct Price {
  double input_per_mtok = 0;
  double output_per_mtok = 0;
  std::optional<double> cached_input_per_mtok = {};
  std::optional<double> cache_write_per_mtok = {};

  double CachedInput() const { return cached_input_per_mtok.value_or(input_per_mtok); }
  double CacheWrite() const { return cache_write_per_mtok.value_or(input_per_mtok); }
};

}  // namespace agentgate
