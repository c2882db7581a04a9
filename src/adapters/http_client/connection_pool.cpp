#include "adapters/http_client/connection_pool.hpp"

#include <boost/asio/as_tuple.hpp>
#include <boost/asio/experimental/awaitable_operators.hpp>
#include <boost/asio/experimental/concurrent_channel.hpp>
#include <boost/asio/this_coro.hpp>
#include <boost/asio/use_awaitable.hpp>

#include <sys/socket.h>

#include <algorithm>
#include <cerrno>
#include <deque>
#include <vector>

namespace agentgate::upstream {
namespace {

namespace asio = boost::asio;
constexpr auto kTuple = asio::as_tuple(asio::use_awaitable);

}  // namespace

bool Connection::ClosedWhileIdle() {
  char byte = 0;
  const ssize_t n = ::recv(Lowest().socket().native_handle(), &byte, 1, MSG_PEEK | MSG_DONTWAIT);
  return n >= 0 || (errno != EAGAIN && errno != EWOULDBLOCK);
}

// A caller waiting in line; the pool hands it a connection to reuse or a free place.
struct ConnectionPool::Waiter {
  explicit Waiter(asio::any_io_executor executor) : ready(std::move(executor), 1) {}
  asio::experimental::concurrent_channel<void(boost::system::error_code)> ready;
  bool granted = false;                    // under the pool's mutex
  std::unique_ptr<Connection> connection;  // granted with it, or null: open one
};

struct ConnectionPool::Origin {
  std::vector<std::unique_ptr<Connection>> idle;  // most recently used last
  std::size_t open = 0;                           // idle, leased and being opened
  std::deque<std::shared_ptr<Waiter>> waiters;
};

ConnectionPool::Lease::Lease(std::shared_ptr<ConnectionPool> pool, std::string origin,
                             std::unique_ptr<Connection> connection)
    : pool_(std::move(pool)), origin_(std::move(origin)), connection_(std::move(connection)) {}

ConnectionPool::Lease::~Lease() {
  if (!pool_) return;
  connection_.reset();  // closes it
  pool_->Free(origin_);
}

void ConnectionPool::Lease::KeepIdle() {
  auto pool = std::move(pool_);
  pool->Return(origin_, std::move(connection_));
}

std::shared_ptr<ConnectionPool> ConnectionPool::Create(asio::any_io_executor executor,
                                                       PoolLimits limits) {
  return std::shared_ptr<ConnectionPool>(new ConnectionPool(std::move(executor), limits));
}

ConnectionPool::ConnectionPool(asio::any_io_executor executor, PoolLimits limits)
    : executor_(executor), limits_(limits), reaper_(executor) {}

ConnectionPool::~ConnectionPool() = default;

asio::awaitable<Result<ConnectionPool::Lease>> ConnectionPool::Acquire(const std::string& key,
                                                                       Clock::time_point deadline) {
  using namespace asio::experimental::awaitable_operators;
  std::shared_ptr<Waiter> waiter;
  std::vector<std::unique_ptr<Connection>> stale;  // closed once the lock is released
  {
    std::lock_guard lock(mutex_);
    auto& slot = origins_[key];
    if (!slot) slot = std::make_unique<Origin>();
    Origin& origin = *slot;
    while (!origin.idle.empty()) {
      auto connection = std::move(origin.idle.back());
      origin.idle.pop_back();
      if (Clock::now() - connection->idle_since < limits_.max_idle_time &&
          !connection->ClosedWhileIdle()) {
        co_return Lease(shared_from_this(), key, std::move(connection));
      }
      --origin.open;
      stale.push_back(std::move(connection));
    }
    // Nobody overtakes the line: a freed place goes to the first waiter.
    if (origin.open < limits_.max_per_origin && origin.waiters.empty()) {
      ++origin.open;
      co_return Lease(shared_from_this(), key, nullptr);
    }
    waiter = std::make_shared<Waiter>(executor_);
    origin.waiters.push_back(waiter);
  }
  stale.clear();

  asio::steady_timer timer(executor_, deadline);
  auto granted = waiter->ready.async_receive(kTuple);
  auto expired = timer.async_wait(kTuple);
  co_await (std::move(granted) || std::move(expired));
  std::size_t open = 0;
  {
    std::lock_guard lock(mutex_);
    if (waiter->granted) co_return Lease(shared_from_this(), key, std::move(waiter->connection));
    Origin& origin = *origins_.at(key);
    open = origin.open;
    origin.waiters.erase(std::find(origin.waiters.begin(), origin.waiters.end(), waiter));
    ForgetIfUnused(key);
  }
  const auto state = co_await asio::this_coro::cancellation_state;
  const std::string what = "waiting for a connection to " + key + " (" + std::to_string(open) +
                           " open, the most allowed)";
  if (state.cancelled() != asio::cancellation_type::none) {
    co_return Error(ErrorCode::kUnavailable, what + ": canceled");
  }
  co_return Error(ErrorCode::kUnavailable, what + ": timed out");
}

bool ConnectionPool::Grant(Origin& origin, std::unique_ptr<Connection>& connection) {
  if (origin.waiters.empty()) return false;
  auto waiter = std::move(origin.waiters.front());
  origin.waiters.pop_front();
  waiter->granted = true;
  waiter->connection = std::move(connection);
  waiter->ready.try_send(boost::system::error_code{});
  return true;
}

void ConnectionPool::Return(const std::string& key, std::unique_ptr<Connection> connection) {
  connection->idle_since = Clock::now();
  {
    std::lock_guard lock(mutex_);
    Origin& origin = *origins_.at(key);
    if (Grant(origin, connection)) return;
    if (origin.idle.size() < limits_.max_idle_per_origin) {
      origin.idle.push_back(std::move(connection));
      ArmReaper();
      return;
    }
    --origin.open;
    ForgetIfUnused(key);
  }
  connection.reset();  // closed once the lock is released
}

void ConnectionPool::Free(const std::string& key) {
  {
    std::lock_guard lock(mutex_);
    std::unique_ptr<Connection> none;
    if (Grant(*origins_.at(key), none)) return;  // the waiter opens its own
    --origins_.at(key)->open;
    ForgetIfUnused(key);
  }
}

// Origins with nothing open and nobody waiting are dropped, so the map holds only live ones.
void ConnectionPool::ForgetIfUnused(const std::string& key) {
  const auto it = origins_.find(key);
  if (it != origins_.end() && it->second->open == 0 && it->second->waiters.empty()) {
    origins_.erase(it);
  }
}

void ConnectionPool::ArmReaper() {
  if (reaper_armed_) return;
  reaper_armed_ = true;
  const auto interval = std::clamp<std::chrono::milliseconds>(
      limits_.max_idle_time / 2, std::chrono::milliseconds(100), std::chrono::seconds(5));
  reaper_.expires_after(interval);
  reaper_.async_wait([weak = weak_from_this()](const boost::system::error_code& ec) {
    if (ec) return;
    if (auto self = weak.lock()) self->Reap();
  });
}

// Closes idle connections that are too old or that the server closed (which would otherwise sit
// in CLOSE_WAIT holding a descriptor). Armed only while some connection is idle, so an idle
// client keeps no work on the io_context.
void ConnectionPool::Reap() {
  std::vector<std::unique_ptr<Connection>> closing;
  {
    std::lock_guard lock(mutex_);
    reaper_armed_ = false;
    bool any_left = false;
    for (auto it = origins_.begin(); it != origins_.end();) {
      Origin& origin = *it->second;
      const auto first_closing =
          std::stable_partition(origin.idle.begin(), origin.idle.end(), [&](auto& connection) {
            return Clock::now() - connection->idle_since < limits_.max_idle_time &&
                   !connection->ClosedWhileIdle();
          });
      for (auto c = first_closing; c != origin.idle.end(); ++c) closing.push_back(std::move(*c));
      origin.open -= static_cast<std::size_t>(origin.idle.end() - first_closing);
      origin.idle.erase(first_closing, origin.idle.end());
      any_left = any_left || !origin.idle.empty();
      if (origin.open == 0 && origin.waiters.empty()) {
        it = origins_.erase(it);
      } else {
        ++it;
      }
    }
    if (any_left) ArmReaper();
  }
}

std::size_t ConnectionPool::IdleConnections() const {
  std::lock_guard lock(mutex_);
  std::size_t idle = 0;
  for (const auto& [key, origin] : origins_) idle += origin->idle.size();
  return idle;
}

std::size_t ConnectionPool::Origins() const {
  std::lock_guard lock(mutex_);
  return origins_.size();
}

}  // namespace agentgate::upstream
