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

#include <filesystem>

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

TEST_F(HttpClientTest, ReusesConnectionsPerOrigin) {
  for (int i = 0; i < 5; ++i) ASSERT_TRUE(Send(client_, Request("POST", "/echo")));
  EXPECT_EQ(client_.ConnectionsOpened(), 1u);
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

}  // namespace
}  // namespace agentgate::testing
