#pragma once
// One upstream connection, plain TCP or TLS over it. Private to the HTTP client (Beast inside).

#include <boost/asio/ssl/stream.hpp>
#include <boost/beast/core/tcp_stream.hpp>

#include <chrono>
#include <memory>

namespace agentgate::upstream {

struct Connection {
  std::unique_ptr<boost::beast::tcp_stream> plain;
  std::unique_ptr<boost::asio::ssl::stream<boost::beast::tcp_stream>> tls;
  std::chrono::steady_clock::time_point idle_since;

  boost::beast::tcp_stream& Lowest() { return plain ? *plain : tls->next_layer(); }
  // The server closed it (or wrote to it unasked) while it sat idle: a peek that does not block
  // tells before anything is written on it.
  bool ClosedWhileIdle();
};

}  // namespace agentgate::upstream
