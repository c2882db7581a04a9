#include "adapters/http_client/http_client.hpp"

#include "adapters/http_client/await_readable.hpp"
#include "adapters/http_client/connection_pool.hpp"
#include "adapters/http_client/dns_resolver.hpp"
#include "adapters/http_client/request_head.hpp"
#include "domain/runs/webhook_rules.hpp"

#include <boost/asio/as_tuple.hpp>
#include <boost/asio/experimental/awaitable_operators.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/ssl/context.hpp>
#include <boost/asio/ssl/host_name_verification.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/this_coro.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <boost/asio/write.hpp>
#include <boost/beast/core/flat_buffer.hpp>
#include <boost/beast/core/tcp_stream.hpp>
#include <boost/beast/http/read.hpp>
#include <boost/beast/http/string_body.hpp>
#include <boost/beast/ssl/ssl_stream.hpp>
#include <boost/url/parse.hpp>

#include <openssl/ssl.h>

#include <algorithm>
#include <array>
#include <charconv>
#include <functional>
#include <tuple>
#include <type_traits>

namespace agentgate {
namespace {

namespace asio = boost::asio;
namespace beast = boost::beast;
namespace bhttp = boost::beast::http;
namespace ssl = boost::asio::ssl;
using upstream::Connection;
using Clock = std::chrono::steady_clock;
constexpr auto kTuple = asio::as_tuple(asio::use_awaitable);

struct Origin {
  bool tls = false;
  std::string host;
  std::string port;
  std::string target;  // path and query
  std::string key;     // scheme://host:port
  bool default_port = true;
};

Result<Origin> ParseUrl(std::string_view url) {
  auto parsed = boost::urls::parse_absolute_uri(url);
  if (!parsed) return Error(ErrorCode::kInvalidRequest, "not an absolute URL");
  Origin o;
  const auto scheme = parsed->scheme();
  if (scheme == "https") {
    o.tls = true;
  } else if (scheme != "http") {
    return Error(ErrorCode::kInvalidRequest, "only http and https URLs can be called");
  }
  o.host = std::string(parsed->encoded_host());
  if (o.host.empty()) return Error(ErrorCode::kInvalidRequest, "the URL has no host");
  if (o.host.front() == '[' && o.host.back() == ']') o.host = o.host.substr(1, o.host.size() - 2);
  o.default_port = !parsed->has_port();
  o.port = parsed->has_port() ? std::string(parsed->port()) : (o.tls ? "443" : "80");
  o.target = std::string(parsed->encoded_path());
  if (o.target.empty()) o.target = "/";
  if (parsed->has_query()) o.target += "?" + std::string(parsed->encoded_query());
  o.key = std::string(scheme) + "://" + o.host + ":" + o.port;
  return o;
}

// Methods that may be sent twice with the effect of once. Writes (POST, PATCH, PUT, DELETE) are
// never resent automatically: a second validation rule is worse than an error (SPEC §7).
bool SafeToResend(bhttp::verb verb) {
  return verb == bhttp::verb::get || verb == bhttp::verb::head || verb == bhttp::verb::options;
}

Error Unavailable(std::string what, const boost::system::error_code& ec) {
  if (ec == beast::error::timeout) return Error(ErrorCode::kUnavailable, what + ": timed out");
  if (ec == asio::error::operation_aborted)
    return Error(ErrorCode::kUnavailable, what + ": canceled");
  return Error(ErrorCode::kUnavailable, what + ": " + ec.message());
}

}  // namespace

namespace {

// A request ready to send: its origin, its head and body as they go out, and what bounds its
// exchange.
struct Prepared {
  Origin origin;
  bhttp::verb verb = bhttp::verb::get;
  std::string head;
  std::string body;
  Clock::time_point deadline;
  std::size_t max_response_bytes = 0;
  bool public_addresses_only = false;
  std::function<void(std::string_view)> on_event_stream;
  std::string pool_key;  // the origin's, apart for connections checked to be public
};

Result<Prepared> Prepare(HttpClientRequest&& req) {
  auto origin = ParseUrl(req.url);
  if (!origin) return origin.error();
  const auto verb = bhttp::string_to_verb(req.method);
  if (verb == bhttp::verb::unknown)
    return Error(ErrorCode::kInvalidRequest, "unknown HTTP method " + req.method);
  Prepared p;
  p.origin = std::move(*origin);
  p.verb = verb;
  p.body = std::move(req.body);
  p.deadline = Clock::now() + req.timeout;
  p.max_response_bytes = req.max_response_bytes;
  p.public_addresses_only = req.public_addresses_only;
  p.on_event_stream = std::move(req.on_event_stream);
  p.pool_key = p.origin.key + (p.public_addresses_only ? " public" : "");
  const std::string host = upstream::HostField(p.origin.host, p.origin.port, p.origin.default_port);
  p.head = upstream::RequestHead({bhttp::to_string(verb), p.origin.target, host}, req.headers,
                                 p.body.size());
  return p;
}

asio::awaitable<Result<HttpClientResponse>> Fail(Error error) {
  co_return error;
}

// Connections of one event loop: a caller on that loop uses them, so a socket's completions run on
// the thread that awaits them, with no hand-off between threads.
struct LoopPool {
  asio::any_io_executor executor;
  std::shared_ptr<upstream::ConnectionPool> pool;
};

std::size_t ShareOf(std::size_t total, std::size_t loops) {
  return std::max<std::size_t>(1, (total + loops - 1) / loops);
}

}  // namespace

struct HttpClient::Impl {
  Impl(std::vector<asio::any_io_executor> loops, HttpClientOptions o)
      : options(std::move(o)), resolver(options.dns_servers) {
    // The per-origin limits are the client's: each loop gets its share.
    const upstream::PoolLimits limits{ShareOf(options.max_connections_per_origin, loops.size()),
                                      ShareOf(options.max_idle_per_origin, loops.size()),
                                      options.max_idle_time};
    for (auto& executor : loops)
      pools.push_back(LoopPool{executor, upstream::ConnectionPool::Create(executor, limits)});
    tls_context.set_default_verify_paths();
    if (!options.extra_ca_file.empty()) tls_context.load_verify_file(options.extra_ca_file);
    tls_context.set_verify_mode(ssl::verify_peer);
  }

  // The pool of the caller's loop; the first for a caller on none of them (a test's own loop).
  LoopPool& PoolFor(const asio::any_io_executor& caller) {
    const auto& context = asio::query(caller, asio::execution::context);
    for (auto& p : pools)
      if (&asio::query(p.executor, asio::execution::context) == &context) return p;
    return pools.front();
  }

  HttpClientOptions options;
  DnsResolver resolver;
  std::vector<LoopPool> pools;
  ssl::context tls_context{ssl::context::tls_client};
  std::atomic<std::size_t> opened{0};

  asio::awaitable<Result<std::unique_ptr<Connection>>> Connect(asio::any_io_executor executor,
                                                               const Origin& origin,
                                                               Clock::time_point deadline,
                                                               bool public_only) {
    const auto connect_deadline = std::min(deadline, Clock::now() + options.connect_timeout);
    std::uint16_t port = 0;
    std::from_chars(origin.port.data(), origin.port.data() + origin.port.size(), port);
    auto endpoints = co_await resolver.Resolve(executor, origin.host, port, connect_deadline);
    if (!endpoints) co_return endpoints.error();
    if (public_only) {
      for (const auto& endpoint : *endpoints) {
        if (!webhooks::IsPublicAddress(endpoint.address().to_string())) {
          co_return Error(ErrorCode::kForbidden,
                          "host " + origin.host + " resolves to a non-public address");
        }
      }
    }

    auto c = std::make_unique<Connection>();
    if (origin.tls) {
      c->tls = std::make_unique<ssl::stream<beast::tcp_stream>>(executor, tls_context);
    } else {
      c->plain = std::make_unique<beast::tcp_stream>(executor);
    }
    auto& lowest = c->Lowest();
    lowest.expires_at(connect_deadline);
    auto [connect_ec, endpoint] = co_await lowest.async_connect(*endpoints, kTuple);
    if (connect_ec) co_return Unavailable("connect " + origin.key, connect_ec);
    boost::system::error_code ignored;  // requests go out whole, never held back by Nagle
    lowest.socket().set_option(asio::ip::tcp::no_delay(true), ignored);
    ++opened;
    if (origin.tls) {
      if (!SSL_set_tlsext_host_name(c->tls->native_handle(), origin.host.c_str())) {
        co_return Error(ErrorCode::kUnavailable, "TLS: cannot set server name");
      }
      c->tls->set_verify_callback(ssl::host_name_verification(origin.host));
      lowest.expires_at(deadline);
      auto [handshake_ec] = co_await c->tls->async_handshake(ssl::stream_base::client, kTuple);
      if (handshake_ec) co_return Unavailable("TLS handshake with " + origin.key, handshake_ec);
    }
    co_return std::move(c);
  }

  struct ExchangeState {
    bool keep_alive = false;
    bool received_any = false;
    boost::system::error_code transport_error;
  };

  // Reads the head, then a 2xx event stream's body piece by piece into `on_data` (each piece leaves
  // the parser's body once handed over, so a long stream is never held whole); any other answer
  // is read whole.
  template <class Stream>
  static asio::awaitable<boost::system::error_code> ReadStreamed(
      Stream& stream, beast::tcp_stream& lowest, Clock::time_point deadline,
      beast::flat_buffer& buffer, bhttp::response_parser<bhttp::string_body>& parser,
      const std::function<void(std::string_view)>& on_data) {
    auto [head_ec, head_read] = co_await bhttp::async_read_header(stream, buffer, parser, kTuple);
    if (head_ec) co_return head_ec;
    const auto& message = parser.get();
    if (message.result_int() / 100 != 2 ||
        !message[bhttp::field::content_type].starts_with("text/event-stream")) {
      auto [ec, read] = co_await bhttp::async_read(stream, buffer, parser, kTuple);
      co_return ec;
    }
    // An event stream reads a few bytes a token for minutes: one deadline for all of it rather
    // than Beast's timer armed and canceled around every read, and each read takes what is there.
    lowest.expires_never();
    const upstream::SocketDeadline watch(lowest.socket(), deadline);
    parser.eager(true);
    for (;;) {
      while (buffer.size() > 0 && !parser.is_done()) {
        boost::system::error_code ec;
        const auto used = parser.put(buffer.data(), ec);
        buffer.consume(used);
        if (ec == bhttp::error::need_more) break;
        if (ec) co_return ec;
        if (used == 0) break;
      }
      if (!parser.get().body().empty()) {
        on_data(parser.get().body());
        parser.get().body().clear();
      }
      if (parser.is_done()) co_return boost::system::error_code{};
      const auto room = std::clamp<std::size_t>(buffer.capacity() - buffer.size(), 512, 16384);
      boost::system::error_code ec;
      std::size_t read = 0;
      if constexpr (std::is_same_v<Stream, beast::tcp_stream>) {
        std::tie(ec, read) = co_await lowest.socket().async_read_some(buffer.prepare(room), kTuple);
      } else {
        std::tie(ec, read) = co_await stream.async_read_some(buffer.prepare(room), kTuple);
      }
      if (watch.expired()) co_return beast::error::timeout;
      buffer.commit(read);
      if (ec == asio::error::eof) {
        // The body may run to the connection's close; otherwise the stream was cut.
        ec = {};
        parser.put_eof(ec);
        if (!ec && !parser.get().body().empty()) on_data(parser.get().body());
        co_return ec;
      }
      if (ec) co_return ec;
    }
  }

  template <class Stream>
  asio::awaitable<Result<HttpClientResponse>> Exchange(Stream& stream, beast::tcp_stream& lowest,
                                                       Prepared& p, ExchangeState& state) {
    lowest.expires_at(p.deadline);
    const std::array<asio::const_buffer, 2> outgoing{asio::buffer(p.head), asio::buffer(p.body)};
    auto [write_ec, written] = co_await asio::async_write(stream, outgoing, kTuple);
    state.transport_error = write_ec;
    if (write_ec) co_return Unavailable("send request", write_ec);
    const bool head = p.verb == bhttp::verb::head;
    // Sent, and never sent again: its body (a model call's whole prompt) is not held while the
    // answer is awaited, which for a model may be minutes.
    if (!SafeToResend(p.verb)) {
      std::string().swap(p.head);
      std::string().swap(p.body);
    }
    // While a model thinks, nothing is allocated for reading its answer. Plain TCP only: TLS may
    // already hold what the socket no longer shows (a close_notify read with the last answer), and
    // its connection's own buffers dwarf what the wait saves.
    if constexpr (std::is_same_v<Stream, beast::tcp_stream>) {
      const auto waited = co_await upstream::AwaitReadable(lowest.socket(), p.deadline);
      state.transport_error = waited;
      if (waited) co_return Unavailable("read response", waited);
    }
    bhttp::response_parser<bhttp::string_body> parser;
    parser.body_limit(p.max_response_bytes);
    parser.header_limit(64 * 1024);
    if (head) parser.skip(true);
    beast::flat_buffer buffer;
    boost::system::error_code read_ec;
    if (p.on_event_stream) {
      read_ec =
          co_await ReadStreamed(stream, lowest, p.deadline, buffer, parser, p.on_event_stream);
    } else {
      std::tie(read_ec, std::ignore) = co_await bhttp::async_read(stream, buffer, parser, kTuple);
    }
    state.received_any = parser.got_some();
    state.transport_error = read_ec;
    if (read_ec == bhttp::error::body_limit) {
      co_return Error(ErrorCode::kUnavailable,
                      "response is larger than " + std::to_string(p.max_response_bytes) + " bytes");
    }
    if (read_ec) co_return Unavailable("read response", read_ec);
    auto& message = parser.get();
    HttpClientResponse response;
    response.status = static_cast<int>(message.result_int());
    for (const auto& field : message) {
      std::string name(field.name_string());
      for (auto& ch : name) ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
      response.headers.emplace_back(std::move(name), std::string(field.value()));
    }
    response.body = std::move(message.body());
    state.keep_alive = message.keep_alive() && buffer.size() == 0;
    co_return response;
  }

  asio::awaitable<Result<HttpClientResponse>> Send(Prepared p) {
    const Origin& origin = p.origin;
    const auto verb = p.verb;
    LoopPool& loop = PoolFor(co_await asio::this_coro::executor);
    for (int attempt = 0;; ++attempt) {
      auto lease = co_await loop.pool->Acquire(p.pool_key, p.deadline);
      if (!lease) co_return lease.error();
      auto& connection = lease->connection();
      const bool reused = connection != nullptr;
      if (!connection) {
        auto fresh = co_await Connect(loop.executor, origin, p.deadline, p.public_addresses_only);
        if (!fresh) co_return fresh.error();
        connection = std::move(*fresh);
      }
      ExchangeState state;
      // No co_await inside ?: : GCC 12 destroys the selected temporary twice.
      Result<HttpClientResponse> result = Error(ErrorCode::kInternal, "no exchange");
      if (connection->tls) {
        result = co_await Exchange(*connection->tls, connection->Lowest(), p, state);
      } else {
        result = co_await Exchange(*connection->plain, connection->Lowest(), p, state);
      }
      if (result) {
        if (state.keep_alive) lease->KeepIdle();
        co_return result;
      }
      // A kept-alive connection the server closed as the request went out fails before any
      // answer. The server may still have acted on it, so only a method that is safe to repeat
      // goes once more on a fresh connection.
      const auto& ec = state.transport_error;
      const bool closed_by_peer = ec == bhttp::error::end_of_stream || ec == asio::error::eof ||
                                  ec == asio::error::connection_reset ||
                                  ec == asio::error::broken_pipe;
      const bool stale = reused && !state.received_any && closed_by_peer;
      if (!stale || !SafeToResend(verb) || attempt > 0) co_return result;
    }
  }
};

HttpClient::HttpClient(asio::any_io_executor executor, HttpClientOptions options)
    : HttpClient(std::vector<asio::any_io_executor>{std::move(executor)}, std::move(options)) {}

HttpClient::HttpClient(std::vector<asio::any_io_executor> loops, HttpClientOptions options)
    : impl_(std::make_unique<Impl>(std::move(loops), std::move(options))) {}

HttpClient::~HttpClient() = default;

std::size_t HttpClient::ConnectionsOpened() const {
  return impl_->opened;
}

asio::awaitable<Result<HttpClientResponse>> HttpClient::Send(HttpClientRequest req) {
  // Not a coroutine itself: the caller's request, once turned into the message to send, is not
  // kept in the frame that waits for the answer.
  auto prepared = Prepare(std::move(req));
  if (!prepared) return Fail(prepared.error());
  return impl_->Send(std::move(*prepared));
}

std::size_t HttpClient::IdleConnections() const {
  std::size_t n = 0;
  for (const auto& p : impl_->pools) n += p.pool->IdleConnections();
  return n;
}

std::size_t HttpClient::OriginsTracked() const {
  std::size_t n = 0;
  for (const auto& p : impl_->pools) n += p.pool->Origins();
  return n;
}

}  // namespace agentgate
