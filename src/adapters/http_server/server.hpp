#pragma once
// The HTTP listener: accepts on one or more addresses, hands connections to its event loops in turn
// (each loop is an io_context run by exactly one thread, so a connection's coroutine needs no
// strand and its handlers never move between threads), dispatches through the Router, and drains
// on shutdown. Beast stays inside server.cpp.

#include "adapters/http_server/router.hpp"
#include "domain/error.hpp"

#include <atomic>
#include <chrono>
#include <memory>
#include <string>
#include <vector>

namespace boost::asio {
class io_context;
}

namespace agentgate {
class Metrics;
class Tracer;
}  // namespace agentgate

namespace agentgate::http {

struct ServerOptions {
  std::size_t max_body_bytes = 1048576;
  std::size_t max_header_bytes = 16384;
  std::chrono::seconds read_timeout{30};    // one request's body, and one response write
  std::chrono::seconds idle_timeout{60};    // a keep-alive connection waiting for its next request
  std::chrono::seconds header_timeout{10};  // a request's whole header, from its first byte
  std::size_t max_connections = 16384;      // then accept waits (idle keep-alives are reclaimed)
  std::size_t max_requests_per_connection = 1000;
  // A server span per request, continuing the caller's traceparent (docs/tracing.md); none: off.
  const Tracer* tracer = nullptr;
};

class Server {
 public:
  Server(boost::asio::io_context& ioc, const Router& router, Metrics& metrics,
         ServerOptions options);
  // Every loop must be run by exactly one thread; the first also runs the accept loops.
  Server(std::vector<boost::asio::io_context*> loops, const Router& router, Metrics& metrics,
         ServerOptions options);
  ~Server();

  // Binds "host:port" (port 0 picks a free one); returns the bound "host:port".
  Result<std::string> Listen(const std::string& host_port);
  // Starts the accept loops of every bound address.
  void Start();
  // Stops accepting, closes idle keep-alive connections, answers in-flight requests with
  // "Connection: close". Safe to call from any thread.
  void BeginShutdown();
  bool Draining() const;
  // Requests being handled plus connections still open.
  std::size_t ActiveRequests() const;
  std::size_t OpenConnections() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace agentgate::http
