#pragma once
// Outbound HTTP as the use cases see it: one request, one response, a deadline, cancellable.
// The adapter is HttpClient (adapters/http_client), the one client every upstream uses.

#include "domain/error.hpp"

#include <boost/asio/awaitable.hpp>

#include <chrono>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace agentgate {

// Header fields in order, as sent.
using HeaderList = std::vector<std::pair<std::string, std::string>>;

struct HttpClientRequest {
  std::string method = "GET";
  std::string url;  // http:// or https://
  std::vector<std::pair<std::string, std::string>> headers;
  std::string body;
  std::chrono::milliseconds timeout{30000};  // whole exchange, connect included
  std::size_t max_response_bytes = 8 * 1024 * 1024;
  // Refuses (kForbidden) a host that resolves to a loopback, private, link-local or otherwise
  // non-public address, checked on the addresses it connects to (webhooks: docs/webhooks.md).
  bool public_addresses_only = false;
  // Set for a call whose answer may be an event stream (a model's streamed reply): a 2xx
  // `text/event-stream` body is handed here piece by piece as it arrives, and the response's
  // `body` stays empty. Any other answer is read whole as usual.
  std::function<void(std::string_view)> on_event_stream = nullptr;
};

struct HttpClientResponse {
  int status = 0;
  std::vector<std::pair<std::string, std::string>> headers;  // names lower-cased
  std::string body;

  std::optional<std::string_view> Header(std::string_view lower_name) const {
    for (const auto& [name, value] : headers) {
      if (name == lower_name) return std::string_view(value);
    }
    return std::nullopt;
  }
};

// Failures are ErrorCode::kUnavailable with a message saying what failed (resolve, connect,
// TLS, timeout, reset, too large); kInvalidRequest for a URL that is not http(s).
class HttpCaller {
 public:
  virtual ~HttpCaller() = default;
  virtual boost::asio::awaitable<Result<HttpClientResponse>> Send(HttpClientRequest request) = 0;
};

}  // namespace agentgate
