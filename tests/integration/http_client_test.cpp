// The one HTTP client against real servers on loopback: our own HTTP server for plain HTTP and a
// TLS test server with a freshly made certificate.
#include "adapters/http_client/http_client.hpp"
#include "adapters/http_server/server.hpp"
#include "observability/log.hpp"
#include "observability/metrics.hpp"
#include "support/run_async.hpp"
#include "support/tls_test_server.hpp"

#include <gtest/gtest.h>
#include <boost/asio/experimental/awaitable_operators.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/use_awaitable.hpp>

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <cstdio>
#include <filesystem>
#include <mutex>
#include <thread>

namespace agentgate::testing {
namespace {

namespace asio = boost::asio;
using namespace std::chrono_literals;

class HttpClientTest : public ::testing::Test {
 protected:
  void SetUp() override {
    log::SetEnabled(false);
    DeclareAgentgateMetrics(metrics_);
    router_.Add("POST", "/echo", [](http::Request& r) -> asio::awaitable<http::Response> {
      http::Response out;
      out.body = r.method + "|" + r.body + "|" + std::string(r.Header("x-test").value_or("")) +
                 "|" + r.query;
      out.headers.emplace_back("X-Upstream-Id", "req-42");
      co_return out;
    });
    router_.Add("GET", "/slow", [](http::Request&) -> asio::awaitable<http::Response> {
      asio::steady_timer t(co_await asio::this_coro::executor, 2s);
      co_await t.async_wait(asio::use_awaitable);
      co_return http::Response{};
    });
    router_.Add("GET", "/big", [](http::Request&) -> asio::awaitable<http::Response> {
      http::Response out;
      out.body = std::string(10000, 'x');
      co_return out;
    });
    http::ServerOptions options;
    options.idle_timeout = 1s;
    server_ = std::make_unique<http::Server>(loop_.io(), router_, metrics_, options);
    base_ = "http://" + server_->Listen("127.0.0.1:0").value();
    server_->Start();
  }

  void TearDown() override {
    loop_.Stop();
    server_.reset();
  }

  Result<HttpClientResponse> Send(HttpClient& client, HttpClientRequest request) {
    return RunAsync(client_io_, client.Send(std::move(request)));
  }

  HttpClientRequest Request(std::string method, std::string path) {
    HttpClientRequest r;
    r.method = std::move(method);
    r.url = base_ + path;
    return r;
  }

  Metrics metrics_;
  http::Router router_;
  BackgroundLoop loop_;
  std::unique_ptr<http::Server> server_;
  std::string base_;
  asio::io_context client_io_;
  HttpClient client_{client_io_.get_executor(), HttpClientOptions{}};
};

TEST_F(HttpClientTest, SendsMethodHeadersBodyAndQueryAndReadsTheAnswer) {
  auto request = Request("POST", "/echo?q=SELECT+Id%20FROM+X");
  request.headers = {{"x-test", "yes"}, {"content-type", "application/json"}};
  request.body = R"({"a":1})";
  auto response = Send(client_, request);
  ASSERT_TRUE(response) << response.error().message;
  EXPECT_EQ(response->status, 200);
  EXPECT_EQ(response->body, R"(POST|{"a":1}|yes|q=SELECT+Id%20FROM+X)");
  EXPECT_EQ(response->Header("x-upstream-id"), "req-42");
  EXPECT_EQ(response->Header("content-type"), "application/json");
}

// A webhook's request reaches only public addresses: the loopback server is refused, also on the
// connection another request to it left open.
TEST_F(HttpClientTest, ARequestForPublicAddressesOnlyIsRefusedALoopbackHost) {
  ASSERT_TRUE(Send(client_, Request("POST", "/echo")));  // leaves an idle connection to reuse
  auto request = Request("POST", "/echo");
  request.public_addresses_only = true;
  auto refused = Send(client_, request);
  ASSERT_FALSE(refused);
  EXPECT_EQ(refused.error().code, ErrorCode::kForbidden);
  EXPECT_NE(refused.error().message.find("non-public address"), std::string::npos);
  EXPECT_EQ(client_.ConnectionsOpened(), 1u);  // refused before connecting, and not reused
}

TEST_F(HttpClientTest, ReusesConnectionsPerOrigin) {
  for (int i = 0; i < 5; ++i) ASSERT_TRUE(Send(client_, Request("POST", "/echo")));
  EXPECT_EQ(client_.ConnectionsOpened(), 1u);
}

TEST_F(HttpClientTest, EachEventLoopReusesItsOwnConnections) {
  asio::io_context other_io;
  HttpClient client({client_io_.get_executor(), other_io.get_executor()}, HttpClientOptions{});
  ASSERT_TRUE(Send(client, Request("POST", "/echo")));
  ASSERT_TRUE(Send(client, Request("POST", "/echo")));
  EXPECT_EQ(client.ConnectionsOpened(), 1u);
  // A call from the other loop opens its own connection there, and then reuses it.
  for (int i = 0; i < 2; ++i) {
    auto response = RunAsync(other_io, client.Send(Request("POST", "/echo")));
    ASSERT_TRUE(response) << response.error().message;
  }
  EXPECT_EQ(client.ConnectionsOpened(), 2u);
  EXPECT_EQ(client.IdleConnections(), 2u);
}

TEST(HttpServerLoops, ConnectionsGoToTheLoopsInTurnAndStayOnTheirThread) {
  log::SetEnabled(false);
  Metrics metrics;
  DeclareAgentgateMetrics(metrics);
  http::Router router;
  router.Add("GET", "/thread", [](http::Request&) -> asio::awaitable<http::Response> {
    http::Response out;
    out.body = std::to_string(std::hash<std::thread::id>{}(std::this_thread::get_id()));
    co_return out;
  });
  BackgroundLoop first, second;
  auto server =
      std::make_unique<http::Server>(std::vector<asio::io_context*>{&first.io(), &second.io()},
                                     router, metrics, http::ServerOptions{});
  const std::string base = "http://" + server->Listen("127.0.0.1:0").value();
  server->Start();
  // Two clients, one connection each; each connection answers every request on one thread.
  asio::io_context io;
  HttpClient a(io.get_executor(), HttpClientOptions{});
  HttpClient b(io.get_executor(), HttpClientOptions{});
  auto thread_of = [&](HttpClient& client) {
    HttpClientRequest r;
    r.method = "GET";
    r.url = base + "/thread";
    return RunAsync(io, client.Send(r)).value().body;
  };
  const std::string on_a = thread_of(a), on_b = thread_of(b);
  EXPECT_NE(on_a, on_b);
  for (int i = 0; i < 3; ++i) {
    EXPECT_EQ(thread_of(a), on_a);
    EXPECT_EQ(thread_of(b), on_b);
  }
  EXPECT_EQ(a.ConnectionsOpened() + b.ConnectionsOpened(), 2u);
  first.Stop();
  second.Stop();
  server.reset();
}

TEST_F(HttpClientTest, RetriesOnceWhenTheServerClosedAnIdleConnection) {
  ASSERT_TRUE(Send(client_, Request("POST", "/echo")));
  // The server closes idle keep-alive connections after 1 s.
  for (int i = 0; i < 100 && server_->OpenConnections() > 0; ++i) std::this_thread::sleep_for(20ms);
  ASSERT_EQ(server_->OpenConnections(), 0u);
  auto again = Send(client_, Request("POST", "/echo"));
  ASSERT_TRUE(again) << again.error().message;
  EXPECT_EQ(client_.ConnectionsOpened(), 2u);
}

TEST_F(HttpClientTest, TheTotalDeadlineEndsASlowExchange) {
  auto request = Request("GET", "/slow");
  request.timeout = 200ms;
  const auto started = std::chrono::steady_clock::now();
  auto response = Send(client_, request);
  ASSERT_FALSE(response);
  EXPECT_EQ(response.error().code, ErrorCode::kUnavailable);
  EXPECT_NE(response.error().message.find("timed out"), std::string::npos)
      << response.error().message;
  EXPECT_LT(std::chrono::steady_clock::now() - started, 1500ms);
}

TEST_F(HttpClientTest, CancellingTheCallerCancelsTheUpstreamCall) {
  using namespace asio::experimental::awaitable_operators;
  const auto started = std::chrono::steady_clock::now();
  auto outcome = RunAsync(client_io_, [&]() -> asio::awaitable<int> {
    asio::steady_timer cap(co_await asio::this_coro::executor, 100ms);
    auto first =
        co_await (client_.Send(Request("GET", "/slow")) || cap.async_wait(asio::use_awaitable));
    co_return static_cast<int>(first.index());
  }());
  EXPECT_EQ(outcome, 1);  // the cap fired first
  EXPECT_LT(std::chrono::steady_clock::now() - started, 1500ms);
  // The canceled connection is not reused.
  ASSERT_TRUE(Send(client_, Request("POST", "/echo")));
  EXPECT_EQ(client_.ConnectionsOpened(), 2u);
}

TEST_F(HttpClientTest, RefusesOversizedResponses) {
  auto request = Request("GET", "/big");
  request.max_response_bytes = 1000;
  auto response = Send(client_, request);
  ASSERT_FALSE(response);
  EXPECT_NE(response.error().message.find("larger than"), std::string::npos);
}

TEST_F(HttpClientTest, ReportsUnreachableHostsAndBadUrls) {
  auto refused = Send(client_, HttpClientRequest{"GET", "http://127.0.0.1:1/", {}, "", 2000ms});
  ASSERT_FALSE(refused);
  EXPECT_EQ(refused.error().code, ErrorCode::kUnavailable);
  EXPECT_NE(refused.error().message.find("connect"), std::string::npos);
  for (const char* url : {"ftp://x/", "not a url", "http:///nohost"}) {
    auto bad = Send(client_, HttpClientRequest{"GET", url, {}, "", 1000ms});
    ASSERT_FALSE(bad) << url;
    EXPECT_EQ(bad.error().code, ErrorCode::kInvalidRequest) << url;
  }
  auto verb = Send(client_, HttpClientRequest{"FETCH", base_ + "/echo", {}, "", 1000ms});
  ASSERT_FALSE(verb);
  EXPECT_EQ(verb.error().code, ErrorCode::kInvalidRequest);
  EXPECT_NE(verb.error().message.find("unknown HTTP method FETCH"), std::string::npos)
      << verb.error().message;
  EXPECT_EQ(client_.ConnectionsOpened(), 0u);  // refused before any connection
}

// A listening socket on a free loopback port (its number in `port`), for the raw-socket servers.
int ListenOnLoopback(int& port) {
  const int listener = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t length = sizeof(address);
  if (::bind(listener, reinterpret_cast<sockaddr*>(&address), length) != 0 ||
      ::listen(listener, 16) != 0 ||
      ::getsockname(listener, reinterpret_cast<sockaddr*>(&address), &length) != 0)
    throw std::runtime_error("cannot listen");
  port = ntohs(address.sin_port);
  return listener;
}

// A server that answers the first request on each connection and keeps it open, then takes the
// second request whole and resets the connection without answering: the race a keep-alive client
// meets when a server drops a pooled connection as a request goes out.
class DropsSecondRequestServer {
 public:
  DropsSecondRequestServer() {
    listener_ = ListenOnLoopback(port_);
    acceptor_ = std::thread([this] { Accept(); });
  }
  ~DropsSecondRequestServer() {
    ::shutdown(listener_, SHUT_RDWR);
    ::close(listener_);
    acceptor_.join();
    {
      std::lock_guard lock(mutex_);
      for (const int fd : open_) ::shutdown(fd, SHUT_RDWR);  // ends reads the client never feeds
    }
    for (auto& t : connections_) t.join();
  }
  std::string url() const { return "http://127.0.0.1:" + std::to_string(port_) + "/rules"; }
  int requests() const { return requests_; }

 private:
  void Accept() {
    for (;;) {
      const int fd = ::accept(listener_, nullptr, nullptr);
      if (fd < 0) return;
      std::lock_guard lock(mutex_);
      open_.push_back(fd);
      connections_.emplace_back([this, fd] { Serve(fd); });
    }
  }
  // Reads one request (headers and a Content-Length body); false when the peer closed.
  static bool ReadRequest(int fd) {
    std::string data;
    char buffer[4096];
    for (;;) {
      const auto end = data.find("\r\n\r\n");
      if (end != std::string::npos) {
        const auto at = data.find("content-length: ");
        const std::size_t body = at == std::string::npos ? 0 : std::stoul(data.substr(at + 16));
        if (data.size() >= end + 4 + body) return true;
      }
      const ssize_t n = ::recv(fd, buffer, sizeof(buffer), 0);
      if (n <= 0) return false;
      data.append(buffer, static_cast<std::size_t>(n));
      for (auto& c : data) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    }
  }
  void Serve(int fd) {
    if (ReadRequest(fd)) {
      ++requests_;
      const std::string ok = "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok";
      (void)::send(fd, ok.data(), ok.size(), MSG_NOSIGNAL);
      if (ReadRequest(fd)) ++requests_;
    }
    const linger reset{1, 0};
    ::setsockopt(fd, SOL_SOCKET, SO_LINGER, &reset, sizeof(reset));
    std::lock_guard lock(mutex_);
    std::erase(open_, fd);
    ::close(fd);
  }

  int listener_ = -1;
  int port_ = 0;
  std::atomic<int> requests_{0};
  std::mutex mutex_;
  std::vector<int> open_;
  std::vector<std::thread> connections_;
  std::thread acceptor_;
};

TEST(HttpClientResend, AWriteIsNeverResentButAReadIsOnAFreshConnection) {
  asio::io_context io;
  HttpClient client(io.get_executor(), HttpClientOptions{});
  {
    DropsSecondRequestServer server;
    HttpClientRequest create{"POST", server.url(), {}, R"({"FullName":"Account.Rule"})", 5000ms};
    ASSERT_TRUE(RunAsync(io, client.Send(create)));
    auto second = RunAsync(io, client.Send(create));  // the server takes it, then resets
    ASSERT_FALSE(second);
    EXPECT_EQ(second.error().code, ErrorCode::kUnavailable);
    EXPECT_EQ(server.requests(), 2);  // not sent a third time: one rule, not two
    EXPECT_EQ(client.ConnectionsOpened(), 1u);
  }
  DropsSecondRequestServer server;
  HttpClientRequest read{"GET", server.url(), {}, "", 5000ms};
  ASSERT_TRUE(RunAsync(io, client.Send(read)));
  auto again = RunAsync(io, client.Send(read));
  ASSERT_TRUE(again) << again.error().message;  // sent again on a fresh connection
  EXPECT_EQ(again->body, "ok");
  EXPECT_EQ(server.requests(), 3);
}

// Answers one request with a chunked event stream: the first event, then (once the test says
// the client has it, or after 3 s) the second and the end. With `status`/`type` it answers that
// instead, whole. `ending` makes the stream end otherwise: cut after its first event, stalled
// after it for 2 s, or a body without chunks that runs to the connection's close.
enum class StreamEnding { kComplete, kCut, kStall, kUntilClose };
class EventStreamServer {
 public:
  EventStreamServer(int status = 200, std::string type = "text/event-stream",
                    StreamEnding ending = StreamEnding::kComplete)
      : status_(status), type_(std::move(type)), ending_(ending) {
    listener_ = ListenOnLoopback(port_);
    thread_ = std::thread([this] { Serve(); });
  }
  ~EventStreamServer() {
    ::shutdown(listener_, SHUT_RDWR);
    ::close(listener_);
    thread_.join();
  }
  std::string url() const { return "http://127.0.0.1:" + std::to_string(port_) + "/stream"; }
  std::atomic<bool> client_has_first{false};
  std::atomic<bool> waited_for_client{false};

 private:
  static void Send(int fd, const std::string& data) {
    (void)::send(fd, data.data(), data.size(), MSG_NOSIGNAL);
  }
  static std::string Chunk(const std::string& data) {
    char size[16];
    std::snprintf(size, sizeof size, "%zx", data.size());
    return std::string(size) + "\r\n" + data + "\r\n";
  }
  void Serve() {
    const int fd = ::accept(listener_, nullptr, nullptr);
    if (fd < 0) return;
    std::string request;
    char buffer[4096];
    while (request.find("\r\n\r\n") == std::string::npos) {
      const ssize_t n = ::recv(fd, buffer, sizeof buffer, 0);
      if (n <= 0) break;
      request.append(buffer, static_cast<std::size_t>(n));
    }
    if (ending_ == StreamEnding::kUntilClose) {
      Send(fd,
           "HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nConnection: close\r\n\r\n"
           "data: one\n\n");
      std::this_thread::sleep_for(50ms);
      Send(fd, "data: two\n\n");
      ::close(fd);
      return;
    }
    const std::string head = "HTTP/1.1 " + std::to_string(status_) +
                             " X\r\nContent-Type: " + type_ +
                             "\r\nTransfer-Encoding: chunked\r\n\r\n";
    Send(fd, head + Chunk("data: one\n\n"));
    if (ending_ != StreamEnding::kComplete) {
      if (ending_ == StreamEnding::kStall) std::this_thread::sleep_for(2s);
      ::close(fd);
      return;
    }
    const bool streams = status_ == 200 && type_ == "text/event-stream";
    const auto until = std::chrono::steady_clock::now() + (streams ? 3s : 0s);
    while (!client_has_first && std::chrono::steady_clock::now() < until)
      std::this_thread::sleep_for(5ms);
    waited_for_client = client_has_first.load();
    Send(fd, Chunk("data: two\n\n") + Chunk("data: [DONE]\n\n") + "0\r\n\r\n");
    ::close(fd);
  }

  int status_;
  std::string type_;
  StreamEnding ending_;
  int listener_ = -1;
  int port_ = 0;
  std::thread thread_;
};

TEST(HttpClientEventStream, HandsOverEachPieceAsItArrives) {
  asio::io_context io;
  HttpClient client(io.get_executor(), HttpClientOptions{});
  EventStreamServer server;
  std::string heard;
  HttpClientRequest request;
  request.method = "POST";
  request.url = server.url();
  request.on_event_stream = [&](std::string_view piece) {
    heard.append(piece);
    if (heard.find("one") != std::string::npos) server.client_has_first = true;
  };
  const auto response = RunAsync(io, client.Send(std::move(request)));
  ASSERT_TRUE(response) << response.error().message;
  EXPECT_EQ(response->status, 200);
  EXPECT_TRUE(server.waited_for_client);  // the first event was handed over before the second
  EXPECT_EQ(heard, "data: one\n\ndata: two\n\ndata: [DONE]\n\n");
  EXPECT_TRUE(response->body.empty());
}

TEST(HttpClientEventStream, AnyOtherAnswerIsReadWhole) {
  for (const auto& [status, type] : {std::pair{429, std::string("text/event-stream")},
                                     std::pair{200, std::string("application/json")}}) {
    asio::io_context io;
    HttpClient client(io.get_executor(), HttpClientOptions{});
    EventStreamServer server(status, type);
    bool called = false;
    HttpClientRequest request;
    request.url = server.url();
    request.on_event_stream = [&](std::string_view) { called = true; };
    const auto response = RunAsync(io, client.Send(std::move(request)));
    ASSERT_TRUE(response) << response.error().message;
    EXPECT_EQ(response->status, status);
    EXPECT_FALSE(called);
    EXPECT_EQ(response->body, "data: one\n\ndata: two\n\ndata: [DONE]\n\n");
  }
}

TEST(HttpClientEventStream, AStreamCutBeforeItsEndIsAnError) {
  asio::io_context io;
  HttpClient client(io.get_executor(), HttpClientOptions{});
  EventStreamServer server(200, "text/event-stream", StreamEnding::kCut);
  std::string heard;
  HttpClientRequest request;
  request.url = server.url();
  request.on_event_stream = [&](std::string_view piece) { heard.append(piece); };
  const auto response = RunAsync(io, client.Send(std::move(request)));
  ASSERT_FALSE(response);
  EXPECT_EQ(heard, "data: one\n\n");
}

TEST(HttpClientEventStream, AStreamThatRunsToTheConnectionsCloseIsWhole) {
  asio::io_context io;
  HttpClient client(io.get_executor(), HttpClientOptions{});
  EventStreamServer server(200, "text/event-stream", StreamEnding::kUntilClose);
  std::string heard;
  HttpClientRequest request;
  request.url = server.url();
  request.on_event_stream = [&](std::string_view piece) { heard.append(piece); };
  const auto response = RunAsync(io, client.Send(std::move(request)));
  ASSERT_TRUE(response) << response.error().message;
  EXPECT_EQ(heard, "data: one\n\ndata: two\n\n");
}

TEST(HttpClientEventStream, AStalledStreamEndsAtTheCallsDeadline) {
  asio::io_context io;
  HttpClient client(io.get_executor(), HttpClientOptions{});
  EventStreamServer server(200, "text/event-stream", StreamEnding::kStall);
  std::string heard;
  HttpClientRequest request;
  request.url = server.url();
  request.timeout = 300ms;
  request.on_event_stream = [&](std::string_view piece) { heard.append(piece); };
  const auto started = std::chrono::steady_clock::now();
  const auto response = RunAsync(io, client.Send(std::move(request)));
  ASSERT_FALSE(response);
  EXPECT_EQ(heard, "data: one\n\n");  // what came before the stall was handed over
  EXPECT_LT(std::chrono::steady_clock::now() - started, 1500ms);
}

class HttpsClientTest : public ::testing::Test {
 protected:
  std::string dir_ =
      (std::filesystem::temp_directory_path() / ("agentgate-tls-" + std::to_string(::getpid())))
          .string();
  TlsTestServer server_{dir_};
  asio::io_context io_;
};

TEST_F(HttpsClientTest, VerifiesTheCertificateAndTheHostName) {
  HttpClientOptions trusting;
  trusting.extra_ca_file = server_.certificate_file();
  HttpClient client(io_.get_executor(), trusting);
  const std::string port = std::to_string(server_.port());
  auto ok = RunAsync(io_, client.Send(HttpClientRequest{
                              "GET", "https://localhost:" + port + "/hello", {}, "", 5000ms}));
  ASSERT_TRUE(ok) << ok.error().message;
  EXPECT_EQ(ok->body, R"({"tls":true,"path":"/hello"})");
  ASSERT_TRUE(RunAsync(io_, client.Send(HttpClientRequest{
                                "GET", "https://localhost:" + port + "/again", {}, "", 5000ms})));
  EXPECT_EQ(client.ConnectionsOpened(), 1u);

  // The certificate names localhost, not 127.0.0.1.
  auto wrong_name = RunAsync(io_, client.Send(HttpClientRequest{
                                      "GET", "https://127.0.0.1:" + port + "/", {}, "", 5000ms}));
  ASSERT_FALSE(wrong_name);
  EXPECT_NE(wrong_name.error().message.find("TLS handshake"), std::string::npos)
      << wrong_name.error().message;

  HttpClient system_only(io_.get_executor(), HttpClientOptions{});
  auto untrusted = RunAsync(io_, system_only.Send(HttpClientRequest{
                                     "GET", "https://localhost:" + port + "/", {}, "", 5000ms}));
  ASSERT_FALSE(untrusted);
  EXPECT_NE(untrusted.error().message.find("TLS handshake"), std::string::npos);
}

// The test server's certificate directory goes with it: test runs leave nothing in /tmp.
TEST(TlsTestServer, RemovesItsCertificateDirectoryWhenDestroyed) {
  const auto dir = std::filesystem::temp_directory_path() /
                   ("agentgate-tls-removed-" + std::to_string(::getpid()));
  {
    const TlsTestServer server(dir.string());
    ASSERT_TRUE(std::filesystem::exists(server.certificate_file()));
  }
  EXPECT_FALSE(std::filesystem::exists(dir));
}

}  // namespace
}  // namespace agentgate::testing
