#include "runtime/conversation_queue.hpp"

#include <boost/asio/as_tuple.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/this_coro.hpp>
#include <boost/asio/use_awaitable.hpp>

#include <algorithm>

namespace agentgate {

namespace asio = boost::asio;

struct ConversationQueue::Waiter {
  explicit Waiter(asio::any_io_executor ex)
      : timer(std::move(ex), asio::steady_timer::time_point::max()) {}
  asio::steady_timer timer;  // woken by cancel() when granted
  bool granted = false;      // under the queue's mutex
};

ConversationQueue::Lease::~Lease() {
  if (queue_ != nullptr) queue_->Release(id_);
}

asio::awaitable<std::optional<ConversationQueue::Lease>> ConversationQueue::Acquire(
    std::string id) {
  auto waiter = std::make_shared<Waiter>(co_await asio::this_coro::executor);
  {
    std::lock_guard lock(mutex_);
    auto& entry = entries_[id];
    if (!entry.held) {
      entry.held = true;
      co_return Lease(this, id);
    }
    entry.waiters.push_back(waiter);
  }
  co_await waiter->timer.async_wait(asio::as_tuple(asio::use_awaitable));
  std::lock_guard lock(mutex_);
  if (waiter->granted) co_return Lease(this, id);
  // Canceled while waiting: leave the queue.
  auto& waiters = entries_[id].waiters;
  waiters.erase(std::remove(waiters.begin(), waiters.end(), waiter), waiters.end());
  co_return std::nullopt;
}

std::optional<ConversationQueue::Lease> ConversationQueue::TryAcquire(const std::string& id) {
  std::lock_guard lock(mutex_);
  auto& entry = entries_[id];
  if (entry.held) return std::nullopt;
  entry.held = true;
  return Lease(this, id);
}

void ConversationQueue::Release(const std::string& id) {
  std::lock_guard lock(mutex_);
  auto it = entries_.find(id);
  if (it == entries_.end()) return;
  auto& entry = it->second;
  if (entry.waiters.empty()) {
    entries_.erase(it);
    return;
  }
  auto next = entry.waiters.front();
  entry.waiters.pop_front();
  next->granted = true;  // the lease passes straight to the next waiter
  asio::post(next->timer.get_executor(), [next] { next->timer.cancel(); });
}

}  // namespace agentgate
