#include "runtime/runs/run_channel.hpp"

#include <boost/asio/as_tuple.hpp>
#include <boost/asio/bind_cancellation_slot.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/this_coro.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <boost/container/small_vector.hpp>

#include <algorithm>

namespace agentgate {

namespace asio = boost::asio;

// One follower's wait: its timer, cancelled on its own executor when an event it waits for
// arrives.
struct RunChannel::Waiter {
  Waiter(const asio::any_io_executor& executor, bool only_the_end)
      : timer(executor), until_end(only_the_end) {}
  asio::steady_timer timer;
  const bool until_end;
};

void RunChannel::Add(RunEvent event) {
  boost::container::small_vector<std::shared_ptr<Waiter>, 2> wake;  // a follower or two
  {
    std::lock_guard lock(mutex_);
    const bool terminal = ends_at_ == EndsAt::kPauseOrEnd ? run_events::IsTerminal(event.type)
                                                          : run_events::IsEnd(event.type);
    if (events_.size() + 1 < max_events_ || run_events::IsTerminal(event.type))
      events_.push_back(std::move(event));
    ended_ = ended_ || terminal;
    std::erase_if(waiters_, [&](const std::weak_ptr<Waiter>& weak) {
      auto waiter = weak.lock();
      if (!waiter) return true;
      if (waiter->until_end && !terminal) return false;  // it waits on
      wake.push_back(std::move(waiter));
      return true;
    });
  }
  for (auto& waiter : wake)
    asio::post(waiter->timer.get_executor(), [waiter] { waiter->timer.cancel(); });
}

void RunChannel::Wake() {
  std::vector<std::shared_ptr<Waiter>> wake;
  {
    std::lock_guard lock(mutex_);
    ++wakes_;
    for (auto& weak : waiters_) {
      if (auto waiter = weak.lock()) wake.push_back(std::move(waiter));
    }
    waiters_.clear();
  }
  for (auto& waiter : wake)
    asio::post(waiter->timer.get_executor(), [waiter] { waiter->timer.cancel(); });
}

std::uint64_t RunChannel::Wakes() const {
  std::lock_guard lock(mutex_);
  return wakes_;
}

std::vector<RunEvent>::const_iterator RunChannel::FirstAfter(std::int64_t after_seq) const {
  return std::upper_bound(events_.begin(), events_.end(), after_seq,
                          [](std::int64_t seq, const RunEvent& e) { return seq < e.seq; });
}

std::vector<RunEvent> RunChannel::After(std::int64_t after_seq) const {
  std::lock_guard lock(mutex_);
  return std::vector<RunEvent>(FirstAfter(after_seq), events_.cend());
}

bool RunChannel::Ended() const {
  std::lock_guard lock(mutex_);
  return ended_;
}

asio::awaitable<void> RunChannel::WaitBeyond(std::int64_t after_seq, std::chrono::milliseconds wait,
                                             bool until_end, std::optional<std::uint64_t> wakes,
                                             asio::cancellation_slot stop) {
  auto waiter = std::make_shared<Waiter>(co_await asio::this_coro::executor, until_end);
  {
    std::lock_guard lock(mutex_);
    if (ended_ || (wakes && *wakes != wakes_) ||
        (!until_end && !events_.empty() && events_.back().seq > after_seq))
      co_return;
    waiters_.push_back(waiter);
  }
  waiter->timer.expires_after(wait);
  co_await waiter->timer.async_wait(
      asio::bind_cancellation_slot(stop, asio::as_tuple(asio::use_awaitable)));
  // The wait's handler stays in the slot after it completes: cleared before its timer goes, so a
  // stop emitted later finds none.
  if (stop.is_connected()) stop.clear();
}

}  // namespace agentgate
