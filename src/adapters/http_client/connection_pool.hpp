#pragma once
// Upstream connections per origin: at most `max_per_origin` open at once (callers beyond it wait
// in line until their deadline), idle ones kept for reuse and closed by a timer once they are
// too old or the server closed them. Private to the HTTP client.

#include "adapters/http_client/upstream_connection.hpp"
#include "domain/error.hpp"

#include <boost/asio/any_io_executor.hpp>
#include <boost/asio/awaitable.hpp>
#include <boost/asio/steady_timer.hpp>

#include <chrono>
#include <cstddef>
#include <memory>
#include <mutex>
#include <string>
#include <unordered_map>

namespace agentgate::upstream {

struct PoolLimits {
  std::size_t max_per_origin = 4096;
  std::size_t max_idle_per_origin = 256;
  std::chrono::seconds max_idle_time{30};
};

class ConnectionPool : public std::enable_shared_from_this<ConnectionPool> {
 public:
  using Clock = std::chrono::steady_clock;

  // A place among an origin's open connections, with an idle connection to reuse or none (then
  // the holder opens one). Ending it frees the place and closes the connection, unless KeepIdle.
  class Lease {
   public:
    Lease(std::shared_ptr<ConnectionPool> pool, std::string origin,
          std::unique_ptr<Connection> connection);
    Lease(Lease&& other) noexcept = default;
    Lease& operator=(Lease&&) = delete;
    ~Lease();

    std::unique_ptr<Connection>& connection() { return connection_; }
    void KeepIdle();

   private:
    std::shared_ptr<ConnectionPool> pool_;
    std::string origin_;
    std::unique_ptr<Connection> connection_;
  };

  static std::shared_ptr<ConnectionPool> Create(boost::asio::any_io_executor executor,
                                                PoolLimits limits);
  ~ConnectionPool();

  boost::asio::awaitable<Result<Lease>> Acquire(const std::string& origin,
                                                Clock::time_point deadline);

  std::size_t IdleConnections() const;
  std::size_t Origins() const;

 private:
  struct Waiter;
  struct Origin;

  ConnectionPool(boost::asio::any_io_executor executor, PoolLimits limits);
  void Return(const std::string& origin, std::unique_ptr<Connection> connection);
  void Free(const std::string& origin);
  bool Grant(Origin& origin, std::unique_ptr<Connection>& connection);
  void ForgetIfUnused(const std::string& key);  // with mutex_ held
  void ArmReaper();
  void Reap();

  boost::asio::any_io_executor executor_;
  PoolLimits limits_;
  mutable std::mutex mutex_;
  std::unordered_map<std::string, std::unique_ptr<Origin>> origins_;
  boost::asio::steady_timer reaper_;  // touched only under mutex_
  bool reaper_armed_ = false;
};

}  // namespace agentgate::upstream
