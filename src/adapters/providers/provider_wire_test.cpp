#include "adapters/providers/provider_wire.hpp"
#include "adapters/providers/offline_model.hpp"
#include "domain/schema/json_schema.hpp"

#include <gtest/gtest.h>
#include <boost/json/parse.hpp>

namespace agentgate::wire {
namespace {

namespace json = boost::json;
using Kind = ModelFailure::Kind;
using namespace std::chrono_literals;

ModelRequest ToolRound() {
  ModelRequest r;
  r.model = "m";
  r.system = "Be kind.";
  r.max_output_tokens = 100;
  r.temperature = 0.2;
  r.tools.push_back(ToolSpec{"lookup", "Look up", json::object{{"type", "object"}}});
  r.messages.push_back(ChatMessage{Role::kUser, "hi", {}, "", ""});
  r.messages.push_back(ChatMessage{
      Role::kAssistant, "", {{"c1", "lookup", R"({"q":"x"})"}, {"c2", "lookup", "{}"}}, "", ""});
  r.messages.push_back(ChatMessage{Role::kTool, "r1", {}, "c1", "lookup"});
  r.messages.push_back(ChatMessage{Role::kTool, "r2", {}, "c2", "lookup"});
  return r;
}

}  // namespace

TEST(OpenAiWire, BuildsChatCompletionsWithToolsAndToolMessages) {
  const auto body = json::parse(OpenAiRequestBody(ToolRound()));
  EXPECT_EQ(body.at("model"), "m");
  EXPECT_EQ(body.at("max_tokens"), 100);
  const auto& messages = body.at("messages").as_array();
  ASSERT_EQ(messages.size(), 5u);
  EXPECT_EQ(messages[0].at("role"), "system");
  EXPECT_TRUE(messages[2].at("content").is_null());
  EXPECT_EQ(messages[2].at("tool_calls").at(0).at("function").at("arguments"), R"({"q":"x"})");
  EXPECT_EQ(messages[3].at("role"), "tool");
  EXPECT_EQ(messages[3].at("tool_call_id"), "c1");
  EXPECT_EQ(body.at("tools").at(0).at("function").at("name"), "lookup");
}

// The body as it was written through Boost.JSON's default storage, byte for byte.
TEST(OpenAiWire, TheBodyKeepsItsBytes) {
  EXPECT_EQ(OpenAiRequestBody(ToolRound()),
            R"({"model":"m","messages":[{"role":"system","content":"Be kind."},{"role":"user",")"
            R"(content":"hi"},{"role":"assistant","content":null,"tool_calls":[{"id":"c1","type)"
            R"(":"function","function":{"name":"lookup","arguments":"{\"q\":\"x\"}"}},{"id":"c2)"
            R"(","type":"function","function":{"name":"lookup","arguments":"{}"}}]},{"role":"to)"
            R"(ol","tool_call_id":"c1","content":"r1"},{"role":"tool","tool_call_id":"c2","cont)"
            R"(ent":"r2"}],"max_tokens":100,"temperature":0.2,"tools":[{"type":"function","func)"
            R"(tion":{"name":"lookup","description":"Look up","parameters":{"type":"object"}}}])"
            R"(})");
}

TEST(OpenAiWire, ParsesTextToolCallsAndUsage) {
  auto parsed = OpenAiParseReply(
      R"({"model":"gpt-4o-2024-08-06","choices":[{"message":{"role":"assistant","content":null,
    "tool_calls":[{"id":"call_1","type":"function","function":{"name":"lookup","arguments":"{\"q\":1}"}}]}}],
    "usage":{"prompt_tokens":12,"completion_tokens":3}})");
  const auto& reply = std::get<ModelReply>(parsed);
  ASSERT_EQ(reply.tool_calls.size(), 1u);
  EXPECT_EQ(reply.tool_calls[0].arguments_json, R"({"q":1})");
  EXPECT_EQ(reply.usage.input_tokens, 12);
  EXPECT_EQ(reply.usage.output_tokens, 3);
  EXPECT_EQ(reply.response_model, "gpt-4o-2024-08-06");
  const auto plain =
      std::get<ModelReply>(OpenAiParseReply(R"({"choices":[{"message":{"content":"Hi"}}]})"));
  EXPECT_EQ(plain.text, "Hi");
  EXPECT_EQ(plain.response_model, "");  // the provider did not say
  for (const char* bad : {"not json", "{}", R"({"choices":[]})",
                          R"({"choices":[{"message":{"tool_calls":[{"function":{}}]}}]})"}) {
    EXPECT_EQ(std::get<ModelFailure>(OpenAiParseReply(bad)).kind, Kind::kTransient) << bad;
  }
}

TEST(OpenAiWire, ClassifiesErrorsPerTheContract) {
  EXPECT_EQ(OpenAiClassifyError(401, R"({"error":{"message":"bad key","code":"invalid_api_key"}})",
                                {}, {})
                .kind,
            Kind::kRefused);
  EXPECT_EQ(OpenAiClassifyError(403, "", {}, {}).kind, Kind::kRefused);
  EXPECT_EQ(OpenAiClassifyError(402, "", {}, {}).kind, Kind::kRefused);
  EXPECT_EQ(
      OpenAiClassifyError(
          429, R"({"error":{"code":"insufficient_quota","type":"insufficient_quota"}})", "1", {})
          .kind,
      Kind::kRefused);
  // A refused key, or an account that will not pay (fallbacks treat them apart).
  EXPECT_FALSE(OpenAiClassifyError(401, "", {}, {}).account);
  EXPECT_TRUE(OpenAiClassifyError(402, "", {}, {}).account);
  EXPECT_TRUE(
      OpenAiClassifyError(429, R"({"error":{"code":"insufficient_quota"}})", {}, {}).account);
  auto throttled = OpenAiClassifyError(429, R"({"error":{"code":"rate_limit_exceeded"}})", "2", {});
  EXPECT_EQ(throttled.kind, Kind::kThrottled);
  EXPECT_FALSE(throttled.account);
  EXPECT_EQ(throttled.retry_after, 2000ms);
  EXPECT_EQ(OpenAiClassifyError(429, "", "1", "250").retry_after, 250ms);
  EXPECT_EQ(OpenAiClassifyError(500, "", {}, {}).kind, Kind::kTransient);
  EXPECT_EQ(OpenAiClassifyError(503, "", {}, {}).kind, Kind::kTransient);
  EXPECT_EQ(OpenAiClassifyError(400, R"({"error":{"message":"context too long"}})", {}, {}).kind,
            Kind::kRejected);
  EXPECT_EQ(OpenAiClassifyError(401, "", {}, {}).message.find("sk-"), std::string::npos);
}

TEST(AnthropicWire, BuildsMessagesWithSystemToolUseAndGroupedToolResults) {
  const auto body = json::parse(AnthropicRequestBody(ToolRound()));
  EXPECT_EQ(body.at("system"), "Be kind.");
  EXPECT_EQ(body.at("tools").at(0).at("input_schema").at("type"), "object");
  const auto& messages = body.at("messages").as_array();
  ASSERT_EQ(messages.size(), 3u);
  EXPECT_EQ(messages[1].at("content").at(0).at("type"), "tool_use");
  EXPECT_EQ(messages[1].at("content").at(0).at("input").at("q"), "x");
  EXPECT_EQ(messages[2].at("role"), "user");
  ASSERT_EQ(messages[2].at("content").as_array().size(), 2u);
  EXPECT_EQ(messages[2].at("content").at(1).at("tool_use_id"), "c2");
}

TEST(AnthropicWire, ParsesBlocksAndClassifiesErrors) {
  auto parsed = AnthropicParseReply(R"({"content":[{"type":"text","text":"Let me look."},
    {"type":"tool_use","id":"toolu_1","name":"lookup","input":{"q":"x"}}],"model":"claude-sonnet-4-5-20250929",
    "usage":{"input_tokens":20,"output_tokens":7}})");
  const auto& reply = std::get<ModelReply>(parsed);
  EXPECT_EQ(reply.text, "Let me look.");
  EXPECT_EQ(reply.response_model, "claude-sonnet-4-5-20250929");
  EXPECT_EQ(reply.tool_calls.at(0).arguments_json, R"({"q":"x"})");
  EXPECT_EQ(reply.usage.output_tokens, 7);
  EXPECT_EQ(
      AnthropicClassifyError(529, R"({"type":"error","error":{"type":"overloaded_error"}})", {})
          .kind,
      Kind::kTransient);
  EXPECT_EQ(
      AnthropicClassifyError(429, R"({"type":"error","error":{"type":"rate_limit_error"}})", "3")
          .retry_after,
      3000ms);
  EXPECT_EQ(AnthropicClassifyError(
                400, R"({"type":"error","error":{"type":"enforced_spend_limit_reached"}})", {})
                .kind,
            Kind::kRefused);
  EXPECT_EQ(AnthropicClassifyError(400, R"({"type":"error","error":{"type":"invalid_request_error",
    "message":"Your credit balance is too low"}})",
                                   {})
                .kind,
            Kind::kRefused);
  EXPECT_EQ(
      AnthropicClassifyError(401, R"({"type":"error","error":{"type":"authentication_error"}})", {})
          .kind,
      Kind::kRefused);
  EXPECT_EQ(AnthropicClassifyError(
                400, R"({"type":"error","error":{"type":"invalid_request_error"}})", {})
                .kind,
            Kind::kRejected);
  EXPECT_FALSE(AnthropicClassifyError(403, "", {}).account);
  EXPECT_TRUE(
      AnthropicClassifyError(400, R"({"type":"error","error":{"type":"billing_error"}})", {})
          .account);
}

TEST(OfflineModel, SearchesResourcesThenAnswersFromThem) {
  ModelRequest r;
  r.tools.push_back(ToolSpec{"search_resources", "", json::object{}});
  r.messages.push_back(ChatMessage{Role::kUser, "What is agentgate?", {}, "", ""});
  auto first = OfflineReply(r);
  ASSERT_EQ(first.tool_calls.size(), 1u);
  EXPECT_EQ(first.tool_calls[0].name, "search_resources");
  EXPECT_EQ(json::parse(first.tool_calls[0].arguments_json).at("query"), "What is agentgate?");
  r.messages.push_back(ChatMessage{Role::kAssistant, "", first.tool_calls, "", ""});
  r.messages.push_back(ChatMessage{Role::kTool,
                                   "[about] About\nagentgate is a gateway.",
                                   {},
                                   "offline-search",
                                   "search_resources"});
  auto second = OfflineReply(r);
  EXPECT_TRUE(second.tool_calls.empty());
  EXPECT_NE(second.text.find("agentgate is a gateway."), std::string::npos);
  EXPECT_GT(second.usage.input_tokens, 0);
}

TEST(OfflineModel, CallsToolsOnRequestAndOnlyOfferedOnes) {
  ModelRequest r;
  r.tools.push_back(ToolSpec{"create_case", "", json::object{}});
  r.messages.push_back(ChatMessage{
      Role::kUser, "please\n/tool create_case {\"subject\":\"x\"}\n/tool nope {}", {}, "", ""});
  auto reply = OfflineReply(r);
  ASSERT_EQ(reply.tool_calls.size(), 1u);
  EXPECT_EQ(reply.tool_calls[0].arguments_json, R"({"subject":"x"})");
  ModelRequest plain;
  plain.messages.push_back(ChatMessage{Role::kUser, "hello", {}, "", ""});
  EXPECT_NE(OfflineReply(plain).text.find("You asked: hello"), std::string::npos);
}

}  // namespace agentgate::wire

namespace agentgate::wire {
namespace {

// A conversation's third turn, long enough for Anthropic to cache: two stored turns, then this
// turn's message, a tool call and its result.
ModelRequest CachedTurn() {
  ModelRequest r;
  r.model = "claude";
  r.system = std::string(6000, 's');  // ~1,500 tokens by the estimate
  r.prompt_caching = true;
  r.tools.push_back(ToolSpec{"a", "A", json::object{{"type", "object"}}});
  r.tools.push_back(ToolSpec{"b", "B", json::object{{"type", "object"}}});
  r.messages.push_back(ChatMessage{Role::kUser, "first", {}, "", ""});
  r.messages.push_back(ChatMessage{Role::kAssistant, "one", {}, "", ""});
  r.messages.push_back(ChatMessage{Role::kUser, "second", {}, "", ""});
  r.messages.push_back(ChatMessage{Role::kAssistant, "two", {}, "", ""});
  r.history_messages = 4;
  r.messages.push_back(ChatMessage{Role::kUser, "third", {}, "", ""});
  r.messages.push_back(ChatMessage{Role::kAssistant, "", {{"c1", "a", "{}"}}, "", ""});
  r.messages.push_back(ChatMessage{Role::kTool, "r1", {}, "c1", "a"});
  return r;
}

int Breakpoints(const json::value& v) {
  if (v.is_array()) {
    int n = 0;
    for (const auto& item : v.as_array()) n += Breakpoints(item);
    return n;
  }
  if (!v.is_object()) return 0;
  int n = v.as_object().contains("cache_control") ? 1 : 0;
  for (const auto& [key, item] : v.as_object()) n += Breakpoints(item);
  return n;
}

}  // namespace

TEST(AnthropicWire, PromptCachingMarksTheToolsTheSystemTheHistoryAndTheTurnSoFar) {
  const auto body = json::parse(AnthropicRequestBody(CachedTurn()));
  EXPECT_EQ(Breakpoints(body), 4);  // Anthropic's limit
  EXPECT_EQ(body.at("tools").at(1).at("cache_control").at("type"), "ephemeral");
  EXPECT_FALSE(body.at("tools").at(0).as_object().contains("cache_control"));
  EXPECT_EQ(body.at("system").at(0).at("text").as_string(), std::string(6000, 's'));
  EXPECT_EQ(body.at("system").at(0).at("cache_control").at("type"), "ephemeral");
  const auto& messages = body.at("messages").as_array();
  ASSERT_EQ(messages.size(), 7u);
  // The history ends with the second assistant reply: a plain string became one text block.
  EXPECT_EQ(messages[3].at("content").at(0).at("text"), "two");
  EXPECT_TRUE(messages[3].at("content").at(0).as_object().contains("cache_control"));
  EXPECT_EQ(messages[4].at("content"), "third");  // unmarked
  EXPECT_TRUE(messages[6].at("content").at(0).as_object().contains("cache_control"));
  EXPECT_EQ(messages[6].at("content").at(0).at("type"), "tool_result");
}

TEST(AnthropicWire, NoBreakpointsWhenCachingIsOffOrThePromptTooShortToCache) {
  ModelRequest off = CachedTurn();
  off.prompt_caching = false;
  const auto plain = json::parse(AnthropicRequestBody(off));
  EXPECT_EQ(Breakpoints(plain), 0);
  EXPECT_EQ(plain.at("system").as_string(), std::string(6000, 's'));
  ModelRequest short_one = CachedTurn();
  short_one.system = "Be kind.";
  EXPECT_EQ(Breakpoints(json::parse(AnthropicRequestBody(short_one))), 0);
  // No history: the tools, the system and the turn so far.
  ModelRequest first = CachedTurn();
  first.messages.erase(first.messages.begin(), first.messages.begin() + 4);
  first.history_messages = 0;
  EXPECT_EQ(Breakpoints(json::parse(AnthropicRequestBody(first))), 3);
}

TEST(ProviderUsage, CachedTokensAreReadAsPartOfTheInput) {
  auto openai = OpenAiParseReply(R"({"choices":[{"message":{"content":"hi"}}],
    "usage":{"prompt_tokens":2006,"completion_tokens":300,"prompt_tokens_details":{"cached_tokens":1920}}})");
  const auto& o = std::get<ModelReply>(openai).usage;
  EXPECT_EQ(o.input_tokens, 2006);
  EXPECT_EQ(o.cached_input_tokens, 1920);
  EXPECT_EQ(o.cache_write_tokens, 0);
  auto anthropic = AnthropicParseReply(R"({"content":[{"type":"text","text":"hi"}],
    "usage":{"input_tokens":50,"cache_read_input_tokens":100000,"cache_creation_input_tokens":248,
             "output_tokens":503}})");
  const auto& a = std::get<ModelReply>(anthropic).usage;
  EXPECT_EQ(a.input_tokens, 100298);  // Anthropic's three parts added up
  EXPECT_EQ(a.cached_input_tokens, 100000);
  EXPECT_EQ(a.cache_write_tokens, 248);
  EXPECT_EQ(a.output_tokens, 503);
}

}  // namespace agentgate::wire

namespace agentgate::wire {

TEST(ProviderErrors, AKeyQuotedInAProvidersErrorIsNeverKept) {
  const auto openai = OpenAiClassifyError(
      401,
      R"({"error":{"message":"Incorrect API key provided: sk-proj-********************wxyz. You can find your API key at https://platform.openai.com/account/api-keys.","type":"invalid_request_error","code":"invalid_api_key"}})",
      {}, {});
  EXPECT_EQ(openai.kind, ModelFailure::Kind::kRefused);
  EXPECT_EQ(openai.message.find("wxyz"), std::string::npos) << openai.message;
  EXPECT_NE(openai.message.find("invalid_api_key: Incorrect API key provided: [redacted]."),
            std::string::npos)
      << openai.message;
  const auto anthropic = AnthropicClassifyError(
      401,
      R"({"type":"error","error":{"type":"authentication_error","message":"invalid x-api-key sk-ant-api03-secretvalue"}})",
      {});
  EXPECT_EQ(anthropic.message.find("secretvalue"), std::string::npos) << anthropic.message;
}

}  // namespace agentgate::wire

namespace agentgate::wire {
namespace {

ModelRequest Answering(const char* schema_text) {
  ModelRequest r;
  r.model = "claude-sonnet-4-5";
  r.messages.push_back(ChatMessage{Role::kUser, "refund?", {}, "", ""});
  AnswerFormat format;
  format.schema = json::parse(schema_text);
  format.strict = schema::StrictForm(format.schema);
  r.answer_format = std::make_shared<const AnswerFormat>(std::move(format));
  return r;
}

constexpr const char* kClosed =
    R"({"type": "object", "properties": {"n": {"type": "integer", "maximum": 9}},
        "required": ["n"], "additionalProperties": false})";
constexpr const char* kOpen =
    R"({"type": "object", "properties": {"n": {"type": "integer", "maximum": 9}}})";

}  // namespace

TEST(OpenAiWire, AnAnswerSchemaIsAskedAsResponseFormatStrictWhenItCanBe) {
  const auto strict = json::parse(OpenAiRequestBody(Answering(kClosed)));
  const auto& format = strict.at("response_format");
  EXPECT_EQ(format.at("type"), "json_schema");
  EXPECT_EQ(format.at("json_schema").at("strict"), true);
  EXPECT_EQ(format.at("json_schema").at("name"), "answer");
  // Strict mode gets the schema without the bounds agentgate checks itself.
  EXPECT_FALSE(format.at("json_schema")
                   .at("schema")
                   .at("properties")
                   .at("n")
                   .as_object()
                   .contains("maximum"));
  const auto loose = json::parse(OpenAiRequestBody(Answering(kOpen)));
  EXPECT_EQ(loose.at("response_format").at("json_schema").at("strict"), false);
  EXPECT_EQ(loose.at("response_format").at("json_schema").at("schema"), json::parse(kOpen));
  EXPECT_FALSE(json::parse(OpenAiRequestBody(ToolRound())).as_object().contains("response_format"));
}

TEST(OpenAiWire, JsonModeIsAskedAsJsonObjectAndAnSdksAnnotationsAreNotSent) {
  const auto json_mode = json::parse(OpenAiRequestBody(Answering(R"({"type": "object"})")));
  EXPECT_EQ(json_mode.at("response_format"), json::parse(R"({"type": "json_object"})"));
  const auto annotated = json::parse(OpenAiRequestBody(Answering(
      R"({"$schema": "https://json-schema.org/draft/2020-12/schema", "type": "object",
          "properties": {"n": {"type": "integer", "default": 1, "title": "N"}}})")));
  const auto& sent = annotated.at("response_format").at("json_schema").at("schema");
  EXPECT_FALSE(sent.as_object().contains("$schema"));
  EXPECT_EQ(sent.at("properties").at("n"), json::parse(R"({"type": "integer", "title": "N"})"));
}

TEST(AnthropicWire, AnAnswerSchemaIsAskedNativelyOnlyOfAConfiguredModelWithAStrictForm) {
  EXPECT_EQ(AnthropicAnswerWay(Answering(kClosed), true), AnswerWay::kNative);
  EXPECT_EQ(AnthropicAnswerWay(Answering(kOpen), true), AnswerWay::kTool);
  EXPECT_EQ(AnthropicAnswerWay(Answering(kClosed), false), AnswerWay::kTool);
  EXPECT_EQ(AnthropicAnswerWay(ToolRound(), true), AnswerWay::kNone);

  const auto native =
      json::parse(AnthropicRequestBody(Answering(kClosed), false, AnswerWay::kNative));
  EXPECT_EQ(native.at("output_config").at("format").at("type"), "json_schema");
  EXPECT_EQ(native.at("output_config").at("format").at("schema"),
            *schema::StrictForm(json::parse(kClosed)));
  EXPECT_FALSE(native.as_object().contains("tools"));

  const auto tool = json::parse(AnthropicRequestBody(Answering(kOpen), false, AnswerWay::kTool));
  EXPECT_FALSE(tool.as_object().contains("output_config"));
  EXPECT_FALSE(tool.as_object().contains("tool_choice"));  // offered, never forced
  const auto& tools = tool.at("tools").as_array();
  ASSERT_EQ(tools.size(), 1u);
  EXPECT_EQ(tools[0].at("name").as_string(), schema::kAnswerToolName);
  EXPECT_EQ(tools[0].at("input_schema"), json::parse(kOpen));
}

TEST(AnthropicWire, TheAnswerToolsCallIsReadAsTheReplysText) {
  ModelReply reply;
  reply.tool_calls = {{"t1", "lookup", "{}"},
                      {"t2", std::string(schema::kAnswerToolName), R"({"n":3})"}};
  reply.finish_reason = "tool_use";
  TakeAnswerToolCall(reply);
  EXPECT_EQ(reply.text, R"({"n":3})");
  ASSERT_EQ(reply.tool_calls.size(), 1u);  // the other call still runs
  EXPECT_EQ(reply.finish_reason, "tool_use");
  reply.tool_calls.clear();
  reply.tool_calls.push_back({"t3", std::string(schema::kAnswerToolName), R"({"n":4})"});
  TakeAnswerToolCall(reply);
  EXPECT_EQ(reply.text, R"({"n":4})");
  EXPECT_TRUE(reply.tool_calls.empty());
  EXPECT_EQ(reply.finish_reason, "end_turn");
}

TEST(OfflineModel, AnswersASchemaWithAnExampleItAccepts) {
  ModelRequest r = Answering(kOpen);
  const auto reply = OfflineReply(r);
  EXPECT_TRUE(reply.tool_calls.empty());
  EXPECT_TRUE(schema::Validate(r.answer_format->schema, json::parse(reply.text)).empty())
      << reply.text;
}

}  // namespace agentgate::wire
