#pragma once
// The one HTTP/HTTPS client every upstream uses (LLM providers, Salesforce, agent HTTP tools):
// connection reuse and a connection cap per origin, name resolution and connect under a deadline
// (c-ares), a total deadline per request, TLS with the system CA store and hostname verification,
// and cancellation through Asio's cancellation slots (a canceled turn cancels its upstream calls,
// its lookup and its wait for a connection). Beast stays inside adapters/http_client.

#include "ports/http_caller.hpp"

#include <boost/asio/any_io_executor.hpp>
#include <boost/asio/awaitable.hpp>

#include <chrono>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace agentgate {

struct HttpClientOptions {
  std::chrono::milliseconds connect_timeout{10000};  // name resolution and connect
  // Open connections per origin (scheme, host, port); callers beyond it wait for one, until
  // their deadline. Idle ones are kept for reuse, and closed once max_idle_time old.
  std::size_t max_connections_per_origin = 4096;
  std::size_t max_idle_per_origin = 256;
  std::chrono::seconds max_idle_time{30};
  std::string extra_ca_file;  // PEM, trusted in addition to the system store (private CAs, tests)
  std::string dns_servers;    // "ip:port,…" instead of /etc/resolv.conf's (tests)
};

class HttpClient final : public HttpCaller {
 public:
  HttpClient(boost::asio::any_io_executor executor, HttpClientOptions options);
  // One connection pool per event loop (each run by one thread): a request uses the pool of the
  // loop it is sent from, and each pool holds its share of the per-origin limits.
  HttpClient(std::vector<boost::asio::any_io_executor> loops, HttpClientOptions options);
  ~HttpClient();

  boost::asio::awaitable<Result<HttpClientResponse>> Send(HttpClientRequest request) override;

  // Connections opened since start (reuse makes this grow slower than the request count).
  std::size_t ConnectionsOpened() const;
  std::size_t IdleConnections() const;
  // Origins with a connection open or a caller waiting: the pool forgets the others.
  std::size_t OriginsTracked() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace agentgate
