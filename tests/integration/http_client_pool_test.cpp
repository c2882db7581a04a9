// The HTTP client's limits against real servers on loopback: the per-origin connection cap and
// its line, idle connections closed by the timer, and name resolution that a deadline or a
// cancellation stops (a small DNS server on UDP stands in for the resolver).
#include "adapters/http_client/http_client.hpp"
#include "adapters/http_server/server.hpp"
#include "observability/log.hpp"
#include "observability/metrics.hpp"
#include "support/run_async.hpp"

#include <gtest/gtest.h>
#include <boost/asio/experimental/awaitable_operators.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/use_awaitable.hpp>

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <thread>

namespace agentgate::testing {
namespace {

namespace asio = boost::asio;
using namespace std::chrono_literals;
using Clock = std::chrono::steady_clock;

// Answers A queries for names ending in ".test" with 127.0.0.1, AAAA queries with no address,
// and never answers for "blackhole.test" (a resolver that is down or a lookup that is dropped).
class FakeDnsServer {
 public:
  FakeDnsServer() {
    fd_ = ::socket(AF_INET, SOCK_DGRAM, 0);
    sockaddr_in address{};
    address.sin_family = AF_INET;
    address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    socklen_t length = sizeof(address);
    timeval poll_interval{0, 100000};
    ::setsockopt(fd_, SOL_SOCKET, SO_RCVTIMEO, &poll_interval, sizeof(poll_interval));
    if (::bind(fd_, reinterpret_cast<sockaddr*>(&address), length) != 0 ||
        ::getsockname(fd_, reinterpret_cast<sockaddr*>(&address), &length) != 0)
      throw std::runtime_error("cannot bind");
    port_ = ntohs(address.sin_port);
    thread_ = std::thread([this] { Serve(); });
  }
  ~FakeDnsServer() {
    stop_ = true;
    thread_.join();
    ::close(fd_);
  }
  std::string servers() const { return "127.0.0.1:" + std::to_string(port_); }
  int queries() const { return queries_; }

 private:
  void Serve() {
    while (!stop_) {
      unsigned char query[512];
      sockaddr_in from{};
      socklen_t from_length = sizeof(from);
      const ssize_t n = ::recvfrom(fd_, query, sizeof(query), 0, reinterpret_cast<sockaddr*>(&from),
                                   &from_length);
      if (n < 12) continue;
      ++queries_;
      // The question: labels from byte 12 to the root label, then type and class.
      std::size_t at = 12;
      std::string name;
      while (at < static_cast<std::size_t>(n) && query[at] != 0) {
        const std::size_t label = query[at];
        if (!name.empty()) name += '.';
        name.append(reinterpret_cast<const char*>(query + at + 1), label);
        at += label + 1;
      }
      const std::size_t question_end = at + 5;
      if (question_end > static_cast<std::size_t>(n) || name == "blackhole.test") continue;
      const int type = query[at + 1] << 8 | query[at + 2];
      const bool answer = type == 1 && name.ends_with(".test");
      std::vector<unsigned char> reply(query, query + question_end);
      reply[2] = 0x81;  // a response, recursion desired
      reply[3] = 0x80;  // recursion available, no error
      reply[6] = 0;
      reply[7] = answer ? 1 : 0;
      reply[8] = reply[9] = reply[10] = reply[11] = 0;
      if (answer) {
        const unsigned char record[] = {0xc0, 0x0c, 0, 1, 0, 1, 0, 0, 0, 60, 0, 4, 127, 0, 0, 1};
        reply.insert(reply.end(), std::begin(record), std::end(record));
      }
      ::sendto(fd_, reply.data(), reply.size(), 0, reinterpret_cast<sockaddr*>(&from), from_length);
    }
  }

  int fd_ = -1;
  int port_ = 0;
  std::atomic<bool> stop_{false};
  std::atomic<int> queries_{0};
  std::thread thread_;
};

class HttpClientLimitsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    log::SetEnabled(false);
    DeclareAgentgateMetrics(metrics_);
    router_.Add("GET", "/pause", [](http::Request&) -> asio::awaitable<http::Response> {
      asio::steady_timer t(co_await asio::this_coro::executor, 300ms);
      co_await t.async_wait(asio::use_awaitable);
      co_return http::Response{};
    });
    router_.Add("GET", "/now", [](http::Request&) -> asio::awaitable<http::Response> {
      co_return http::Response{};
    });
    http::ServerOptions options;
    options.idle_timeout = 60s;  // the client, not the server, closes idle connections here
    server_ = std::make_unique<http::Server>(server_loop_.io(), router_, metrics_, options);
    port_ = server_->Listen("127.0.0.1:0").value();
    port_ = port_.substr(port_.rfind(':') + 1);
    server_->Start();
  }
  void TearDown() override {
    client_loop_.Stop();
    server_loop_.Stop();
    server_.reset();
  }

  // Runs a call on the client's own background loop (whose timers then fire on their own).
  template <class T>
  T Run(asio::awaitable<T> work) {
    return asio::co_spawn(client_loop_.io(), std::move(work), asio::use_future).get();
  }
  HttpClientRequest Get(const std::string& host, const std::string& path,
                        std::chrono::milliseconds timeout = 5000ms) {
    return HttpClientRequest{"GET", "http://" + host + ":" + port_ + path, {}, "", timeout};
  }

  Metrics metrics_;
  http::Router router_;
  BackgroundLoop server_loop_;
  BackgroundLoop client_loop_;
  std::unique_ptr<http::Server> server_;
  std::string port_;
};

TEST_F(HttpClientLimitsTest, CallersBeyondTheOriginsCapWaitInLineForAConnection) {
  HttpClientOptions options;
  options.max_connections_per_origin = 1;
  HttpClient client(client_loop_.io().get_executor(), options);
  const auto started = Clock::now();
  auto both = Run([&]() -> asio::awaitable<int> {
    using namespace asio::experimental::awaitable_operators;
    auto first = client.Send(Get("127.0.0.1", "/pause"));
    auto second = client.Send(Get("127.0.0.1", "/pause"));
    auto [a, b] = co_await (std::move(first) && std::move(second));
    co_return (a ? 1 : 0) + (b ? 1 : 0);
  }());
  EXPECT_EQ(both, 2);
  EXPECT_GE(Clock::now() - started, 550ms);  // one after the other
  EXPECT_EQ(client.ConnectionsOpened(), 1u);

  // A caller whose deadline passes in line gets an answer saying so.
  auto waited = Run([&]() -> asio::awaitable<std::string> {
    using namespace asio::experimental::awaitable_operators;
    auto holder = client.Send(Get("127.0.0.1", "/pause"));
    auto impatient = client.Send(Get("127.0.0.1", "/now", 100ms));
    auto [held, late] = co_await (std::move(holder) && std::move(impatient));
    co_return held && !late ? late.error().message : std::string("unexpected");
  }());
  EXPECT_NE(waited.find("waiting for a connection"), std::string::npos) << waited;
  EXPECT_NE(waited.find("timed out"), std::string::npos) << waited;
  EXPECT_EQ(client.OriginsTracked(), 1u);  // its idle connection
}

TEST_F(HttpClientLimitsTest, IdleConnectionsAreClosedByTheTimer) {
  HttpClientOptions options;
  options.max_idle_time = 1s;
  HttpClient client(client_loop_.io().get_executor(), options);
  ASSERT_TRUE(Run(client.Send(Get("127.0.0.1", "/now"))));
  EXPECT_EQ(client.IdleConnections(), 1u);
  for (int i = 0; i < 150 && server_->OpenConnections() > 0; ++i) std::this_thread::sleep_for(20ms);
  EXPECT_EQ(client.IdleConnections(), 0u);
  EXPECT_EQ(client.OriginsTracked(), 0u);     // nothing kept for an origin no longer used
  EXPECT_EQ(server_->OpenConnections(), 0u);  // the server saw the client close it
  // A call that never connected leaves nothing behind either.
  ASSERT_FALSE(Run(client.Send(HttpClientRequest{"GET", "http://127.0.0.1:1/", {}, "", 2000ms})));
  EXPECT_EQ(client.OriginsTracked(), 0u);
}

TEST_F(HttpClientLimitsTest, NamesResolveThroughTheConfiguredServer) {
  FakeDnsServer dns;
  HttpClientOptions options;
  options.dns_servers = dns.servers();
  HttpClient client(client_loop_.io().get_executor(), options);
  auto ok = Run(client.Send(Get("upstream.test", "/now")));
  ASSERT_TRUE(ok) << ok.error().message;
  EXPECT_GE(dns.queries(), 1);
  auto unknown = Run(client.Send(Get("nowhere.invalid", "/now")));
  ASSERT_FALSE(unknown);
  EXPECT_NE(unknown.error().message.find("resolve nowhere.invalid"), std::string::npos)
      << unknown.error().message;
}

TEST_F(HttpClientLimitsTest, ADeadlineEndsALookupThatGetsNoAnswerWithoutDelayingOthers) {
  FakeDnsServer dns;
  HttpClientOptions options;
  options.dns_servers = dns.servers();
  HttpClient client(client_loop_.io().get_executor(), options);
  const auto started = Clock::now();
  auto outcome = Run([&]() -> asio::awaitable<std::string> {
    using namespace asio::experimental::awaitable_operators;
    // A lookup that will never be answered is pending while another name resolves.
    auto stuck = client.Send(Get("blackhole.test", "/now", 800ms));
    auto other = client.Send(Get("upstream.test", "/now"));
    auto [dead, alive] = co_await (std::move(stuck) && std::move(other));
    if (!alive) co_return "the other lookup failed: " + alive.error().message;
    if (dead) co_return std::string("the unanswered lookup succeeded");
    co_return dead.error().message;
  }());
  EXPECT_NE(outcome.find("resolve blackhole.test: timed out"), std::string::npos) << outcome;
  EXPECT_LT(Clock::now() - started, 2s);

  // Canceling the caller (a turn's cap) ends the lookup at once.
  const auto canceled_at = Clock::now();
  auto first = Run([&]() -> asio::awaitable<int> {
    using namespace asio::experimental::awaitable_operators;
    asio::steady_timer cap(co_await asio::this_coro::executor, 100ms);
    auto lookup = client.Send(Get("blackhole.test", "/now", 30000ms));
    auto capped = cap.async_wait(asio::use_awaitable);
    auto winner = co_await (std::move(lookup) || std::move(capped));
    co_return static_cast<int>(winner.index());
  }());
  EXPECT_EQ(first, 1);
  EXPECT_LT(Clock::now() - canceled_at, 1s);
}

}  // namespace
}  // namespace agentgate::testing
