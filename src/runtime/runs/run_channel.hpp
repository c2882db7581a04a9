#pragma once
// The events of the runs this server is running, for whoever follows them here (docs/runs.md): a
// run's recorder adds each event as it happens, and a follower on any I/O thread reads the events
// after the last it has and waits for more. A run's channel lives from its start until its last
// event is in the store; followers of runs running elsewhere, or ended, read the store instead.
// The registry keeps each running run's channel with the rest of its entry (RunRegistry).

#include "ports/store_records.hpp"

#include <boost/asio/awaitable.hpp>

#include <algorithm>
#include <chrono>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

namespace agentgate {

class RunChannel {
 public:
  // Room for a quick run's events from the start: no growth while it runs.
  explicit RunChannel(std::size_t max_events) : max_events_(max_events) {
    events_.reserve(std::min<std::size_t>(max_events, kFirstRoom));
  }

  // Any thread. A run's events beyond `max_events` are dropped, but for its terminal one.
  void Add(RunEvent event);
  // The events numbered above `after_seq`, copied.
  std::vector<RunEvent> After(std::int64_t after_seq) const;
  // Calls `each` with the events numbered above `after_seq`, in order, under the channel's lock (a
  // follower frames them where they are: it must not block, nor touch the channel); how many.
  template <class Each>
  std::size_t ForEachAfter(std::int64_t after_seq, Each&& each) const {
    std::lock_guard lock(mutex_);
    const auto first = FirstAfter(after_seq);
    for (auto it = first; it != events_.end(); ++it) each(*it);
    return static_cast<std::size_t>(events_.end() - first);
  }
  bool Ended() const;  // its terminal event was added
  // Returns when events numbered above `after_seq` are there, the run ended, or `wait` passed;
  // `until_end`: only once the run ended or `wait` passed (a follower gathering a quick run's
  // events for one send is not woken by each).
  boost::asio::awaitable<void> WaitBeyond(std::int64_t after_seq, std::chrono::milliseconds wait,
                                          bool until_end = false);

 private:
  struct Waiter;
  // Room for a quick run's events from the start, in a block under 1 KiB (served from the
  // allocator's per-thread cache).
  static constexpr std::size_t kFirstRoom = 12;
  std::vector<RunEvent>::const_iterator FirstAfter(std::int64_t after_seq) const;
  const std::size_t max_events_;
  mutable std::mutex mutex_;
  std::vector<RunEvent> events_;
  bool ended_ = false;
  std::vector<std::weak_ptr<Waiter>> waiters_;
};

}  // namespace agentgate
