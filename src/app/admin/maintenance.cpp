#include "app/admin/maintenance.hpp"
#include "domain/auth/access_token.hpp"
#include "ports/clock.hpp"

#include "observability/log.hpp"

#include <boost/asio/as_tuple.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/this_coro.hpp>
#include <boost/asio/use_awaitable.hpp>

namespace agentgate {

namespace asio = boost::asio;

namespace {

// Calls `purge(store, batch)` until it deletes fewer than `batch` rows, fails, or ran
// kPurgeBatches times; returns how many it deleted.
template <class Purge>
asio::awaitable<std::int64_t> PurgeInBatches(StoreRunner& store, int batch, Purge purge) {
  std::int64_t total = 0;
  for (int i = 0; i < kPurgeBatches; ++i) {
    auto deleted = co_await store.Run([&](Store& s) { return purge(s, batch); });
    if (!deleted) break;
    total += *deleted;
    if (*deleted < batch) break;
  }
  co_return total;
}

}  // namespace

asio::awaitable<void> RunMaintenance(StoreRunner& store, const Clock& clock,
                                     std::chrono::milliseconds turn_cap, Retention retention,
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
    const std::int64_t turns_before = now - retention.turns * kMsPerDay;
    const std::int64_t turns = co_await PurgeInBatches(
        store, kTurnPurgeBatch,
        [&](Store& s, int batch) { return s.PurgeTurns(turns_before, batch); });
    const std::int64_t idle_before_day = now / kMsPerDay - retention.idle_conversations;
    const std::int64_t conversations = co_await PurgeInBatches(
        store, kConversationPurgeBatch,
        [&](Store& s, int batch) { return s.PurgeIdleConversations(idle_before_day, now, batch); });
    const std::int64_t facts_before = now - retention.memories * kMsPerDay;
    const std::int64_t facts = co_await PurgeInBatches(
        store, kMemoryPurgeBatch,
        [&](Store& s, int batch) { return s.PurgeMemories(facts_before, batch); });
    const std::int64_t runs_before = now - retention.run_hours * 3600 * 1000;
    const std::int64_t runs = co_await PurgeInBatches(
        store, kRunPurgeBatch,
        [&](Store& s, int batch) { return s.PurgeRuns(runs_before, batch); });
    auto keys = co_await store.Run(
        [&](Store& s) { return s.PurgeSigningKeys(now - oauth::kRetiredKeyVerifiesForMs); });
    if ((released && *released > 0) || (purged && *purged > 0) || (days && *days > 0) ||
        turns > 0 || conversations > 0 || facts > 0 || runs > 0 || (keys && *keys > 0)) {
      log::Info("maintenance", {{"reservations_released", released ? *released : 0},
                                {"idempotency_keys_purged", purged ? *purged : 0},
                                {"gateway_call_rows_purged", days ? *days : 0},
                                {"turns_purged", turns},
                                {"conversations_purged", conversations},
                                {"memories_purged", facts},
                                {"runs_purged", runs},
                                {"signing_keys_purged", keys ? *keys : 0}});
    }
  }
}

}  // namespace agentgate
