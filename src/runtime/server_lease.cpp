#include "runtime/server_lease.hpp"

#include "crypto/crypto.hpp"
#include "domain/resource_ids.hpp"
#include "observability/log.hpp"

#include "observability/thread_name.hpp"

namespace agentgate {

ServerLease::ServerLease(StoreRunner& store, const Clock& clock, Options options)
    : store_(store),
      clock_(clock),
      options_(options),
      id_(ids::Make(ids::kServer, crypto::RandomHex(8))) {}

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
  last_renewed_ms_ = now;
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

std::optional<std::chrono::milliseconds> LeaseStall(std::optional<SteadyTime> previous,
                                                    SteadyTime now, std::chrono::milliseconds ttl) {
  if (!previous) return std::nullopt;
  const auto gap = std::chrono::duration_cast<std::chrono::milliseconds>(now - *previous);
  return gap > ttl ? std::optional(gap) : std::nullopt;
}

void LeaseRenewer::Start() {
  std::lock_guard lock(mutex_);
  if (thread_.joinable()) return;
  stopping_ = false;
  thread_ = std::thread([this] { Loop(); });
}

void LeaseRenewer::Stop() {
  {
    std::lock_guard lock(mutex_);
    stopping_ = true;
  }
  wake_.notify_all();
  if (thread_.joinable() && thread_.get_id() != std::this_thread::get_id()) thread_.join();
}

void LeaseRenewer::Loop() {
  NameThisThread("lease");
  std::optional<SteadyTime> previous;
  std::unique_lock lock(mutex_);
  while (!stopping_) {
    lock.unlock();
    const SteadyTime started = clock_.SteadyNow();
    if (const auto stall = LeaseStall(previous, started, lease_.options().ttl)) {
      log::Error("server_lease_stalled",
                 {{"server", std::string_view(lease_.id())},
                  {"stalled_ms", static_cast<std::int64_t>(stall->count())},
                  {"ttl_ms", static_cast<std::int64_t>(lease_.options().ttl.count())}});
    }
    previous = started;
    try {
      lease_.Pass(store_);
    } catch (const std::exception& e) {
      log::Error("server_lease_pass_failed", {{"error", std::string_view(e.what())}});
    }
    lock.lock();
    wake_.wait_for(lock, lease_.options().renew_every, [this] { return stopping_; });
  }
}

}  // namespace agentgate
