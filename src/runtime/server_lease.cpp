#include "runtime/server_lease.hpp"

#include "crypto/crypto.hpp"
#include "observability/log.hpp"

#include <boost/asio/as_tuple.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/this_coro.hpp>
#include <boost/asio/use_awaitable.hpp>

namespace agentgate {

namespace asio = boost::asio;

ServerLease::ServerLease(StoreRunner& store, const Clock& clock, Options options)
    : store_(store), clock_(clock), options_(options), id_("srv_" + crypto::RandomHex(8)) {}

void ServerLease::Post(Release release) {
  store_.Post([this, release = std::move(release)](Store& s) mutable {
    if (!release(s)) RetryLater(std::move(release));
  });
}

void ServerLease::RetryLater(Release release) {
  std::lock_guard lock(mutex_);
  if (pending_.size() >= options_.max_pending_releases) pending_.pop_front();
  pending_.push_back(std::move(release));
}

bool ServerLease::Pass(Store& store) {
  const std::int64_t now = clock_.NowMs();
  const auto renewed = store.RenewServerLease(id_, now, now + options_.ttl.count());
  if (!renewed) return true;  // the store is down: nothing else would work either
  // The first pass starts the lease; a later one that finds none means it lapsed while this server
  // ran (what it held was released meanwhile).
  if (!*renewed && held_.exchange(true))
    log::Warn("server_lease_renewed_after_lapse", {{"server", std::string_view(id_)}});
  held_ = true;
  if (auto released = store.ReleaseLapsedServers(now); released && *released > 0)
    log::Info("lapsed_servers_released", {{"servers", *released}});
  std::deque<Release> retry;
  {
    std::lock_guard lock(mutex_);
    retry.swap(pending_);
  }
  while (!retry.empty()) {
    if (!retry.front()(store)) break;  // still failing: keep it and the rest for the next pass
    retry.pop_front();
  }
  if (!retry.empty()) {
    std::lock_guard lock(mutex_);
    for (auto& r : pending_) retry.push_back(std::move(r));
    pending_.swap(retry);
  }
  return *renewed;
}

void ServerLease::End(Store& store) {
  (void)store.EndServerLease(id_, clock_.NowMs());
}

std::size_t ServerLease::PendingReleases() const {
  std::lock_guard lock(mutex_);
  return pending_.size();
}

asio::awaitable<void> RunServerLease(ServerLease& lease, StoreRunner& store) {
  asio::steady_timer timer(co_await asio::this_coro::executor);
  for (;;) {
    co_await store.Run([&](Store& s) { return lease.Pass(s); });
    timer.expires_after(lease.options().renew_every);
    auto [ec] = co_await timer.async_wait(asio::as_tuple(asio::use_awaitable));
    if (ec) co_return;
  }
}

}  // namespace agentgate
