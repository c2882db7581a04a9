// The MCP client and its tool-list cache against a real MCP endpoint on loopback: our own HTTP
// server answering the 2026-07-28 wire format (a JSON body per request, or an SSE stream).
#include "app/turn/mcp_toolbox.hpp"
#include "adapters/http_client/http_client.hpp"
#include "adapters/http_server/server.hpp"
#include "adapters/mcp_client/mcp_client.hpp"
#include "observability/log.hpp"
#include "observability/metrics.hpp"
#include "support/manual_clock.hpp"
#include "support/run_async.hpp"

#include <gtest/gtest.h>
#include <boost/json/parse.hpp>
#include <boost/json/serialize.hpp>

#include <atomic>
#include <mutex>

namespace agentgate::testing {
namespace {

namespace asio = boost::asio;
namespace json = boost::json;
using namespace std::chrono_literals;

class McpToolboxTest : public ::testing::Test {
 protected:
  void SetUp() override {
    log::SetEnabled(false);
    DeclareAgentgateMetrics(metrics_);
    router_.Add("POST", "/mcp", [this](http::Request& r) -> asio::awaitable<http::Response> {
      co_return Answer(r);
    });
    server_ = std::make_unique<http::Server>(loop_.io(), router_, metrics_, http::ServerOptions{});
    url_ = "http://" + server_->Listen("127.0.0.1:0").value() + "/mcp";
    server_->Start();
  }

  void TearDown() override {
    loop_.Stop();
    server_.reset();
  }

  // A modern MCP server: tools/list (ttlMs 60 s) and tools/call of "lookup"; a call answers over
  // SSE with a list_changed notification before its result when `sse_` is set.
  http::Response Answer(http::Request& r) {
    if (failing_) {
      std::lock_guard lock(mutex_);
      seen_.push_back("failed");
      return http::Response{503, "text/plain", "down for maintenance", {}};
    }
    const auto request = json::parse(r.body).as_object();
    const std::string method(request.at("method").as_string());
    {
      std::lock_guard lock(mutex_);
      seen_.push_back(method + " " + std::string(r.Header("mcp-protocol-version").value_or("")) +
                      " " + std::string(r.Header("mcp-name").value_or("-")));
    }
    json::object result;
    if (method == "tools/list") {
      result = json::object{
          {"tools", json::array{json::object{{"name", "lookup"},
                                             {"description", "Looks up"},
                                             {"inputSchema", json::object{{"type", "object"}}}}}},
          {"ttlMs", 60000},
          {"resultType", "complete"}};
    } else if (asks_ && !request.at("params").as_object().contains("requestState")) {
      // It asks the user to confirm first, once the client declared form elicitation.
      asked_with_ =
          request.at("params").at("_meta").at("io.modelcontextprotocol/clientCapabilities");
      result = json::object{
          {"resultType", "input_required"},
          {"inputRequests",
           json::object{
               {"confirm",
                json::object{{"method", "elicitation/create"},
                             {"params", json::object{{"mode", "form"},
                                                     {"message", "Really look it up?"},
                                                     {"requestedSchema", kConfirmSchema}}}}}}},
          {"requestState", "state \"1\""}};
    } else if (asks_) {
      const auto& params = request.at("params").as_object();
      const auto& response = params.at("inputResponses").at("confirm");
      const std::string text = params.at("requestState") == "state \"1\""
                                   ? "confirmed: " + json::serialize(response)
                                   : "the request state came back altered";
      result =
          json::object{{"content", json::array{json::object{{"type", "text"}, {"text", text}}}},
                       {"resultType", "complete"}};
    } else {
      result = json::object{
          {"content", json::array{json::object{{"type", "text"}, {"text", "found it"}}}},
          {"resultType", "complete"}};
    }
    const std::string reply = json::serialize(
        json::object{{"jsonrpc", "2.0"}, {"id", request.at("id")}, {"result", result}});
    http::Response out;
    if (sse_ && method == "tools/call") {
      out.content_type = "text/event-stream";
      out.body =
          "data: {\"jsonrpc\":\"2.0\",\"method\":\"notifications/tools/list_changed\"}\n\n"
          "data: " +
          reply + "\n\n";
    } else {
      out.body = reply;
    }
    return out;
  }

  AgentConfig AgentWith(std::string header_value) {
    AgentConfig config;
    McpServerTool server;
    server.name = "docs";
    server.url = url_;
    server.headers["X-Key"] = HeaderValue{std::move(header_value), "", ""};
    config.mcp_servers.push_back(server);
    return config;
  }

  static inline const json::value kConfirmSchema = json::parse(
      R"({"type":"object","properties":{"confirm":{"type":"boolean"}},"required":["confirm"]})");

  std::vector<std::string> Seen() {
    std::lock_guard lock(mutex_);
    return seen_;
  }

  McpTurnTools ToolsFor(McpToolbox& toolbox, const AgentConfig& config) {
    return RunAsync(client_io_, toolbox.ToolsFor("acme", config, clock_.SteadyNow() + 5s));
  }

  Metrics metrics_;
  http::Router router_;
  BackgroundLoop loop_;
  std::unique_ptr<http::Server> server_;
  std::string url_;
  std::mutex mutex_;
  std::vector<std::string> seen_;
  std::atomic<bool> asks_{false};  // tools/call asks the user first (input_required)
  json::value asked_with_;         // the client capabilities of the call that was asked
  std::atomic<bool> sse_{false};
  std::atomic<bool> failing_{false};
  asio::io_context client_io_;
  HttpClient http_{client_io_.get_executor(), HttpClientOptions{}};
  ManualClock clock_;
  ToolHeaders headers_{nullptr, std::nullopt};
};

TEST_F(McpToolboxTest, ListsOnceUntilTheServersTtlAndCallsWithTheMirroredHeaders) {
  McpClient client(http_);
  McpToolbox toolbox(client, headers_, clock_);
  const auto config = AgentWith("k1");
  auto tools = ToolsFor(toolbox, config);
  ASSERT_EQ(tools.offered.size(), 1u) << (tools.notes.empty() ? "" : tools.notes[0]);
  EXPECT_EQ(tools.offered[0].name, "docs__lookup");
  ToolsFor(toolbox, config);
  EXPECT_EQ(Seen().size(), 1u);  // cached

  const auto& target = tools.by_model_name.at("docs__lookup");
  const std::string text =
      RunAsync(client_io_, toolbox.Call(target, "{}", clock_.SteadyNow() + 5s, 8000)).text;
  EXPECT_EQ(text, "found it");
  EXPECT_EQ(Seen().back(), "tools/call 2026-07-28 lookup");

  clock_.now_ms += 61'000;  // past the server's ttlMs
  ToolsFor(toolbox, config);
  EXPECT_EQ(Seen().size(), 3u);
}

TEST_F(McpToolboxTest, AListChangedNotificationOnACallsStreamRefreshesTheList) {
  McpClient client(http_);
  McpToolbox toolbox(client, headers_, clock_);
  const auto config = AgentWith("k1");
  auto tools = ToolsFor(toolbox, config);
  sse_ = true;
  const std::string text = RunAsync(client_io_, toolbox.Call(tools.by_model_name.at("docs__lookup"),
                                                             "{}", clock_.SteadyNow() + 5s, 8000))
                               .text;
  EXPECT_EQ(text, "found it");  // read from the event stream
  ToolsFor(toolbox, config);
  const auto seen = Seen();
  ASSERT_EQ(seen.size(), 3u);
  EXPECT_EQ(seen[2].substr(0, 10), "tools/list");
}

// A 2026-07-28 server's input_required: one form becomes the question the turn asks its user,
// and the answer goes back with the server's request state byte for byte (docs/mcp.md).
TEST_F(McpToolboxTest, AServersFormIsAskedAndAnsweredWithItsExactRequestState) {
  McpClient client(http_);
  McpToolbox toolbox(client, headers_, clock_);
  auto tools = ToolsFor(toolbox, AgentWith("k1"));
  const auto& target = tools.by_model_name.at("docs__lookup");
  asks_ = true;
  auto asked = RunAsync(client_io_, toolbox.Call(target, "{}", clock_.SteadyNow() + 5s, 8000));
  ASSERT_TRUE(asked.ask) << asked.text;
  EXPECT_EQ(asked_with_, json::parse(R"({"elicitation":{"form":{}}})"));
  EXPECT_EQ(asked.ask->input_key, "confirm");
  EXPECT_EQ(asked.ask->question, "Really look it up?");
  EXPECT_EQ(asked.ask->answer_schema, kConfirmSchema);

  const McpToolbox::InputAnswer yes{*asked.ask, json::parse(R"({"confirm":true})")};
  auto answered = RunAsync(
      client_io_, toolbox.Call(target, "{}", clock_.SteadyNow() + 5s, 8000, nullptr, &yes));
  EXPECT_FALSE(answered.ask);
  EXPECT_EQ(answered.text, R"(confirmed: {"action":"accept","content":{"confirm":true}})");
  const McpToolbox::InputAnswer no{*asked.ask, std::nullopt};
  auto declined =
      RunAsync(client_io_, toolbox.Call(target, "{}", clock_.SteadyNow() + 5s, 8000, nullptr, &no));
  EXPECT_EQ(declined.text, R"(confirmed: {"action":"decline"})");
}

TEST_F(McpToolboxTest, TheCachesAreBounded) {
  McpClient client(http_, nullptr, 3);
  McpToolbox toolbox(client, headers_, clock_, 3);
  for (int i = 0; i < 10; ++i) ToolsFor(toolbox, AgentWith("key-" + std::to_string(i)));
  EXPECT_LE(toolbox.CachedServers(), 3u);
  EXPECT_LE(client.ServersKnown(), 3u);
  EXPECT_EQ(Seen().size(), 10u);
}

TEST_F(McpToolboxTest, AServerThatIsDownIsLeftOutWithANote) {
  McpClient client(http_);
  McpToolbox toolbox(client, headers_, clock_);
  AgentConfig config = AgentWith("k1");
  config.mcp_servers[0].url = "http://127.0.0.1:1/mcp";
  auto tools = ToolsFor(toolbox, config);
  EXPECT_TRUE(tools.offered.empty());
  ASSERT_EQ(tools.notes.size(), 1u);
  EXPECT_EQ(tools.notes[0].rfind("mcp server 'docs' left out:", 0), 0u) << tools.notes[0];
}

TEST_F(McpToolboxTest, AFailedListIsRetriedAfterFiveSecondsNotOnEveryTurn) {
  McpClient client(http_);
  McpToolbox toolbox(client, headers_, clock_);
  const auto config = AgentWith("k1");
  failing_ = true;
  auto tools = ToolsFor(toolbox, config);
  ASSERT_EQ(tools.notes.size(), 1u);
  EXPECT_NE(tools.notes[0].find("HTTP 503"), std::string::npos) << tools.notes[0];
  failing_ = false;
  EXPECT_TRUE(ToolsFor(toolbox, config).offered.empty());  // the failure is kept
  EXPECT_EQ(Seen(), std::vector<std::string>{"failed"});
  clock_.now_ms += 5'001;
  EXPECT_EQ(ToolsFor(toolbox, config).offered.size(), 1u);
}

}  // namespace
}  // namespace agentgate::testing
