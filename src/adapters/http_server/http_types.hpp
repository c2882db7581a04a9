#pragma once
// The server's request and response, free of Beast so handlers compile fast and test simply.

#include <boost/asio/awaitable.hpp>

#include <functional>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace agentgate {
struct SpanContext;  // runtime/tracer.hpp
}

namespace agentgate::http {

struct Request {
  std::string method;  // upper case, e.g. "POST"
  std::string path;    // as sent, without the query; ids in it are never percent-encoded
  std::string query;   // raw, without '?'
  std::vector<std::pair<std::string, std::string>> headers;  // names lower-cased
  std::string body;
  std::string request_id;
  std::string remote_address;
  std::map<std::string, std::string> path_params;  // from the route pattern's {name} segments
  // Completes when the client closes its connection while this request runs (never when it sends
  // more). A route whose work should end when its caller leaves (MCP calls) races it; others
  // finish what they started (an idempotent invoke is retried and replayed).
  std::function<boost::asio::awaitable<void>()> client_closed;
  // The server span this request runs under (docs/tracing.md), while it is handled; none when
  // tracing is off. A use case that outlives the request keeps a copy.
  const SpanContext* trace = nullptr;

  std::optional<std::string_view> Header(std::string_view lower_name) const;
  // The value of cookie `name` from the Cookie header; nullopt when absent.
  std::optional<std::string_view> Cookie(std::string_view name) const;
  // A query parameter, percent-decoded; nullopt when absent.
  std::optional<std::string> QueryParam(std::string_view name) const;
  const std::string& Param(const std::string& name) const { return path_params.at(name); }
  // Frees the body and the headers once a handler has read what it needs from them: a turn may
  // wait minutes on its model, and thousands may wait at once (bench/in_flight.py).
  void ReleasePayload();
};

// A response whose body is written as it is produced (Server-Sent Events): chunked on HTTP/1.1.
// The head goes out with the first write, and the end with the last one when the writer knows it
// is the last: a short stream costs as few sends as it has writes.
class ResponseStream {
 public:
  virtual ~ResponseStream() = default;
  // Sends `data` to the client now; false once the client is gone (stop writing then).
  virtual boost::asio::awaitable<bool> Write(std::string data) = 0;
  // Sends `data` and ends the response in the same send; nothing may be written after it.
  virtual boost::asio::awaitable<bool> WriteLast(std::string data) = 0;
};

struct Response {
  int status = 200;
  // One of a few fixed types, each a literal: a view, so that a response allocates none
  // ("application/json" is one byte past std::string's inline room).
  std::string_view content_type = "application/json";
  std::string body;
  std::vector<std::pair<std::string, std::string>> headers;
  // When set, the body is what this writes after the head (`body` is not sent); the response ends
  // when it returns.
  std::function<boost::asio::awaitable<void>(ResponseStream&)> stream{};
};

using Handler = std::function<boost::asio::awaitable<Response>(Request&)>;

}  // namespace agentgate::http
