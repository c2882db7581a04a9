#include "app/maintenance.hpp"
#include "ports/clock.hpp"

#include "observability/log.hpp"

#include <boost/asio/as_tuple.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/this_coro.hpp>
#include <boost/asio/use_awaitable.hpp>

namespace agentgate {

namespace asio = boost::asio;

asio::awaitable<void> RunMaintenance(StoreRunner& store, const Clock& clock,
                                     std::chrono::milliseconds turn_cap,
                                     std::int64_t turn_days_kept, std::chrono::milliseconds every) {
  asio::steady_timer timer(co_await asio::this_coro::executor);
  for (;;) {
    timer.expires_after(every);
    auto [ec] = co_await timer.async_wait(asio::as_tuple(asio::use_awaitable));
    if (ec) co_return;
    const std::int64_t now = clock.NowMs();
    // A reservation outlives its turn only when the turn died; give it the cap plus a margin.
    const std::int64_t stranded_before = now - turn_cap.count() - every.count();
    auto released =
        co_await store.Run([&](Store& s) { return s.ReleaseSpendReservations(stranded_before); });
    auto purged = co_await store.Run([&](Store& s) { return s.PurgeIdempotencyKeys(now); });
    const std::int64_t oldest_day = now / kMsPerDay - kGatewayCallDaysKept;
    auto days = co_await store.Run([&](Store& s) { return s.PurgeGatewayCalls(oldest_day); });
    const std::int64_t turns_before = now - turn_days_kept * kMsPerDay;
    std::int64_t turns = 0;
    for (int batch = 0; batch < kTurnPurgeBatches; ++batch) {
      auto deleted =
          co_await store.Run([&](Store& s) { return s.PurgeTurns(turns_before, kTurnPurgeBatch); });
      if (!deleted) break;
      turns += *deleted;
      if (*deleted < kTurnPurgeBatch) break;
    }
    if ((released && *released > 0) || (purged && *purged > 0) || (days && *days > 0) ||
        turns > 0) {
      log::Info("maintenance", {{"reservations_released", released ? *released : 0},
                                {"idempotency_keys_purged", purged ? *purged : 0},
                                {"gateway_call_rows_purged", days ? *days : 0},
                                {"turns_purged", turns}});
    }
  }
}

}  // namespace agentgate
