#include "domain/mcp/mcp_server.hpp"

#include <gtest/gtest.h>
#include <boost/json/parse.hpp>

namespace agentgate::mcp {
namespace {

namespace json = boost::json;

IncomingMessage Read(std::string_view body) {
  auto read = ReadIncoming(body);
  EXPECT_TRUE(std::holds_alternative<IncomingMessage>(read)) << body;
  return std::get<IncomingMessage>(read);
}

std::int64_t RefusalCode(const std::variant<Era, Refusal>& checked) {
  return std::holds_alternative<Refusal>(checked) ? std::get<Refusal>(checked).error.code : 0;
}

constexpr std::string_view kModernCall = R"({"jsonrpc":"2.0","id":1,"method":"tools/call",
  "params":{"name":"helper","arguments":{"message":"hi"},
            "_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28"}}})";

TEST(McpServerWire, ReadsRequestsAndNotificationsAndRefusesTheRest) {
  auto call = Read(kModernCall);
  EXPECT_EQ(call.method, "tools/call");
  EXPECT_FALSE(call.notification);
  EXPECT_EQ(call.id, 1);
  EXPECT_TRUE(Read(R"({"jsonrpc":"2.0","method":"notifications/initialized"})").notification);
  for (std::string_view bad :
       {"{", "[]", R"({"jsonrpc":"1.0","id":1,"method":"x"})",
        R"({"jsonrpc":"2.0","id":1.5,"result":{}})", R"({"jsonrpc":"2.0","id":1.5,"method":"x"})",
        R"({"jsonrpc":"2.0","id":1,"method":"x","params":[1]})"}) {
    EXPECT_TRUE(std::holds_alternative<Refusal>(ReadIncoming(bad))) << bad;
  }
  EXPECT_EQ(std::get<Refusal>(ReadIncoming("{")).error.code, kParseError);
  // A response to a request of ours: its result, or null for an error.
  const auto answered = Read(R"({"jsonrpc":"2.0","id":"e1","result":{"action":"decline"}})");
  EXPECT_TRUE(answered.response);
  EXPECT_EQ(answered.id, "e1");
  EXPECT_EQ(answered.result.at("action"), "decline");
  const auto failed = Read(R"({"jsonrpc":"2.0","id":"e1","error":{"code":-1,"message":"no"}})");
  EXPECT_TRUE(failed.response);
  EXPECT_TRUE(failed.result.is_null());
}

TEST(McpServerWire, AModernRequestsHeadersMustMatchItsBody) {
  const auto call = Read(kModernCall);
  const TransportHeaders good{"2026-07-28", "tools/call", "helper"};
  auto era = EraOf(call, good);
  ASSERT_TRUE(std::holds_alternative<Era>(era));
  EXPECT_TRUE(std::get<Era>(era).modern);
  EXPECT_EQ(RefusalCode(EraOf(call, {"2026-07-28", "tools/call", "=?base64?aGVscGVy?="})), 0);
  EXPECT_EQ(RefusalCode(EraOf(call, {"2026-07-28", "tools/list", "helper"})), kHeaderMismatch);
  EXPECT_EQ(RefusalCode(EraOf(call, {"2026-07-28", "tools/call", "other"})), kHeaderMismatch);
  EXPECT_EQ(RefusalCode(EraOf(call, {std::nullopt, "tools/call", "helper"})), kHeaderMismatch);
  const auto future = Read(R"({"jsonrpc":"2.0","id":1,"method":"tools/list",
      "params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2099-01-01"}}})");
  auto refused = EraOf(future, {"2099-01-01", "tools/list", std::nullopt});
  ASSERT_EQ(RefusalCode(refused), kUnsupportedProtocolVersion);
  EXPECT_EQ(std::get<Refusal>(refused).error.data.at("supported").as_array().size(), 4u);
}

TEST(McpServerWire, LegacyRequestsNameTheirVersionInTheHeader) {
  const auto init = Read(R"({"jsonrpc":"2.0","id":0,"method":"initialize","params":{
      "protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"c","version":"1"}}})");
  auto era = EraOf(init, {});
  ASSERT_TRUE(std::holds_alternative<Era>(era));
  EXPECT_FALSE(std::get<Era>(era).modern);
  EXPECT_EQ(InitializeResult(init.params, "1").at("protocolVersion"), "2025-06-18");
  const auto old = Read(R"({"jsonrpc":"2.0","id":0,"method":"initialize","params":{
      "protocolVersion":"2024-11-05"}})");
  EXPECT_EQ(InitializeResult(old.params, "1").at("protocolVersion"), "2025-11-25");
  const auto list = Read(R"({"jsonrpc":"2.0","id":1,"method":"tools/list"})");
  EXPECT_EQ(std::get<Era>(EraOf(list, {})).version, "2025-03-26");  // no header: the oldest
  EXPECT_EQ(RefusalCode(EraOf(list, {"2024-11-05", std::nullopt, std::nullopt})),
            kUnsupportedProtocolVersion);
}

TEST(McpServerWire, ResultsCarryResultTypeOnlyInTheModernEra) {
  const auto modern = Finished(CallToolResult("hi", {}, false), Era{true, "2026-07-28"});
  EXPECT_EQ(modern.at("resultType"), "complete");
  EXPECT_FALSE(modern.contains("structuredContent"));
  const auto legacy = Finished(CallToolResult("stopped", json::object{{"blocked", true}}, true),
                               Era{false, "2025-11-25"});
  EXPECT_FALSE(legacy.contains("resultType"));
  EXPECT_EQ(legacy.at("isError"), true);
  EXPECT_EQ(legacy.at("structuredContent").at("blocked"), true);
  const auto schema = AgentInputSchema(true);
  EXPECT_EQ(schema.at("required").as_array().size(), 2u);
  EXPECT_EQ(AgentInputSchema(false).at("required").as_array().size(), 1u);
}

TEST(McpServerWire, AnAgentWithAnOutputSchemaListsItsResultsSchema) {
  const auto answer =
      json::parse(R"({"type": "object", "properties": {"ok": {"type": "boolean"}}})");
  const auto listed = ToolsListResult(
      {ToolDescription{"a", "A", AgentInputSchema(false), AgentOutputSchema(answer)},
       ToolDescription{"b", "B", AgentInputSchema(false)}});
  const auto& tools = listed.at("tools").as_array();
  const auto& schema = tools[0].at("outputSchema");
  EXPECT_EQ(schema.at("type"), "object");
  EXPECT_EQ(schema.at("properties").at("output").at("anyOf").at(0), answer);
  EXPECT_FALSE(tools[1].as_object().contains("outputSchema"));
}

TEST(McpServerWire, ProgressTokensStepsAndNotifications) {
  EXPECT_FALSE(ProgressToken(json::object{}));
  EXPECT_FALSE(ProgressToken(json::parse(R"({"_meta":{"progressToken":1.5}})").as_object()));
  EXPECT_EQ(*ProgressToken(json::parse(R"({"_meta":{"progressToken":"t-1"}})").as_object()),
            json::value("t-1"));
  EXPECT_EQ(*ProgressToken(json::parse(R"({"_meta":{"progressToken":7}})").as_object()),
            json::value(7));
  EXPECT_EQ(ProgressMessage("model.started", R"({"call":1})"), "model call 1 started");
  EXPECT_EQ(ProgressMessage("model.finished", R"({"call":2,"failure":"transient"})"),
            "model call 2 failed (transient)");
  EXPECT_EQ(ProgressMessage("tool.started", R"({"call_id":"c","name":"lookup"})"),
            "tool lookup started");
  EXPECT_EQ(ProgressMessage("tool.finished", R"({"name":"lookup","ok":false,"ms":3})"),
            "tool lookup failed");
  EXPECT_EQ(ProgressMessage("text.delta", R"({"text":"secret words"})"), "reply written");
  EXPECT_FALSE(ProgressMessage("action", R"({"name":"x"})"));
  EXPECT_FALSE(ProgressMessage("model.started", "not json"));
  const auto note = json::parse(ProgressNotification(json::value("t-1"), 3, "tool x started"));
  EXPECT_EQ(note.at("method"), "notifications/progress");
  EXPECT_FALSE(note.as_object().contains("id"));
  EXPECT_EQ(note.at("params").at("progressToken"), "t-1");
  EXPECT_EQ(note.at("params").at("progress"), 3);
  EXPECT_EQ(SseMessage("{}"), "event: message\ndata: {}\n\n");
}

}  // namespace
}  // namespace agentgate::mcp
