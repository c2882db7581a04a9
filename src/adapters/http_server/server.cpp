#include "adapters/http_server/server.hpp"

#include "adapters/http_server/chunk_writer.hpp"
#include "adapters/http_server/connection_registry.hpp"
#include "adapters/http_server/request_reader.hpp"
#include "adapters/http_server/response_head.hpp"
#include "adapters/http_server/responses.hpp"
#include "observability/log.hpp"
#include "observability/metrics.hpp"
#include "runtime/tracer.hpp"

#include <boost/asio/as_tuple.hpp>
#include <boost/asio/co_spawn.hpp>
#include <boost/asio/detached.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <boost/asio/write.hpp>
#include <boost/beast/core/flat_buffer.hpp>
#include <boost/beast/core/tcp_stream.hpp>

#include <sys/socket.h>

#include <array>

namespace agentgate::http {
namespace {

namespace asio = boost::asio;
namespace beast = boost::beast;
using tcp = asio::ip::tcp;
constexpr auto kTuple = kAsTuple;

// Completes when the peer closes the connection; when it sends data instead (a pipelined
// request), it waits until canceled, since readable then says nothing more.
asio::awaitable<void> PeerClosed(tcp::socket& socket) {
  auto [ec] = co_await socket.async_wait(tcp::socket::wait_read, kTuple);
  if (ec) co_return;  // reset (closed), or canceled: the race it was in is over
  char byte = 0;
  if (::recv(socket.native_handle(), &byte, 1, MSG_PEEK | MSG_DONTWAIT) == 0) co_return;
  asio::steady_timer forever(socket.get_executor(), asio::steady_timer::time_point::max());
  co_await forever.async_wait(kTuple);
}

// While the server is full, how often the accept loops look for a free slot, and how many idle
// keep-alive connections each look closes to make one (as nginx reuses its idle connections).
constexpr auto kFullRecheck = std::chrono::milliseconds(10);
constexpr std::size_t kReclaimPerCheck = 16;
// A client between two requests of a busy keep-alive connection is idle only for an instant; it
// is not reclaimed (it would meet a closed connection with its next request already written).
constexpr auto kReclaimableAfter = std::chrono::seconds(1);

}  // namespace

struct Server::Impl {
  Impl(std::vector<asio::io_context*> event_loops, const Router& r, Metrics& m, ServerOptions o)
      : loops(std::move(event_loops)),
        ioc(*loops.front()),
        router(r),
        metrics(m),
        options(o),
        drain_grace(ioc) {}

  // Each run by one thread: a connection lives on one loop and needs no strand.
  std::vector<asio::io_context*> loops;
  std::atomic<std::size_t> next_loop{0};
  asio::io_context& ioc;  // the acceptors' and the drain timer's
  const Router& router;
  Metrics& metrics;
  ServerOptions options;
  std::vector<std::unique_ptr<tcp::acceptor>> acceptors;
  DrainState drain;
  std::atomic<std::size_t> active_requests{0};
  asio::steady_timer drain_grace;

  ConnectionRegistry connections;

  // Closes the connections that wait for a request; busy ones close after their answer.
  void CloseIdle() { connections.CloseIdle(SteadyTicks(drain.began.load())); }

  // The server is full: closes a few kept-alive connections that wait for a next request, so a
  // new client gets a slot sooner (as nginx reuses its idle connections).
  void ReclaimIdle() {
    connections.ReclaimIdle(
        SteadyTicks(std::chrono::steady_clock::now() - kReclaimableAfter), kReclaimPerCheck,
        [this] {
          metrics.Add("agentgate_http_connections_closed_total", {{"reason", "reclaimed"}});
        });
  }

  asio::awaitable<void> AcceptLoop(tcp::acceptor& acceptor) {
    asio::steady_timer pause(acceptor.get_executor());
    for (;;) {
      // At max_connections new clients wait in the listen backlog instead of taking descriptors.
      while (connections.Size() >= options.max_connections && !drain.draining) {
        ReclaimIdle();
        pause.expires_after(kFullRecheck);
        co_await pause.async_wait(kTuple);
      }
      // Connections go to the loops in turn; each then runs on its loop's thread alone.
      asio::io_context& loop = *loops[next_loop++ % loops.size()];
      auto [ec, socket] = co_await acceptor.async_accept(loop.get_executor(), kTuple);
      if (ec) {
        if (drain.draining || !acceptor.is_open()) co_return;
        // Out of descriptors and the like: back off instead of spinning.
        pause.expires_after(std::chrono::milliseconds(50));
        co_await pause.async_wait(kTuple);
        continue;
      }
      // An answer goes out whole at once: Nagle's algorithm would hold its last segment back
      // until the client's delayed ACK (40 ms) whenever a write is split.
      beast::error_code ignored;
      socket.set_option(tcp::no_delay(true), ignored);
      auto connection = std::make_shared<Connection>(std::move(socket));
      const std::uint64_t id = connections.Add(connection);
      metrics.AddGauge("agentgate_http_connections_open", {}, 1);
      asio::co_spawn(connection->stream.get_executor(), Serve(connection, id), asio::detached);
    }
  }

  asio::awaitable<void> Serve(std::shared_ptr<Connection> c, std::uint64_t id) {
    std::string remote;
    {
      beast::error_code ec;
      const auto ep = c->stream.socket().remote_endpoint(ec);
      if (!ec) remote = ep.address().to_string();
    }
    beast::flat_buffer buffer;
    try {
      Next next = Next::kKeepAlive;
      // Not stopped by `draining` here: an answer sent with keep-alive just before draining began
      // may already have a next request behind it, which gets the idle grace like any other.
      for (std::size_t served = 0; next == Next::kKeepAlive; ++served) {
        next = co_await ReadAndAnswer(*c, buffer, remote, served);
      }
      if (next == Next::kDrainThenClose) co_await Linger(*c);
    } catch (const std::exception& e) {
      log::Error("connection_failed", {{"error", std::string_view(e.what())}});
    }
    beast::error_code ignored;
    c->stream.socket().shutdown(tcp::socket::shutdown_send, ignored);
    c->stream.socket().close(ignored);
    metrics.AddGauge("agentgate_http_connections_open", {}, -1);
    connections.Remove(id);
  }

  // Reads one request and writes its response; `served` requests came before it on this
  // connection. The read is a coroutine of its own: its parser is gone while the request runs.
  asio::awaitable<Next> ReadAndAnswer(Connection& c, beast::flat_buffer& buffer,
                                      const std::string& remote, std::size_t served) {
    ReadRequest read = co_await ReadNextRequest(c, buffer, remote, served, options, drain, metrics);
    if (read.answer) co_await WriteError(c, read.target, *read.answer);
    if (!read.request) co_return read.otherwise;
    Request& request = *read.request;
    c.busy = true;
    ++active_requests;
    metrics.AddGauge("agentgate_http_requests_in_flight", {}, 1);
    // The read buffer idles while the request runs (a turn may take minutes): give its memory back
    // unless a pipelined request already waits in it (bench/in_flight.py).
    const bool pipelined = buffer.size() != 0;
    if (!pipelined) buffer.shrink_to_fit();
    request.client_closed = [&c, pipelined]() -> asio::awaitable<void> {
      if (pipelined) {  // the client is there and waiting for its turn
        asio::steady_timer forever(c.stream.get_executor(), asio::steady_timer::time_point::max());
        co_await forever.async_wait(kTuple);
        co_return;
      }
      co_await PeerClosed(c.stream.socket());
    };
    const auto started = std::chrono::steady_clock::now();
    std::string route_name = "unmatched";
    Span span = StartServerSpan(request);
    Response response = co_await Dispatch(request, route_name);
    if (span.recording()) EndServerSpan(span, request, route_name, response.status);
    const double seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
    metrics.AddGauge("agentgate_http_requests_in_flight", {}, -1);
    metrics.Add("agentgate_http_requests_total",
                {{"route", route_name}, {"status", std::to_string(response.status)}});
    metrics.Observe("agentgate_http_request_duration_seconds", {{"route", route_name}}, seconds);
    const int status = response.status;

    response.headers.emplace_back("X-Request-Id", request.request_id);
    // An HTTP/1.0 stream ends with its connection.
    const bool answered_keep_alive =
        read.keep_alive && !drain.draining && !(response.stream && read.version == 10);
    const bool written =
        response.stream ? co_await WriteStream(c, std::move(response), read.version,
                                               answered_keep_alive, span.context_ptr())
                        : co_await Write(c, std::move(response), read.version, answered_keep_alive);
    // Logged once the answer is on its way (the log is written asynchronously either way): the
    // caller does not wait for the line to be formatted.
    LogRequest(request, route_name, status, seconds, span.context_ptr());
    --active_requests;
    c.busy = false;
    co_return written&& answered_keep_alive ? Next::kKeepAlive : Next::kClose;
  }

  // One line per request.
  static void LogRequest(const Request& request, const std::string& route, int status,
                         double seconds, const SpanContext* trace) {
    LogTraced("info", "http_request",
              {{"request_id", std::string_view(request.request_id)},
               {"method", std::string_view(request.method)},
               {"path", std::string_view(request.path)},
               {"route", std::string_view(route)},
               {"status", static_cast<std::int64_t>(status)},
               {"duration_ms", seconds * 1000}},
              trace);
  }

  // The request's server span, under the caller's traceparent when it sent a valid one.
  Span StartServerSpan(Request& request) const {
    if (options.tracer == nullptr || !options.tracer->enabled()) return Span();
    std::optional<SpanContext> parent;
    if (const auto header = request.Header("traceparent")) {
      if (auto caller =
              tracing::ParseTraceparent(*header, request.Header("tracestate").value_or("")))
        parent = SpanContext::From(*caller);
    }
    Span span = options.tracer->Start(request.method, tracing::SpanKind::kServer, parent);
    request.trace = span.context_ptr();
    return span;
  }

  // Named "{method} {route}" as the HTTP conventions say; the path is sent without its query.
  static void EndServerSpan(Span& span, const Request& request, const std::string& route,
                            int status) {
    const bool matched = route != "unmatched";
    if (matched) span.Rename(request.method + " " + route);
    span.Set("http.request.method", request.method);
    if (matched) span.Set("http.route", route);
    span.Set("url.path", request.path);
    span.Set("http.response.status_code", std::int64_t{status});
    if (status >= 500) {
      span.Set("error.type", std::to_string(status));
      span.Fail("HTTP " + std::to_string(status));
    }
  }

  asio::awaitable<Response> Dispatch(Request& request, std::string& route_name) {
    auto match = router.Find(request.method, request.path);
    if (match.outcome == Router::Outcome::kNotFound) {
      co_return router.RenderError(
          request.path,
          Error{ErrorCode::kNotFound, "no route for " + request.method + " " + request.path});
    }
    if (match.outcome == Router::Outcome::kMethodNotAllowed) {
      co_return router.RenderError(
          request.path, Error{ErrorCode::kMethodNotAllowed,
                              "method " + request.method + " is not allowed on " + request.path});
    }
    route_name = match.route->pattern;
    request.path_params = std::move(match.params);
    try {
      co_return co_await match.route->handler(request);
    } catch (const std::exception& e) {
      LogTraced("error", "handler_failed",
                {{"request_id", std::string_view(request.request_id)},
                 {"route", std::string_view(route_name)},
                 {"error", std::string_view(e.what())}},
                request.trace);
    }
    co_return router.RenderError(
        request.path,
        Error{ErrorCode::kInternal, "internal error (request id " + request.request_id + ")"});
  }

  asio::awaitable<bool> Write(Connection& c, Response response, unsigned version, bool keep_alive) {
    const std::string head = ResponseHead(response, version, keep_alive);
    const std::array<asio::const_buffer, 2> message{asio::buffer(head),
                                                    asio::buffer(response.body)};
    c.stream.expires_after(options.read_timeout);
    auto [ec, n] = co_await asio::async_write(c.stream, message, kTuple);
    co_return !ec;
  }

  asio::awaitable<bool> WriteStream(Connection& c, Response response, unsigned version,
                                    bool keep_alive, const SpanContext* trace) {
    ChunkWriter writer(c, response, version, keep_alive, options.read_timeout);
    try {
      co_await response.stream(writer);
    } catch (const std::exception& e) {
      // The head may be out: the stream can only end, without its last chunk, so the client sees
      // it cut rather than complete.
      LogTraced("error", "stream_failed", {{"error", std::string_view(e.what())}}, trace);
      co_return false;
    }
    co_return co_await writer.End();
  }

  asio::awaitable<void> WriteError(Connection& c, std::string_view target, const Error& error) {
    Response response = router.RenderError(target, error);
    co_await Write(c, std::move(response), 11, false);
  }
};

Server::Server(asio::io_context& ioc, const Router& router, Metrics& metrics, ServerOptions options)
    : Server(std::vector<asio::io_context*>{&ioc}, router, metrics, options) {}

Server::Server(std::vector<asio::io_context*> loops, const Router& router, Metrics& metrics,
               ServerOptions options)
    : impl_(std::make_unique<Impl>(std::move(loops), router, metrics, options)) {}

Server::~Server() = default;

Result<std::string> Server::Listen(const std::string& host_port) {
  const auto colon = host_port.rfind(':');
  if (colon == std::string::npos) return InvalidField("listen", "must be HOST:PORT");
  std::string host = host_port.substr(0, colon);
  if (host.size() >= 2 && host.front() == '[' && host.back() == ']')
    host = host.substr(1, host.size() - 2);
  const std::string port = host_port.substr(colon + 1);
  try {
    tcp::resolver resolver(impl_->ioc);
    const auto results =
        resolver.resolve(host, port, tcp::resolver::passive | tcp::resolver::numeric_service);
    const tcp::endpoint endpoint = *results.begin();
    auto acceptor = std::make_unique<tcp::acceptor>(impl_->ioc);
    acceptor->open(endpoint.protocol());
    acceptor->set_option(asio::socket_base::reuse_address(true));
    acceptor->bind(endpoint);
    acceptor->listen(asio::socket_base::max_listen_connections);
    const auto bound = acceptor->local_endpoint();
    impl_->acceptors.push_back(std::move(acceptor));
    const std::string address = bound.address().to_string();
    return (bound.address().is_v6() ? "[" + address + "]" : address) + ":" +
           std::to_string(bound.port());
  } catch (const std::exception& e) {
    return MakeError(ErrorCode::kUnavailable, "cannot listen on " + host_port + ": " + e.what());
  }
}

void Server::Start() {
  for (auto& acceptor : impl_->acceptors) {
    asio::co_spawn(acceptor->get_executor(), impl_->AcceptLoop(*acceptor), asio::detached);
  }
}

void Server::BeginShutdown() {
  if (impl_->drain.draining) return;
  impl_->drain.began = std::chrono::steady_clock::now();
  if (impl_->drain.draining.exchange(true)) return;
  for (auto& acceptor : impl_->acceptors) {
    asio::post(acceptor->get_executor(), [a = acceptor.get()] {
      beast::error_code ignored;
      a->close(ignored);
    });
  }
  impl_->drain_grace.expires_after(kDrainIdleGrace);
  impl_->drain_grace.async_wait([impl = impl_.get()](beast::error_code ec) {
    if (!ec) impl->CloseIdle();  // aborted: the server is gone
  });
}

bool Server::Draining() const {
  return impl_->drain.draining;
}
std::size_t Server::ActiveRequests() const {
  return impl_->active_requests;
}
std::size_t Server::OpenConnections() const {
  return impl_->connections.Size();
}

}  // namespace agentgate::http
