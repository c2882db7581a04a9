// The real router (every route, real use cases, a real SQLite file) inside the real server:
// the OpenAPI document matches the route table, and shutdown drains in-flight requests.
#include "adapters/http_client/http_client.hpp"
#include "adapters/http_server/handlers/route_deps.hpp"
#include "adapters/http_server/server.hpp"
#include "adapters/mcp_client/mcp_client.hpp"
#include "observability/log.hpp"
#include "store/store_backends.hpp"
#include "support/manual_clock.hpp"
#include "support/run_async.hpp"

#include <gtest/gtest.h>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <boost/asio/write.hpp>
#include <boost/json/parse.hpp>

#include <atomic>
#include <set>

namespace agentgate::http {
extern const char* const kOpenApiDocument;
}

namespace agentgate::testing {
namespace {

namespace asio = boost::asio;
using namespace std::chrono_literals;

class ServerRoutesTest : public ::testing::Test {
 protected:
  ServerRoutesTest() { log::SetEnabled(false); }

  void SetUp() override {
    DeclareAgentgateMetrics(metrics_);
    router_ = http::BuildRouter(deps_);
  }

  void StartServer(http::ServerOptions options = {}) {
    server_ = std::make_unique<http::Server>(loop_.io(), router_, metrics_, options);
    base_ = "http://" + server_->Listen("127.0.0.1:0").value();
    server_->Start();
  }
  // A plain socket to the started server, for what the HTTP client would hide (sends, framing).
  asio::ip::tcp::socket ConnectRaw(asio::io_context& io) const {
    asio::ip::tcp::socket raw(io);
    const auto colon = base_.rfind(':');
    raw.connect({asio::ip::make_address("127.0.0.1"),
                 static_cast<unsigned short>(std::stoi(base_.substr(colon + 1)))});
    return raw;
  }

  void TearDown() override {
    loop_.Stop();
    server_.reset();
    pool_.join();
  }

  SqliteBackend backend_;
  std::unique_ptr<Store> store_ = backend_.Open();
  asio::thread_pool pool_{2};
  StoreRunner runner_{*store_, pool_};
  ManualClock clock_{1763700000000};
  Metrics metrics_;
  TenantDirectory tenants_{runner_, clock_};
  ServerLease lease_{runner_, clock_};
  SpendLedger spend_{runner_, {}, &lease_};
  AdminService admin_{
      runner_,      tenants_, spend_, clock_, ProviderCatalog{{{"offline", "offline"}}, {}},
      std::nullopt, false};
  AgentCatalog catalog_{runner_, tenants_};
  ConversationQueue conversations_;
  TurnInterrupts interrupts_;
  asio::io_context http_io_;
  HttpClient http_{http_io_.get_executor(), HttpClientOptions{}};
  MetadataGateway gateway_{runner_,
                           tenants_,
                           http_,
                           std::nullopt,
                           clock_,
                           metrics_,
                           GatewayOptions{std::chrono::seconds(5), false}};
  McpClient mcp_client_{http_};
  ToolHeaders tool_headers_{&runner_, std::nullopt};
  McpToolbox mcp_{mcp_client_, tool_headers_, clock_};
  ToolRunner tools_{runner_, http_, clock_, gateway_, mcp_, tool_headers_};
  TurnCommitter committer_{*store_, 1, 16};
  Idempotency idempotency_{runner_, lease_, clock_, metrics_, std::chrono::seconds(120)};
  ProviderPools providers_;
  InvokeAgent invoke_{InvokeDeps{runner_,
                                 tenants_,
                                 committer_,
                                 spend_,
                                 catalog_,
                                 conversations_,
                                 interrupts_,
                                 tools_,
                                 mcp_,
                                 idempotency_,
                                 lease_,
                                 providers_,
                                 {},
                                 clock_,
                                 metrics_,
                                 TurnTiming{}}};
  ConsoleSessions console_{clock_, ConsoleSessions::Limits{}};
  AuthorizationServer oauth_{runner_, tenants_, clock_, std::nullopt, {}};
  GatewayCallTally gateway_calls_;
  RunWorker run_worker_{RunWorkerDeps{invoke_,
                                      idempotency_,
                                      tenants_,
                                      runner_,
                                      committer_,
                                      lease_,
                                      clock_,
                                      metrics_,
                                      {http_io_.get_executor()}}};
  Runs runs_{invoke_,    idempotency_, tenants_, runner_,
             committer_, run_worker_,  clock_,   RunsOptions{}};
  StreamRoster streams_{tenants_, StreamLimits{}};
  http::RouteDeps deps_{admin_,
                        invoke_,
                        oauth_,
                        runs_,
                        streams_,
                        gateway_,
                        runner_,
                        tenants_,
                        metrics_,
                        console_,
                        gateway_calls_,
                        std::nullopt,
                        [this] { return server_ && server_->Draining(); }};
  http::Router router_;
  BackgroundLoop loop_;
  std::unique_ptr<http::Server> server_;
  std::string base_;
};

TEST_F(ServerRoutesTest, TheOpenApiDocumentDescribesExactlyTheRouteTable) {
  const auto doc = boost::json::parse(http::kOpenApiDocument);
  std::set<std::string> documented;
  for (const auto& [path, item] : doc.at("paths").as_object()) {
    for (const auto& [method, op] : item.as_object()) {
      std::string upper(method);
      for (auto& c : upper) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
      documented.insert(upper + " " + std::string(path));
      EXPECT_TRUE(op.as_object().contains("responses")) << path;
    }
  }
  std::set<std::string> routed;
  for (const auto& route : router_.routes()) routed.insert(route.method + " " + route.pattern);
  EXPECT_EQ(documented, routed);
}

TEST_F(ServerRoutesTest, ShutdownLetsInFlightRequestsFinishAndTurnsReadinessOff) {
  router_.Add("GET", "/hold", [](http::Request&) -> asio::awaitable<http::Response> {
    asio::steady_timer t(co_await asio::this_coro::executor, 500ms);
    co_await t.async_wait(asio::use_awaitable);
    http::Response r;
    r.body = R"({"held":true})";
    co_return r;
  });
  StartServer();
  asio::io_context client_io;
  HttpClient client(client_io.get_executor(), HttpClientOptions{});
  HttpClientRequest hold;
  hold.url = base_ + "/hold";
  auto pending = asio::co_spawn(client_io, client.Send(hold), asio::use_future);
  std::thread client_thread([&] { client_io.run(); });
  for (int i = 0; i < 200 && server_->ActiveRequests() == 0; ++i) std::this_thread::sleep_for(5ms);
  ASSERT_EQ(server_->ActiveRequests(), 1u);

  server_->BeginShutdown();
  EXPECT_TRUE(server_->Draining());
  http::Request probe;
  auto ready = RunAsync(client_io, router_.Find("GET", "/readyz").route->handler(probe));
  EXPECT_EQ(ready.status, 503);

  auto response = pending.get();
  client_thread.join();
  ASSERT_TRUE(response) << response.error().message;
  EXPECT_EQ(response->status, 200);
  EXPECT_EQ(response->body, R"({"held":true})");
  EXPECT_EQ(response->Header("connection"), "close");
  for (int i = 0; i < 200 && server_->OpenConnections() > 0; ++i) std::this_thread::sleep_for(5ms);
  EXPECT_EQ(server_->OpenConnections(), 0u);
  EXPECT_EQ(server_->ActiveRequests(), 0u);

  // New connections are refused once draining began.
  asio::io_context late_io;
  HttpClient late(late_io.get_executor(), HttpClientOptions{});
  HttpClientRequest after;
  after.url = base_ + "/healthz";
  after.timeout = 2000ms;
  EXPECT_FALSE(RunAsync(late_io, late.Send(after)));
}

// A streamed body goes out chunk by chunk as the handler writes it; a client that leaves is seen
// by the handler's next writes, which then fail.
TEST_F(ServerRoutesTest, AStreamedResponseIsChunkedAndItsWriterLearnsTheClientLeft) {
  std::atomic<bool> client_gone{false};
  router_.Add("GET", "/stream", [&](http::Request&) -> asio::awaitable<http::Response> {
    http::Response r;
    r.content_type = "text/event-stream";
    r.stream = [&](http::ResponseStream& out) -> asio::awaitable<void> {
      co_await out.Write("data: one\n\n");
      asio::steady_timer pause(co_await asio::this_coro::executor, 20ms);
      co_await pause.async_wait(asio::use_awaitable);
      co_await out.Write("data: two\n\n");
    };
    co_return r;
  });
  router_.Add("GET", "/forever", [&](http::Request&) -> asio::awaitable<http::Response> {
    http::Response r;
    r.content_type = "text/event-stream";
    r.stream = [&](http::ResponseStream& out) -> asio::awaitable<void> {
      for (int i = 0; i < 2000; ++i) {
        if (!co_await out.Write(": tick\n\n")) {
          client_gone = true;
          co_return;
        }
        asio::steady_timer pause(co_await asio::this_coro::executor, 5ms);
        co_await pause.async_wait(asio::use_awaitable);
      }
    };
    co_return r;
  });
  StartServer();
  asio::io_context client_io;
  HttpClient client(client_io.get_executor(), HttpClientOptions{});
  for (int i = 0; i < 2; ++i) {  // the second on the kept-alive connection
    HttpClientRequest get;
    get.url = base_ + "/stream";
    auto response = RunAsync(client_io, client.Send(get));
    ASSERT_TRUE(response) << response.error().message;
    EXPECT_EQ(response->status, 200);
    EXPECT_EQ(response->Header("transfer-encoding"), "chunked");
    EXPECT_EQ(response->body, "data: one\n\ndata: two\n\n");
  }

  asio::ip::tcp::socket raw = ConnectRaw(client_io);
  const std::string request = "GET /forever HTTP/1.1\r\nHost: x\r\n\r\n";
  asio::write(raw, asio::buffer(request));
  char head[256];
  ASSERT_GT(raw.read_some(asio::buffer(head)), 0u);
  raw.close();
  for (int i = 0; i < 400 && !client_gone; ++i) std::this_thread::sleep_for(5ms);
  EXPECT_TRUE(client_gone);
}

// A stream's writes larger than the socket takes at once: what it took goes at once, the rest
// waits for the client, every byte in order for one that reads slowly; one that stops reading is
// cut off at the write timeout, and its writer learns it.
TEST_F(ServerRoutesTest, AStreamsWriteTheSocketCannotTakeWaitsForTheClientWithinTheTimeout) {
  constexpr std::size_t kChunkBytes = 64 * 1024;
  constexpr int kChunks = 48;           // 3 MiB: more than the socket takes at once
  constexpr int kStalledChunks = 1024;  // 64 MiB: more than any socket buffers hold
  std::atomic<int> written{0};
  std::atomic<bool> refused{false};
  const auto chunks_of = [&](int count) {
    return [&, count](http::Request&) -> asio::awaitable<http::Response> {
      http::Response r;
      r.content_type = "text/event-stream";
      r.stream = [&, count](http::ResponseStream& out) -> asio::awaitable<void> {
        for (int i = 0; i < count; ++i) {
          if (!co_await out.Write(std::string(kChunkBytes, static_cast<char>('a' + i % 26)))) {
            refused = true;
            co_return;
          }
          ++written;
        }
        co_await out.WriteLast("");
      };
      co_return r;
    };
  };
  router_.Add("GET", "/big", chunks_of(kChunks));
  router_.Add("GET", "/huge", chunks_of(kStalledChunks));
  http::ServerOptions options;
  options.read_timeout = std::chrono::seconds(1);
  StartServer(options);
  asio::io_context client_io;
  // A slow reader gets all of it, in order.
  asio::ip::tcp::socket slow = ConnectRaw(client_io);
  asio::write(slow, asio::buffer(std::string("GET /big HTTP/1.1\r\nHost: x\r\n\r\n")));
  std::string body;
  char buffer[16384];
  boost::system::error_code ec;
  while (body.find("\r\n0\r\n\r\n") == std::string::npos) {
    const std::size_t n = slow.read_some(asio::buffer(buffer), ec);
    if (ec) break;
    body.append(buffer, n);
    if (body.size() % 7 == 0) std::this_thread::sleep_for(1ms);
  }
  ASSERT_FALSE(ec) << ec.message();
  EXPECT_EQ(written, kChunks);
  for (int i = 0; i < kChunks; ++i) {
    const std::string chunk(kChunkBytes, static_cast<char>('a' + i % 26));
    EXPECT_NE(body.find("10000\r\n" + chunk + "\r\n"), std::string::npos) << "chunk " << i;
  }
  // One that never reads is cut off once a write has waited the timeout.
  written = 0;
  asio::ip::tcp::socket stalled = ConnectRaw(client_io);
  asio::write(stalled, asio::buffer(std::string("GET /huge HTTP/1.1\r\nHost: x\r\n\r\n")));
  for (int i = 0; i < 1000 && !refused; ++i) std::this_thread::sleep_for(5ms);
  EXPECT_TRUE(refused);
  EXPECT_LT(written, kStalledChunks);
}

// The head leaves with the first chunk and the end with the last chunk: a short stream costs as
// many sends as it has writes, and the connection stays usable after it.
TEST_F(ServerRoutesTest, AStreamsHeadGoesWithItsFirstChunkAndItsEndWithItsLast) {
  router_.Add("GET", "/two", [&](http::Request&) -> asio::awaitable<http::Response> {
    http::Response r;
    r.content_type = "text/event-stream";
    r.stream = [&](http::ResponseStream& out) -> asio::awaitable<void> {
      asio::steady_timer pause(co_await asio::this_coro::executor, 30ms);
      co_await pause.async_wait(asio::use_awaitable);  // the head waits for the first chunk
      co_await out.Write("data: one\n\n");
      pause.expires_after(30ms);
      co_await pause.async_wait(asio::use_awaitable);
      co_await out.WriteLast("data: two\n\n");
      EXPECT_FALSE(co_await out.Write("data: late\n\n"));  // nothing after the last
    };
    co_return r;
  });
  StartServer();
  asio::io_context client_io;
  asio::ip::tcp::socket raw = ConnectRaw(client_io);
  const std::string request = "GET /two HTTP/1.1\r\nHost: x\r\n\r\n";
  auto read_once = [&raw] {
    char buffer[1024];
    return std::string(buffer, raw.read_some(asio::buffer(buffer)));
  };
  asio::write(raw, asio::buffer(request));
  const std::string first = read_once();
  EXPECT_EQ(first.rfind("HTTP/1.1 200", 0), 0u) << first;
  EXPECT_TRUE(first.ends_with("\r\n\r\nb\r\ndata: one\n\n\r\n")) << first;
  const std::string second = read_once();
  EXPECT_EQ(second, "b\r\ndata: two\n\n\r\n0\r\n\r\n");
  // Kept alive: the next request on the same connection is answered.
  asio::write(raw, asio::buffer(request));
  EXPECT_EQ(read_once().rfind("HTTP/1.1 200", 0), 0u);
}

// A stream whose first write is its last (a quick run's every event) is one plain response with
// its length: nothing to unchunk, and the connection stays usable after it.
TEST_F(ServerRoutesTest, AStreamWrittenWhollyAtOnceIsOnePlainResponseWithItsLength) {
  router_.Add("GET", "/whole", [&](http::Request&) -> asio::awaitable<http::Response> {
    http::Response r;
    r.content_type = "text/event-stream";
    r.stream = [&](http::ResponseStream& out) -> asio::awaitable<void> {
      co_await out.WriteLast("data: all\n\n");
      EXPECT_FALSE(co_await out.Write("data: late\n\n"));  // nothing after the last
    };
    co_return r;
  });
  router_.Add("GET", "/empty", [&](http::Request&) -> asio::awaitable<http::Response> {
    http::Response r;
    r.content_type = "text/event-stream";
    r.stream = [&](http::ResponseStream&) -> asio::awaitable<void> { co_return; };
    co_return r;
  });
  StartServer();
  asio::io_context client_io;
  asio::ip::tcp::socket raw = ConnectRaw(client_io);
  auto exchange = [&raw](const std::string& path) {
    asio::write(raw, asio::buffer("GET " + path + " HTTP/1.1\r\nHost: x\r\n\r\n"));
    char buffer[1024];
    return std::string(buffer, raw.read_some(asio::buffer(buffer)));
  };
  const std::string whole = exchange("/whole");
  EXPECT_EQ(whole.rfind("HTTP/1.1 200", 0), 0u) << whole;
  EXPECT_NE(whole.find("\r\nContent-Length: 11\r\n"), std::string::npos) << whole;
  EXPECT_EQ(whole.find("Transfer-Encoding"), std::string::npos) << whole;
  EXPECT_TRUE(whole.ends_with("\r\n\r\ndata: all\n\n")) << whole;
  const std::string empty = exchange("/empty");  // on the same connection
  EXPECT_NE(empty.find("\r\nContent-Length: 0\r\n"), std::string::npos) << empty;
  EXPECT_TRUE(empty.ends_with("\r\n\r\n")) << empty;
}

TEST_F(ServerRoutesTest, ReadinessFollowsTheStore) {
  StartServer();
  http::Request probe;
  asio::io_context io;
  EXPECT_EQ(RunAsync(io, router_.Find("GET", "/readyz").route->handler(probe)).status, 200);
}

}  // namespace
}  // namespace agentgate::testing
