#pragma once
// A run's events for whoever follows it on this server (docs/runs.md, "How events reach a
// follower"): events are added as they happen or are read, and a follower on any I/O thread reads
// the events after the last it has and waits for more. A run running here has one from its start
// until its last event is in the store (its recorder adds to it; the registry keeps it with the
// rest of the run's entry); a run followed here that does not run here has one its watch fills
// from the store (RunWatches).

#include "ports/store_records.hpp"

#include <boost/asio/awaitable.hpp>
#include <boost/asio/cancellation_signal.hpp>

#include <algorithm>
#include <chrono>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

namespace agentgate {

class RunChannel {
 public:
  // A running run's channel ends with its run's part here, a pause included (a resumed run gets a
  // channel of its own); a watched run's only with the run's end.
  enum class EndsAt { kPauseOrEnd, kEnd };

  // Room for a quick run's events from the start: no growth while it runs. `starts_after`: the
  // number of the event before its first (a resumed run's last event before its pause).
  explicit RunChannel(std::size_t max_events, std::int64_t starts_after = 0,
                      EndsAt ends_at = EndsAt::kPauseOrEnd)
      : max_events_(max_events), starts_after_(starts_after), ends_at_(ends_at) {
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
  bool Ended() const;  // its terminal event was added (a pause too, for kPauseOrEnd)
  std::int64_t starts_after() const { return starts_after_; }
  // Any thread: wakes every waiter without an event (what its events come from changed). Wakes()
  // counts them, so a follower that read the count before it looked misses none.
  void Wake();
  std::uint64_t Wakes() const;
  // Returns when events numbered above `after_seq` are there, the run ended, a Wake() came after
  // the `wakes` a follower read, `wait` passed, or `stop` was emitted; `until_end`: only once the
  // run ended (or was woken, stopped or timed out): a follower gathering a quick run's events for
  // one send is not woken by each.
  boost::asio::awaitable<void> WaitBeyond(std::int64_t after_seq, std::chrono::milliseconds wait,
                                          bool until_end = false,
                                          std::optional<std::uint64_t> wakes = std::nullopt,
                                          boost::asio::cancellation_slot stop = {});

 private:
  struct Waiter;
  // Room for a quick run's events from the start, in a block under 1 KiB (served from the
  // allocator's per-thread cache).
  static constexpr std::size_t kFirstRoom = 12;
  std::vector<RunEvent>::const_iterator FirstAfter(std::int64_t after_seq) const;
  const std::size_t max_events_;
  const std::int64_t starts_after_;
  const EndsAt ends_at_;
  mutable std::mutex mutex_;
  std::vector<RunEvent> events_;
  bool ended_ = false;
  std::uint64_t wakes_ = 0;
  std::vector<std::weak_ptr<Waiter>> waiters_;
};

}  // namespace agentgate
