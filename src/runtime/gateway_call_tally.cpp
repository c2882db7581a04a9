#include "runtime/gateway_call_tally.hpp"
#include "ports/clock.hpp"

#include "observability/log.hpp"

#include <boost/asio/as_tuple.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/this_coro.hpp>
#include <boost/asio/use_awaitable.hpp>

namespace agentgate {

namespace asio = boost::asio;

void GatewayCallTally::Count(int status) {
  const int index = (status < kFirst || status > kLast ? kLast : status) - kFirst;
  counts_[static_cast<std::size_t>(index)].fetch_add(1, std::memory_order_relaxed);
}

std::vector<std::pair<int, std::int64_t>> GatewayCallTally::Take() {
  std::vector<std::pair<int, std::int64_t>> out;
  for (std::size_t i = 0; i < counts_.size(); ++i) {
    if (counts_[i].load(std::memory_order_relaxed) == 0) continue;
    const std::int64_t n = counts_[i].exchange(0, std::memory_order_relaxed);
    if (n > 0) out.emplace_back(static_cast<int>(i) + kFirst, n);
  }
  return out;
}

void GatewayCallTally::Restore(const std::vector<std::pair<int, std::int64_t>>& calls) {
  for (const auto& [status, n] : calls) {
    counts_[static_cast<std::size_t>(status - kFirst)].fetch_add(n, std::memory_order_relaxed);
  }
}

asio::awaitable<void> RecordGatewayCalls(StoreRunner& store, GatewayCallTally& tally,
                                         const Clock& clock, std::chrono::milliseconds every) {
  asio::steady_timer timer(co_await asio::this_coro::executor);
  for (;;) {
    timer.expires_after(every);
    auto [ec] = co_await timer.async_wait(asio::as_tuple(asio::use_awaitable));
    if (ec) co_return;
    const auto calls = tally.Take();
    if (calls.empty()) continue;
    const std::int64_t day = clock.NowMs() / kMsPerDay;
    auto added = co_await store.Run([&](Store& s) { return s.AddGatewayCalls(day, calls); });
    if (!added) {
      tally.Restore(calls);
      log::Warn("gateway_calls_not_recorded", {{"error", std::string_view(added.error().message)}});
    }
  }
}

void FlushGatewayCalls(Store& store, GatewayCallTally& tally, const Clock& clock) {
  const auto calls = tally.Take();
  if (calls.empty()) return;
  if (auto added = store.AddGatewayCalls(clock.NowMs() / kMsPerDay, calls); !added) {
    log::Warn("gateway_calls_not_recorded", {{"error", std::string_view(added.error().message)}});
  }
}

}  // namespace agentgate
