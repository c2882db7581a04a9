#pragma once
// Gateway calls per HTTP status since the last Take: counted on the hot path with one relaxed
// atomic increment (no lock, no store write), written to the store per UTC day by
// RecordGatewayCalls, so the operator's overview can chart them across servers.

#include "ports/clock.hpp"
#include "runtime/store_runner.hpp"

#include <array>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <utility>
#include <vector>

namespace agentgate {

class GatewayCallTally {
 public:
  void Count(int status);
  // The counts since the last Take (statuses with none left out), and zero again.
  std::vector<std::pair<int, std::int64_t>> Take();
  // Puts counts back (a store write failed; they go with the next one).
  void Restore(const std::vector<std::pair<int, std::int64_t>>& calls);

 private:
  static constexpr int kFirst = 100;
  static constexpr int kLast = 599;  // statuses outside [100, 599] count as 599
  std::array<std::atomic<std::int64_t>, kLast - kFirst + 1> counts_{};
};

// Every `every`, adds what the tally took to today's row (UTC) of gateway_calls_daily. Runs until
// its executor stops; FlushGatewayCalls writes the rest at shutdown.
boost::asio::awaitable<void> RecordGatewayCalls(StoreRunner& store, GatewayCallTally& tally,
                                                const Clock& clock,
                                                std::chrono::milliseconds every);
void FlushGatewayCalls(Store& store, GatewayCallTally& tally, const Clock& clock);

}  // namespace agentgate
