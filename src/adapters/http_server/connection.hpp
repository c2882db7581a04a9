#pragma once
// One client connection of the HTTP server: its stream, and what the server's connection registry
// reads of it from other threads (server.cpp, connection_registry, chunk_writer).

#include <boost/asio/as_tuple.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <boost/beast/core/tcp_stream.hpp>

#include <atomic>
#include <chrono>
#include <cstdint>

namespace agentgate::http {

inline constexpr auto kAsTuple = boost::asio::as_tuple(boost::asio::use_awaitable);

struct Connection {
  explicit Connection(boost::asio::ip::tcp::socket socket) : stream(std::move(socket)) {}
  boost::beast::tcp_stream stream;
  bool busy = false;  // touched only on the connection's loop
  // Since when it has been kept alive waiting for its next request (0: it is not), in
  // SteadyTicks; one idle for long may be reclaimed.
  std::atomic<std::int64_t> idle_since{0};
};

inline std::int64_t SteadyTicks(std::chrono::steady_clock::time_point t) {
  return t.time_since_epoch().count();
}

}  // namespace agentgate::http
