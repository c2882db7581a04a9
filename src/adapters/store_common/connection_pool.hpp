#pragma once
// A fixed set of database connections shared by the blocking pool's threads: a caller takes one,
// uses it, and gives it back when the lease ends. Used by the SQLite and PostgreSQL stores.

#include <condition_variable>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

namespace agentgate {

template <class Connection>
class ConnectionPool {
 public:
  // Opens `size` connections to `target` (a file path or a URL); throws if one cannot be opened.
  ConnectionPool(const std::string& target, std::size_t size) {
    for (std::size_t i = 0; i < size; ++i) idle_.push_back(std::make_unique<Connection>(target));
  }
  // Connections already open (the PostgreSQL store opens its own side by side).
  explicit ConnectionPool(std::vector<std::unique_ptr<Connection>> opened)
      : idle_(std::move(opened)) {}

  class Lease {
   public:
    Lease(ConnectionPool& pool, std::unique_ptr<Connection> c) : pool_(pool), c_(std::move(c)) {}
    ~Lease() { pool_.Return(std::move(c_)); }
    Lease(const Lease&) = delete;
    Lease& operator=(const Lease&) = delete;
    Connection& operator*() { return *c_; }
    Connection* operator->() { return c_.get(); }

   private:
    ConnectionPool& pool_;
    std::unique_ptr<Connection> c_;
  };

  Lease Acquire() {
    std::unique_lock lock(mutex_);
    available_.wait(lock, [&] { return !idle_.empty(); });
    auto c = std::move(idle_.back());
    idle_.pop_back();
    return Lease(*this, std::move(c));
  }

 private:
  void Return(std::unique_ptr<Connection> c) {
    {
      std::lock_guard lock(mutex_);
      idle_.push_back(std::move(c));
    }
    available_.notify_one();
  }

  std::mutex mutex_;
  std::condition_variable available_;
  std::vector<std::unique_ptr<Connection>> idle_;
};

}  // namespace agentgate
