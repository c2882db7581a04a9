#pragma once
// This server's liveness lease in the store (SPEC §5 Outcomes). Every queue ticket, running
// Idempotency-Key claim and spend reservation the server takes names it; the lease is renewed
// every `renew_every` for `ttl`, and each pass also releases what servers whose lease lapsed held,
// so a server that died (kill -9) stops holding anything up within about ttl + renew_every.
//
// Releases this server makes itself (a turn's ticket, a claim its failed call leaves, a spend lease
// it closes) are posted to the blocking pool; one the store refused (it was down, its disk full) is
// kept and tried again on every pass until the store takes it, instead of waiting for an expiry.
// Only releases that may run twice are given here (a delete by key).

#include "ports/clock.hpp"
#include "runtime/store_runner.hpp"

#include <boost/asio/awaitable.hpp>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <deque>
#include <functional>
#include <mutex>
#include <optional>
#include <string>
#include <thread>

namespace agentgate {

class Metrics;

class ServerLease {
 public:
  struct Options {
    std::chrono::milliseconds renew_every{1000};
    std::chrono::milliseconds ttl{3000};
    std::size_t max_pending_releases = 100000;  // past it the oldest is left to its expiry
  };
  using Release = std::function<Result<void>(Store&)>;

  ServerLease(StoreRunner& store, const Clock& clock, Options options);
  ServerLease(StoreRunner& store, const Clock& clock) : ServerLease(store, clock, Options{}) {}

  // Names this server in what it holds; a fresh one per process start.
  const std::string& id() const { return id_; }

  // Runs `release` on the blocking pool now, and again on later passes while it fails.
  void Post(Release release);
  // A release whose first try failed: tried again on later passes until it works.
  void RetryLater(Release release);

  // One pass, on the blocking pool: renew the lease, release lapsed servers, retry what failed.
  // False when this server's lease had lapsed (what it held was released meanwhile).
  bool Pass(Store& store);
  // At shutdown, after the last turn: what this server holds is released now.
  void End(Store& store);

  std::size_t PendingReleases() const;
  const Options& options() const { return options_; }
  // When the store last took a renewal (wall time, ms); 0 before the first.
  std::int64_t LastRenewedMs() const { return last_renewed_ms_.load(); }

 private:
  StoreRunner& store_;
  const Clock& clock_;
  const Options options_;
  const std::string id_;
  mutable std::mutex mutex_;
  std::deque<Release> pending_;
  std::atomic<bool> held_{false};  // a pass started the lease
  std::atomic<std::int64_t> last_renewed_ms_{0};
};

// How late a pass started: its start's distance from the previous pass's, when that exceeds the
// lease's ttl (the lease may have lapsed meanwhile); nullopt for the first pass or a timely one.
std::optional<std::chrono::milliseconds> LeaseStall(std::optional<SteadyTime> previous,
                                                    SteadyTime now, std::chrono::milliseconds ttl);

// Renews a lease every renew_every on a thread of its own (a first pass at once), so neither a
// stalled I/O thread nor a blocking pool full of store calls lets it lapse; a pass that starts
// later than the ttl after the one before is logged as an error with the stall's length.
class LeaseRenewer {
 public:
  LeaseRenewer(ServerLease& lease, Store& store, const Clock& clock)
      : lease_(lease), store_(store), clock_(clock) {}
  ~LeaseRenewer() { Stop(); }
  LeaseRenewer(const LeaseRenewer&) = delete;
  LeaseRenewer& operator=(const LeaseRenewer&) = delete;

  void Start();
  // Ends the thread after its current pass; no pass starts after it returns.
  void Stop();

 private:
  void Loop();

  ServerLease& lease_;
  Store& store_;
  const Clock& clock_;
  std::mutex mutex_;
  std::condition_variable wake_;
  bool stopping_ = false;
  std::thread thread_;
};

}  // namespace agentgate
