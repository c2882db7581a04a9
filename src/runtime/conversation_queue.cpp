#include "runtime/conversation_queue.hpp"

#include <boost/asio/as_tuple.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/this_coro.hpp>
#include <boost/asio/use_awaitable.hpp>

#include <algorithm>
#include <vector>

namespace agentgate {

namespace asio = boost::asio;

struct ConversationQueue::Waiter {
  explicit Waiter(asio::any_io_executor ex)
      : timer(std::move(ex), asio::steady_timer::time_point::max()) {}
  asio::steady_timer timer;  // woken by cancel() when granted
  bool granted = false;      // under the queue's mutex
  std::shared_ptr<TurnCancel> supersede;
};

ConversationQueue::Lease::~Lease() {
  if (queue_ != nullptr) queue_->Release(id_);
}

asio::awaitable<std::optional<ConversationQueue::Lease>> ConversationQueue::Acquire(
    std::string id, std::shared_ptr<TurnCancel> supersede) {
  auto waiter = std::make_shared<Waiter>(co_await asio::this_coro::executor);
  waiter->supersede = supersede;
  {
    std::lock_guard lock(mutex_);
    auto& entry = entries_[id];
    if (!entry.held) {
      entry.held = true;
      entry.holder = std::move(supersede);
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

std::optional<ConversationQueue::Lease> ConversationQueue::TryAcquire(
    const std::string& id, std::shared_ptr<TurnCancel> supersede) {
  std::lock_guard lock(mutex_);
  auto& entry = entries_[id];
  if (entry.held) return std::nullopt;
  entry.held = true;
  entry.holder = std::move(supersede);
  return Lease(this, id);
}

void ConversationQueue::Supersede(const std::string& id) {
  std::vector<std::shared_ptr<TurnCancel>> ahead;
  {
    std::lock_guard lock(mutex_);
    const auto it = entries_.find(id);
    if (it == entries_.end()) return;
    if (it->second.holder) ahead.push_back(it->second.holder);
    for (const auto& waiter : it->second.waiters) {
      if (waiter->supersede) ahead.push_back(waiter->supersede);
    }
  }
  for (const auto& cancel : ahead) cancel->Cancel();  // posts to each turn: never under the lock
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
  entry.holder = next->supersede;
  asio::post(next->timer.get_executor(), [next] { next->timer.cancel(); });
}

}  // namespace agentgate
