#pragma once
// Reading one request off a connection: waits for its first bytes, bounds its header and body in
// size and time, and says what to do when it cannot be read whole (the server writes the answer).

#include "adapters/http_server/connection.hpp"
#include "adapters/http_server/http_types.hpp"
#include "adapters/http_server/server.hpp"
#include "domain/error.hpp"

#include <boost/asio/awaitable.hpp>
#include <boost/beast/core/flat_buffer.hpp>

#include <atomic>
#include <chrono>
#include <optional>
#include <string>

namespace agentgate {
class Metrics;
}

namespace agentgate::http {

// What to do with the connection after one exchange.
enum class Next { kKeepAlive, kClose, kDrainThenClose };

// How long idle keep-alive connections stay open once draining began. A load balancer may have
// written a request on a pooled connection already: it gets its answer with Connection: close
// instead of a reset, which it could not retry for a POST.
inline constexpr auto kDrainIdleGrace = std::chrono::seconds(1);

// Whether the server drains, and since when (`began` is written before `draining` is set).
struct DrainState {
  std::atomic<bool> draining{false};
  std::atomic<std::chrono::steady_clock::time_point> began{};
};

// A request read whole, or what to do with the connection instead.
struct ReadRequest {
  std::optional<Request> request;
  Next otherwise = Next::kClose;
  // Written first when the request could not be read whole (413, 431, 400), in the shape of the
  // route its target names.
  std::optional<Error> answer;
  std::string target;
  unsigned version = 11;
  bool keep_alive = false;
};

// Reads the connection's next request; `served` requests came before it on this connection.
boost::asio::awaitable<ReadRequest> ReadNextRequest(Connection& c,
                                                    boost::beast::flat_buffer& buffer,
                                                    const std::string& remote, std::size_t served,
                                                    const ServerOptions& options,
                                                    const DrainState& drain, Metrics& metrics);

// After answering a request early (413, 431, 400) its body may still be arriving; closing now
// would reset the connection before the client reads the answer. Half-closes and discards input.
boost::asio::awaitable<void> Linger(Connection& c);

}  // namespace agentgate::http
