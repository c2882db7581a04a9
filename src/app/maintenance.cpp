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
                                     std::chrono::milliseconds every) {
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
    if ((released && *released > 0) || (purged && *purged > 0) || (days && *days > 0)) {
      log::Info("maintenance", {{"reservations_released", released ? *released : 0},
                                {"idempotency_keys_purged", purged ? *purged : 0},
                                {"gateway_call_rows_purged", days ? *days : 0}});
    }
  }
}

}  // namespace agentgate
