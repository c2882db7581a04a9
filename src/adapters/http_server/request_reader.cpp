#include "adapters/http_server/request_reader.hpp"

#include "crypto/crypto.hpp"
#include "observability/metrics.hpp"

#include <boost/asio/steady_timer.hpp>
#include <boost/beast/http/error.hpp>
#include <boost/beast/http/read.hpp>
#include <boost/beast/http/string_body.hpp>

#include <algorithm>
#include <array>

namespace agentgate::http {
namespace {

namespace asio = boost::asio;
namespace beast = boost::beast;
namespace bhttp = boost::beast::http;

constexpr std::size_t kMaxLingerBytes = 8 * 1024 * 1024;
constexpr auto kLingerTime = std::chrono::seconds(2);

bool IsValidRequestId(std::string_view id) {
  if (id.empty() || id.size() > 128) return false;
  for (char c : id) {
    if (c <= 0x20 || c >= 0x7f) return false;
  }
  return true;
}

Request ToRequest(bhttp::request<bhttp::string_body>&& in, const std::string& remote) {
  Request r;
  r.method = std::string(in.method_string());
  const std::string_view target = in.target();
  const auto q = target.find('?');
  r.path = std::string(target.substr(0, q));
  if (q != std::string_view::npos) r.query = std::string(target.substr(q + 1));
  for (const auto& field : in) {
    std::string name(field.name_string());
    for (auto& c : name) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    r.headers.emplace_back(std::move(name), std::string(field.value()));
  }
  r.body = std::move(in.body());
  r.remote_address = remote;
  const auto id = r.Header("x-request-id");
  r.request_id = id && IsValidRequestId(*id) ? std::string(*id) : crypto::RandomHex(8);
  return r;
}

ReadRequest Otherwise(Next next) {
  ReadRequest none;
  none.otherwise = next;
  return none;
}

ReadRequest AnswerThenClose(std::string target, Error error) {
  ReadRequest early = Otherwise(Next::kDrainThenClose);
  early.target = std::move(target);
  early.answer = std::move(error);
  return early;
}

// Waits for the first bytes of the connection's next request. A fresh connection owes its
// request within the header timeout; a kept-alive one may idle for idle_timeout, and while the
// server drains only for the drain grace, counted from when draining began or, if later, from
// the end of the keep-alive answer it waits after (a slow reader of a long answer still gets
// its next request answered with Connection: close). False when the connection should close.
asio::awaitable<bool> AwaitRequestStart(Connection& c, beast::flat_buffer& buffer, bool fresh,
                                        const ServerOptions& options, const DrainState& drain,
                                        Metrics& metrics) {
  const auto now = std::chrono::steady_clock::now();
  auto until = now + (fresh ? options.header_timeout : options.idle_timeout);
  if (drain.draining) {
    until = std::min(until, std::max(drain.began.load(), now) + kDrainIdleGrace);
  }
  c.stream.expires_at(until);
  c.idle_since = fresh ? 0 : SteadyTicks(now);
  auto [ec, n] = co_await c.stream.async_read_some(buffer.prepare(4096), kAsTuple);
  c.idle_since = 0;
  if (ec == beast::error::timeout) {
    metrics.Add("agentgate_http_connections_closed_total",
                {{"reason", fresh ? "header_timeout" : "idle_timeout"}});
  }
  if (ec) co_return false;
  buffer.commit(n);
  co_return true;
}

}  // namespace

asio::awaitable<ReadRequest> ReadNextRequest(Connection& c, beast::flat_buffer& buffer,
                                             const std::string& remote, std::size_t served,
                                             const ServerOptions& options, const DrainState& drain,
                                             Metrics& metrics) {
  const auto started_waiting = std::chrono::steady_clock::now();
  if (buffer.size() == 0 &&
      !co_await AwaitRequestStart(c, buffer, served == 0, options, drain, metrics)) {
    co_return Otherwise(Next::kClose);
  }
  // The whole header within header_timeout of its first byte (of the accept, for a fresh
  // connection): a client dripping one byte at a time cannot hold a connection (slowloris).
  const auto header_from = served == 0 ? started_waiting : std::chrono::steady_clock::now();
  bhttp::request_parser<bhttp::string_body> parser;
  parser.header_limit(static_cast<std::uint32_t>(options.max_header_bytes));
  parser.body_limit(options.max_body_bytes);
  c.stream.expires_at(header_from + options.header_timeout);
  auto [header_ec, header_bytes] =
      co_await bhttp::async_read_header(c.stream, buffer, parser, kAsTuple);
  beast::error_code ec = header_ec;
  if (header_ec == beast::error::timeout) {
    metrics.Add("agentgate_http_connections_closed_total", {{"reason", "header_timeout"}});
  }
  if (!ec && !parser.is_done()) {
    c.stream.expires_after(options.read_timeout);
    auto [body_ec, body_bytes] = co_await bhttp::async_read(c.stream, buffer, parser, kAsTuple);
    ec = body_ec;
    if (body_ec == beast::error::timeout) {
      metrics.Add("agentgate_http_connections_closed_total", {{"reason", "read_timeout"}});
    }
  }
  // Errors before the request is whole are still in the shape of the route it was for.
  std::string target(parser.get().target());
  if (ec == bhttp::error::body_limit) {
    co_return AnswerThenClose(std::move(target),
                              Error{ErrorCode::kPayloadTooLarge,
                                    "request body is larger than the server's max_body_bytes"});
  }
  if (ec == bhttp::error::header_limit) {
    co_return AnswerThenClose(std::move(target),
                              Error{ErrorCode::kHeadersTooLarge, "request headers are too large"});
  }
  if (ec == bhttp::error::end_of_stream || ec == beast::error::timeout ||
      ec == asio::error::operation_aborted || ec == asio::error::connection_reset ||
      ec == asio::error::eof) {
    co_return Otherwise(Next::kClose);
  }
  if (ec) {
    co_return AnswerThenClose(std::move(target), Error{ErrorCode::kInvalidRequest,
                                                       "malformed HTTP request: " + ec.message()});
  }

  auto message = parser.release();
  ReadRequest read;
  read.version = message.version();
  // The request cap makes long-lived clients reconnect now and then, so a balancer can spread
  // them over servers again.
  read.keep_alive =
      message.keep_alive() && !drain.draining && served + 1 < options.max_requests_per_connection;
  read.request.emplace(ToRequest(std::move(message), remote));
  co_return read;
}

asio::awaitable<void> Linger(Connection& c) {
  beast::error_code ignored;
  c.stream.socket().shutdown(asio::ip::tcp::socket::shutdown_send, ignored);
  c.stream.expires_after(kLingerTime);
  std::array<char, 16384> sink{};
  std::size_t discarded = 0;
  while (discarded < kMaxLingerBytes) {
    auto [ec, n] = co_await c.stream.async_read_some(asio::buffer(sink), kAsTuple);
    if (ec) break;
    discarded += n;
  }
}

}  // namespace agentgate::http
