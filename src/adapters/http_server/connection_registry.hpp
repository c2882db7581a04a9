#pragma once
// The HTTP server's open connections, so a drain can close those waiting for a request and a full
// server can reclaim a few kept-alive ones. Any thread; each connection is touched on its own loop.

#include "adapters/http_server/connection.hpp"

#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <unordered_map>

namespace agentgate::http {

class ConnectionRegistry {
 public:
  // Its id, for Remove.
  std::uint64_t Add(const std::shared_ptr<Connection>& connection);
  void Remove(std::uint64_t id);
  std::size_t Size() const;
  // Closes the connections waiting for a request since before `began` (SteadyTicks); busy ones
  // close after their answer, and one that began waiting later keeps its own grace.
  void CloseIdle(std::int64_t began);
  // Closes at most `most` kept-alive connections idle since `idle_before` or earlier (a connection
  // reading a request is never touched); `closed` runs, on its loop, for each one it closes.
  void ReclaimIdle(std::int64_t idle_before, std::size_t most, std::function<void()> closed);

 private:
  mutable std::mutex mutex_;
  std::uint64_t next_id_ = 0;
  std::unordered_map<std::uint64_t, std::weak_ptr<Connection>> connections_;
};

}  // namespace agentgate::http
