#pragma once
// The nearest-rank percentile: the smallest value with at least a fraction `q` of the values at or
// below it (PostgreSQL's percentile_disc). Both stores report the overview's durations by it.

#include <algorithm>
#include <cmath>
#include <cstdint>

namespace agentgate {

// Its index in the `count` values sorted ascending (count > 0, 0 < q <= 1).
inline std::int64_t NearestRankIndex(double q, std::int64_t count) {
  const auto rank = static_cast<std::int64_t>(std::ceil(q * static_cast<double>(count)));
  return std::clamp<std::int64_t>(rank - 1, 0, count - 1);
}

}  // namespace agentgate
