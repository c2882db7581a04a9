#include "domain/mcp/json_rpc.hpp"
#include "domain/mcp/mcp_origin.hpp"
#include "domain/mcp/mcp_tools.hpp"

#include <gtest/gtest.h>
#include <boost/json/parse.hpp>

namespace agentgate::mcp {
namespace {

namespace json = boost::json;

TEST(McpWire, SseEventsJoinDataLinesAndSkipComments) {
  const std::string stream =
      ": keep-alive\r\n\r\nevent: message\r\nid: 7\r\ndata: {\"a\":\r\ndata: 1}\r\n\r\n"
      "data:{\"b\":2}\n\ndata: {\"cut\":3}";
  const auto events = SseEvents(stream);
  ASSERT_EQ(events.size(), 3u);
  EXPECT_EQ(events[0], "{\"a\":\n1}");
  EXPECT_EQ(events[1], "{\"b\":2}");
  EXPECT_EQ(events[2], "{\"cut\":3}");
}

TEST(McpWire, ReadsTheReplyToItsRequestFromAnEventStream) {
  const std::string stream =
      "data: {\"jsonrpc\":\"2.0\",\"method\":\"notifications/progress\",\"params\":{}}\n\n"
      "data: {\"jsonrpc\":\"2.0\",\"method\":\"notifications/tools/list_changed\"}\n\n"
      "data: {\"jsonrpc\":\"2.0\",\"id\":6,\"result\":{\"x\":0}}\n\n"
      "data: {\"jsonrpc\":\"2.0\",\"id\":7,\"result\":{\"x\":1}}\n\n";
  auto reply = ReadReply("text/event-stream", stream, 7);
  ASSERT_TRUE(reply) << reply.error().message;
  ASSERT_TRUE(reply->result);
  EXPECT_EQ(reply->result->at("x"), 1);
  EXPECT_TRUE(reply->tools_list_changed);

  auto cut =
      ReadReply("text/event-stream", "data: {\"jsonrpc\":\"2.0\",\"id\":6,\"result\":{}}\n\n", 7);
  EXPECT_FALSE(cut);
}

TEST(McpWire, ReadsJsonRepliesAndErrors) {
  auto ok = ReadReply("application/json", R"({"jsonrpc":"2.0","id":"3","result":{"tools":[]}})", 3);
  ASSERT_TRUE(ok);
  EXPECT_TRUE(ok->result);
  auto failed = ReadReply("application/json; charset=utf-8",
                          R"({"jsonrpc":"2.0","id":3,"error":{"code":-32602,"message":"no"}})", 3);
  ASSERT_TRUE(failed);
  ASSERT_TRUE(failed->error);
  EXPECT_EQ(failed->error->code, kInvalidParams);
  EXPECT_FALSE(ReadReply("application/json", "<html>", 3));
  EXPECT_FALSE(ReadReply("application/json", R"({"jsonrpc":"2.0","id":4,"result":{}})", 3));
}

TEST(McpWire, TellsAModernRefusalFromALegacyOne) {
  auto modern = ErrorInBody(
      R"({"jsonrpc":"2.0","id":1,"error":{"code":-32022,"message":"Unsupported protocol version",
          "data":{"supported":["2025-11-25"]}}})");
  ASSERT_TRUE(modern);
  EXPECT_TRUE(IsModernError(*modern));
  auto legacy = ErrorInBody(
      R"({"jsonrpc":"2.0","id":null,"error":{"code":-32000,"message":"Bad Request: No valid session ID"}})");
  ASSERT_TRUE(legacy);
  EXPECT_FALSE(IsModernError(*legacy));
  EXPECT_FALSE(ErrorInBody("Not Found"));
}

TEST(McpWire, ModernRequestsCarryTheirVersionInMeta) {
  json::object params{{"name", "echo"}, {"_meta", ModernMeta("agentgate", "1")}};
  const auto body = json::parse(RequestBody(9, "tools/call", params));
  EXPECT_EQ(body.at("id"), 9);
  EXPECT_EQ(body.at("params").at("_meta").at("io.modelcontextprotocol/protocolVersion"),
            "2026-07-28");
  EXPECT_FALSE(
      json::parse(NotificationBody("notifications/initialized", {})).as_object().contains("id"));
  EXPECT_TRUE(IsLegacyVersion("2025-06-18"));
  EXPECT_FALSE(IsLegacyVersion("2024-11-05"));
}

TEST(McpWire, ParsesToolListsAndRejectsBadHeaderAnnotations) {
  const auto result = json::parse(R"({
    "tools": [
      {"name": "search", "description": "Search", "inputSchema": {"type": "object",
        "properties": {"region": {"type": "string", "x-mcp-header": "Region"},
                       "filter": {"type": "object", "properties": {
                          "team": {"type": "integer", "x-mcp-header": "Team"}}}}}},
      {"name": "bad", "inputSchema": {"type": "object", "properties": {
         "list": {"type": "array", "items": {"type": "string", "x-mcp-header": "Item"}}}}},
      {"name": "float", "inputSchema": {"type": "object", "properties": {
         "n": {"type": "number", "x-mcp-header": "N"}}}},
      {"name": "twice", "inputSchema": {"type": "object", "properties": {
         "a": {"type": "string", "x-mcp-header": "X"}, "b": {"type": "string", "x-mcp-header": "x"}}}},
      {"name": "bare"}
    ],
    "nextCursor": "p2", "ttlMs": 60000})");
  auto page = ParseToolList(result);
  ASSERT_TRUE(page) << page.error().message;
  ASSERT_EQ(page->tools.size(), 2u);
  EXPECT_EQ(page->tools[0].name, "search");
  ASSERT_EQ(page->tools[0].header_params.size(), 2u);
  EXPECT_EQ(page->tools[1].name, "bare");
  EXPECT_EQ(page->tools[1].input_schema.at("type"), "object");
  EXPECT_EQ(page->rejected.size(), 3u);
  EXPECT_EQ(page->next_cursor, "p2");
  EXPECT_EQ(page->ttl_ms, 60000);
  EXPECT_FALSE(ParseToolList(json::parse(R"({"items": []})")));

  const auto args = json::parse(R"({"region": "Zürich", "filter": {"team": 42}})").as_object();
  const auto headers = ParamHeaders(page->tools[0], args);
  ASSERT_EQ(headers.size(), 2u);
  EXPECT_EQ(headers[0].first, "Mcp-Param-Region");
  EXPECT_EQ(headers[0].second, "=?base64?WsO8cmljaA==?=");
  EXPECT_EQ(headers[1].second, "42");
  EXPECT_TRUE(ParamHeaders(page->tools[0], json::object{{"region", nullptr}}).empty());
}

TEST(McpWire, EncodesHeaderValuesThatAreNotPlainAscii) {
  EXPECT_EQ(EncodedHeaderValue("us-west1"), "us-west1");
  EXPECT_EQ(EncodedHeaderValue("Hello, 世界"), "=?base64?SGVsbG8sIOS4lueVjA==?=");
  EXPECT_EQ(EncodedHeaderValue(" padded "), "=?base64?IHBhZGRlZCA=?=");
  EXPECT_EQ(EncodedHeaderValue("line1\nline2"), "=?base64?bGluZTEKbGluZTI=?=");
  EXPECT_EQ(EncodedHeaderValue("=?base64?literal?="), "=?base64?PT9iYXNlNjQ/bGl0ZXJhbD89?=");
}

TEST(McpWire, NamesToolsForTheModel) {
  EXPECT_EQ(ModelToolName("docs", "search"), "docs__search");
  EXPECT_EQ(ModelToolName("docs", "get.page/v2"), "docs__get_page_v2");
  EXPECT_FALSE(ModelToolName("docs", std::string(60, 'x')));
}

TEST(McpWire, RendersResultsForTheModel) {
  const auto result = json::parse(R"({"content": [
      {"type": "text", "text": "Found 2"},
      {"type": "image", "data": "AAAAAAAA", "mimeType": "image/png"},
      {"type": "resource_link", "uri": "file:///a.txt", "name": "a"},
      {"type": "resource", "resource": {"uri": "file:///b.txt", "text": "hello"}},
      {"type": "resource", "resource": {"uri": "file:///c.bin", "blob": "AAAA", "mimeType": "application/zip"}}],
    "structuredContent": {"count": 2}})");
  const std::string text = RenderCallResult(result, 8000);
  EXPECT_EQ(
      text,
      "Found 2\n[image (image/png, about 6 bytes) not shown]\n[resource link: file:///a.txt (a)]\n"
      "[resource file:///b.txt]\nhello\n[resource file:///c.bin (application/zip, binary) not "
      "shown]\n{\"count\":2}");
  // Structured content repeated as text is given once.
  EXPECT_EQ(RenderCallResult(json::parse(R"({"content": [{"type": "text", "text": "{\"n\":1}"}],
                                             "structuredContent": {"n": 1}})"),
                             8000),
            "{\"n\":1}");
  EXPECT_EQ(RenderCallResult(json::parse(R"({"content": [{"type": "text", "text": "no such city"}],
                                             "isError": true})"),
                             8000),
            "error: no such city");
  EXPECT_EQ(
      RenderCallResult(json::parse(R"({"content": [{"type": "text", "text": "abcdef"}]})"), 3),
      "abc\n[truncated]");
}

}  // namespace
TEST(McpOrigin, OnlyOurOwnLoopbackOrListedOriginsMayCall) {
  const std::vector<std::string> listed = {"https://Console.Example.com"};
  EXPECT_TRUE(OriginAllowed("https://gw.example.com", "https://gw.example.com/base", {}));
  EXPECT_TRUE(OriginAllowed("HTTPS://GW.example.com", "https://gw.example.com", {}));
  EXPECT_FALSE(OriginAllowed("https://gw.example.com:8443", "https://gw.example.com", {}));
  EXPECT_TRUE(OriginAllowed("http://localhost:6274", "", {}));  // the MCP inspector, locally
  EXPECT_TRUE(OriginAllowed("http://127.0.0.1:3000", "", {}));
  EXPECT_TRUE(OriginAllowed("http://[::1]:3000", "", {}));
  EXPECT_TRUE(OriginAllowed("https://console.example.com", "", listed));
  EXPECT_FALSE(OriginAllowed("http://evil.example.com", "https://gw.example.com", listed));
  EXPECT_FALSE(OriginAllowed("http://127.0.0.1.evil.example", "", {}));
  EXPECT_FALSE(OriginAllowed("http://localhost.evil.example", "", {}));
  EXPECT_FALSE(OriginAllowed("null", "https://gw.example.com", {}));
}

}  // namespace agentgate::mcp
