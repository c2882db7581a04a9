#pragma once
// The one HTTP/HTTPS client every upstream uses (LLM providers, Salesforce, agent HTTP tools):
// connection reuse per origin, a connect deadline and a total deadline per request, TLS with the
// system CA store and hostname verification, and cancellation through Asio's cancellation slots
// (a canceled turn cancels its upstream calls). Beast stays inside http_client.cpp.

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
  std::chrono::milliseconds connect_timeout{10000};
  std::size_t max_idle_per_origin = 32;
  std::chrono::seconds max_idle_time{30};
  std::string extra_ca_file;  // PEM, trusted in addition to the system store (private CAs, tests)
};

class HttpClient final : public HttpCaller {
 public:
  HttpClient(boost::asio::any_io_executor executor, HttpClientOptions options);
  ~HttpClient();

  boost::asio::awaitable<Result<HttpClientResponse>> Send(HttpClientRequest request) override;

  // Connections opened since start (reuse makes this grow slower than the request count).
  std::size_t ConnectionsOpened() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace agentgate
