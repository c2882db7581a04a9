#include "domain/openai/chat_request.hpp"
#include "domain/schema/json_schema.hpp"

#include <gtest/gtest.h>
#include <boost/json/parse.hpp>

namespace agentgate {
namespace {

Result<ChatCompletionRequest> Parse(std::string_view body) {
  return ParseChatCompletionRequest(boost::json::parse(body));
}

// The field a refusal names ("field 'x': ...").
std::string FieldOf(const Result<ChatCompletionRequest>& parsed) {
  EXPECT_FALSE(parsed);
  if (parsed) return "";
  return std::string(parsed.error().field().value_or(""));
}

TEST(ChatCompletionRequests, TheLastUserMessageIsTheTurnsAndTheEarlierOnesItsHistory) {
  const auto parsed = Parse(R"({
    "model": "support",
    "messages": [
      {"role": "system", "content": "Answer in French."},
      {"role": "user", "content": "Hi"},
      {"role": "assistant", "content": "Bonjour"},
      {"role": "developer", "content": [{"type": "text", "text": "Be brief."}]},
      {"role": "user", "content": [{"type": "text", "text": "Where is"}, {"type": "text", "text": "order 42?"}]}
    ],
    "temperature": 0.2, "max_tokens": 50, "user": "u-1", "stream_options": {"include_usage": true},
    "n": 1, "tools": [], "response_format": {"type": "text"}, "seed": 7, "some_new_field": {}
  })");
  ASSERT_TRUE(parsed) << parsed.error().message;
  EXPECT_EQ(parsed->model, "support");
  EXPECT_EQ(parsed->agent_id, "support");
  EXPECT_FALSE(parsed->request.instance_id);
  EXPECT_EQ(parsed->request.message, "Where is\norder 42?");
  ASSERT_EQ(parsed->request.history.size(), 2u);
  EXPECT_EQ(parsed->request.history[0].role, Role::kUser);
  EXPECT_EQ(parsed->request.history[0].content, "Hi");
  EXPECT_EQ(parsed->request.history[1].role, Role::kAssistant);
  EXPECT_EQ(parsed->request.history[1].content, "Bonjour");
  EXPECT_EQ(parsed->request.additional_instructions, "Answer in French.\n\nBe brief.");
  EXPECT_FALSE(parsed->request.stateful);
  EXPECT_FALSE(parsed->request.conversation_id);
}

TEST(ChatCompletionRequests, AStreamAsksForItsUsageInStreamOptions) {
  const std::string user = R"("messages": [{"role": "user", "content": "hi"}])";
  auto parsed = Parse(
      R"({"model": "a", "stream": true, "stream_options": {"include_usage": true}, )" + user + "}");
  ASSERT_TRUE(parsed) << parsed.error().message;
  EXPECT_TRUE(parsed->stream);
  EXPECT_TRUE(parsed->include_usage);
  parsed = Parse(R"({"model": "a", "stream_options": {"include_usage": true}, )" + user + "}");
  ASSERT_TRUE(parsed);
  EXPECT_FALSE(parsed->stream);
  EXPECT_FALSE(parsed->include_usage);  // ignored without a stream
}

TEST(ChatCompletionRequests, AModelWithAnInstanceAndAConversationInMetadata) {
  const auto parsed =
      Parse(R"({"model": "concierge:hotel-7", "metadata": {"conversation_id": "c_1"},
    "messages": [{"role": "user", "content": "earlier"}, {"role": "user", "content": "now"}]})");
  ASSERT_TRUE(parsed) << parsed.error().message;
  EXPECT_EQ(parsed->agent_id, "concierge");
  EXPECT_EQ(parsed->request.instance_id, "hotel-7");
  EXPECT_EQ(parsed->model, "concierge:hotel-7");
  // The stored conversation's history applies, not the messages before the last.
  EXPECT_TRUE(parsed->request.stateful);
  EXPECT_EQ(parsed->request.conversation_id, "c_1");
  EXPECT_TRUE(parsed->request.history.empty());
  EXPECT_EQ(parsed->request.message, "now");
}

TEST(ChatCompletionRequests, WhatCannotBeHonouredIsRefusedNamingOpenAisField) {
  const std::string user = R"("messages": [{"role": "user", "content": "hi"}])";
  EXPECT_EQ(FieldOf(Parse(R"({"messages": [{"role": "user", "content": "hi"}]})")), "model");
  EXPECT_EQ(FieldOf(Parse(R"({"model": "a b", )" + user + "}")), "model");
  EXPECT_EQ(FieldOf(Parse(R"({"model": "a:", )" + user + "}")), "model");
  EXPECT_EQ(FieldOf(Parse(R"({"model": "a", "messages": []})")), "messages");
  EXPECT_EQ(FieldOf(Parse(R"({"model": "a", "messages": "hi"})")), "messages");
  EXPECT_EQ(FieldOf(Parse(R"({"model": "a", "stream": "yes", )" + user + "}")), "stream");
  EXPECT_EQ(FieldOf(Parse(R"({"model": "a", "stream": true, "stream_options": 1, )" + user + "}")),
            "stream_options");
  EXPECT_EQ(FieldOf(Parse(R"({"model": "a", "n": 2, )" + user + "}")), "n");
  EXPECT_EQ(FieldOf(Parse(R"({"model": "a", "tools": [{"type": "function"}], )" + user + "}")),
            "tools[0].function");
  EXPECT_EQ(FieldOf(Parse(R"({"model": "a", "response_format": {"type": "xml"}, )" + user + "}")),
            "response_format");
  // JSON mode: the answer is one JSON object, any (issue 74 §2).
  const auto json_mode =
      Parse(R"({"model": "a", "response_format": {"type": "json_object"}, )" + user + "}");
  ASSERT_TRUE(json_mode);
  ASSERT_TRUE(json_mode->request.answer_schema);
  EXPECT_TRUE(schema::IsJsonObjectSchema(*json_mode->request.answer_schema));
  EXPECT_EQ(
      FieldOf(Parse(R"({"model": "a", "messages": [{"role": "assistant", "content": "x"}]})")),
      "messages");
  EXPECT_EQ(FieldOf(Parse(R"({"model": "a", "messages": [{"role": "user", "content": ""}]})")),
            "messages");
  EXPECT_EQ(FieldOf(Parse(R"({"model": "a", "messages": [{"role": "tool", "content": "x"}]})")),
            "messages[0].tool_call_id");
  EXPECT_EQ(FieldOf(Parse(R"({"model": "a", "messages": [{"role": "function", "content": "x"}]})")),
            "messages[0].role");
  EXPECT_EQ(FieldOf(Parse(R"({"model": "a", "messages": [{"role": "user"}]})")),
            "messages[0].content");
  EXPECT_EQ(
      FieldOf(Parse(
          R"({"model": "a", "messages": [{"role": "user", "content": [{"type": "image_url"}]}]})")),
      "messages[0].content[0].type");
  EXPECT_EQ(FieldOf(Parse(R"({"model": "a", "messages": [{"role": "assistant", "content": null,
             "tool_calls": [{"id": "c"}]}, {"role": "user", "content": "x"}]})")),
            "messages[0].tool_calls[0].function");
  EXPECT_EQ(FieldOf(Parse(R"({"model": "a", "metadata": {"conversation_id": 7}, )" + user + "}")),
            "metadata.conversation_id");
  EXPECT_EQ(FieldOf(Parse("[]")), "body");  // not an object
}

// What OpenAI's SDKs send for a function of the caller's (issue 76 §1).
constexpr std::string_view kWeather = R"({"type": "function", "function": {"name": "weather",
    "description": "The weather in a city", "parameters": {"type": "object",
    "properties": {"city": {"type": "string"}}, "required": ["city"],
    "additionalProperties": false}, "strict": true}})";

TEST(ChatCompletionRequests, TheCallersFunctionsAreOfferedAsTheySentThem) {
  const auto parsed = Parse(R"({"model": "a", "messages": [{"role": "user", "content": "hi"}],
      "tools": [)" + std::string(kWeather) +
                            R"(], "tool_choice": "auto"})");
  ASSERT_TRUE(parsed) << parsed.error().message;
  ASSERT_EQ(parsed->request.caller_tools.size(), 1u);
  EXPECT_EQ(parsed->request.caller_tools[0].name, "weather");
  EXPECT_EQ(parsed->request.caller_tools[0].description, "The weather in a city");
  EXPECT_EQ(parsed->request.caller_tools[0].parameters.at("required").at(0), "city");
  EXPECT_FALSE(parsed->request.required_tool);
  EXPECT_FALSE(parsed->request.caller_tools_flat);
}

TEST(ChatCompletionRequests, ToolChoiceNoneOffersNothingAndRequiredOrANameForcesTheFirstCall) {
  const std::string head = R"({"model": "a", "messages": [{"role": "user", "content": "hi"}],
      "tools": [)" + std::string(kWeather) +
                           "], ";
  auto parsed = Parse(head + R"("tool_choice": "none"})");
  ASSERT_TRUE(parsed);
  EXPECT_TRUE(parsed->request.caller_tools.empty());
  parsed = Parse(head + R"("tool_choice": "required"})");
  ASSERT_TRUE(parsed);
  EXPECT_EQ(parsed->request.required_tool, "");
  parsed = Parse(head + R"("tool_choice": {"type": "function", "function": {"name": "weather"}}})");
  ASSERT_TRUE(parsed);
  EXPECT_EQ(parsed->request.required_tool, "weather");
  EXPECT_EQ(
      FieldOf(Parse(head + R"("tool_choice": {"type": "function", "function": {"name": "x"}}})")),
      "tool_choice.function.name");
  EXPECT_EQ(FieldOf(Parse(head + R"("tool_choice": "sometimes"})")), "tool_choice");
}

TEST(ChatCompletionRequests, BadToolsAreRefusedNamingTheField) {
  const std::string user = R"("messages": [{"role": "user", "content": "hi"}])";
  EXPECT_EQ(FieldOf(Parse(R"({"model": "a", "tools": {}, )" + user + "}")), "tools");
  EXPECT_EQ(FieldOf(Parse(R"({"model": "a", "tools": [{"type": "web_search"}], )" + user + "}")),
            "tools[0].type");
  EXPECT_EQ(FieldOf(Parse(R"({"model": "a", "tools": [{"type": "function", "function":
      {"name": "a b"}}], )" +
                          user + "}")),
            "tools[0].function.name");
  EXPECT_EQ(FieldOf(Parse(R"({"model": "a", "tools": [{"type": "function", "function":
      {"name": "f", "parameters": {"type": "string"}}}], )" +
                          user + "}")),
            "tools[0].function.parameters.type");
  EXPECT_EQ(FieldOf(Parse(R"({"model": "a", "tools": [)" + std::string(kWeather) + ", " +
                          std::string(kWeather) + "], " + user + "}")),
            "tools[1].function.name");
  std::string many = R"({"model": "a", "tools": [)";
  for (int i = 0; i < 129; ++i)
    many += std::string(i ? "," : "") + R"({"type": "function", "function": {"name": "f)" +
            std::to_string(i) + R"("}})";
  EXPECT_EQ(FieldOf(Parse(many + "], " + user + "}")), "tools");
  // A function with no parameters takes none.
  const auto bare = Parse(R"({"model": "a", "tools": [{"type": "function", "function":
      {"name": "now"}}], )" +
                          user + "}");
  ASSERT_TRUE(bare);
  EXPECT_EQ(bare->request.caller_tools[0].parameters.at("type"), "object");
}

// In a stored conversation the calls are the store's: only the results after them are new, and
// there is no new user message (the store checks them against its calls, docs/openai.md).
TEST(ChatCompletionRequests, AStoredConversationIsContinuedByTheNewResultsAlone) {
  const auto parsed = Parse(R"({"model": "a", "tools": [)" + std::string(kWeather) + R"(],
    "metadata": {"conversation_id": "conv_1"},
    "messages": [
      {"role": "user", "content": "Weather in Paris?"},
      {"role": "assistant", "content": null, "tool_calls": [
        {"id": "call_1", "type": "function", "function": {"name": "weather", "arguments": "{}"}}]},
      {"role": "tool", "tool_call_id": "call_1", "content": "rain"},
      {"role": "assistant", "content": null, "tool_calls": [
        {"id": "call_2", "type": "function", "function": {"name": "weather", "arguments": "{}"}}]},
      {"role": "tool", "tool_call_id": "call_2", "content": "sun"}
    ]})");
  ASSERT_TRUE(parsed) << parsed.error().message;
  const InvokeRequest& request = parsed->request;
  EXPECT_EQ(request.conversation_id, "conv_1");
  EXPECT_TRUE(request.message.empty());
  EXPECT_TRUE(request.history.empty());
  ASSERT_EQ(request.continuation.size(), 1u);
  EXPECT_EQ(request.continuation[0].tool_call_id, "call_2");
  EXPECT_EQ(request.continuation_fields, std::vector<std::string>{"messages[4].tool_call_id"});
  EXPECT_EQ(request.continuation_input, "messages");
  ASSERT_EQ(request.caller_tools.size(), 1u);
}

TEST(ChatCompletionRequests, ToolResultsAfterTheUserMessageContinueTheTurn) {
  const auto parsed = Parse(R"({"model": "a", "tools": [)" + std::string(kWeather) + R"(],
    "messages": [
      {"role": "user", "content": "Weather in Paris and Rome?"},
      {"role": "assistant", "content": null, "tool_calls": [
        {"id": "call_1", "type": "function", "function": {"name": "weather", "arguments": "{\"city\":\"Paris\"}"}},
        {"id": "call_2", "type": "function", "function": {"name": "weather", "arguments": "{\"city\":\"Rome\"}"}}]},
      {"role": "tool", "tool_call_id": "call_2", "content": "sunny"},
      {"role": "tool", "tool_call_id": "call_1", "content": [{"type": "text", "text": "rain"}]}
    ]})");
  ASSERT_TRUE(parsed) << parsed.error().message;
  const InvokeRequest& request = parsed->request;
  EXPECT_EQ(request.message, "Weather in Paris and Rome?");
  EXPECT_TRUE(request.history.empty());
  ASSERT_EQ(request.continuation.size(), 3u);
  EXPECT_EQ(request.continuation[0].role, Role::kAssistant);
  ASSERT_EQ(request.continuation[0].tool_calls.size(), 2u);
  EXPECT_EQ(request.continuation[0].tool_calls[1].arguments_json, R"({"city":"Rome"})");
  EXPECT_EQ(request.continuation[1].role, Role::kTool);
  EXPECT_EQ(request.continuation[1].tool_call_id, "call_2");
  EXPECT_EQ(request.continuation[1].tool_name, "weather");
  EXPECT_EQ(request.continuation[2].content, "rain");
}

TEST(ChatCompletionRequests, AnEarlierRoundOfCallsStaysInTheHistory) {
  const auto parsed = Parse(R"({"model": "a", "messages": [
      {"role": "user", "content": "Paris?"},
      {"role": "assistant", "content": "Checking", "tool_calls": [
        {"id": "call_1", "type": "function", "function": {"name": "weather", "arguments": "{}"}}]},
      {"role": "tool", "tool_call_id": "call_1", "content": "sunny"},
      {"role": "assistant", "content": "Sunny."},
      {"role": "user", "content": "And tomorrow?"}]})");
  ASSERT_TRUE(parsed) << parsed.error().message;
  EXPECT_EQ(parsed->request.message, "And tomorrow?");
  EXPECT_EQ(parsed->request.history.size(), 4u);
  EXPECT_TRUE(parsed->request.continuation.empty());
}

TEST(ChatCompletionRequests, AResultForAnUnknownCallOrACallWithoutItsResultIsRefused) {
  const std::string call = R"({"role": "user", "content": "Paris?"},
      {"role": "assistant", "content": null, "tool_calls": [
        {"id": "call_1", "type": "function", "function": {"name": "weather", "arguments": "{}"}}]})";
  EXPECT_EQ(FieldOf(Parse(R"({"model": "a", "messages": [)" + call +
                          R"(, {"role": "tool", "tool_call_id": "call_9", "content": "x"}]})")),
            "messages[2].tool_call_id");
  EXPECT_EQ(FieldOf(Parse(R"({"model": "a", "messages": [)" + call +
                          R"(, {"role": "user", "content": "well?"}]})")),
            "messages[1].tool_calls[0]");
  EXPECT_EQ(FieldOf(Parse(R"({"model": "a", "messages": [)" + call + "]}")),
            "messages[1].tool_calls[0]");
  // Answered twice: the second names no call still waiting.
  EXPECT_EQ(FieldOf(Parse(R"({"model": "a", "messages": [)" + call +
                          R"(, {"role": "tool", "tool_call_id": "call_1", "content": "x"},
                          {"role": "tool", "tool_call_id": "call_1", "content": "y"}]})")),
            "messages[3].tool_call_id");
}

}  // namespace
}  // namespace agentgate

namespace agentgate::openai {

TEST(ChatCompletionRequests, AJsonSchemaResponseFormatHoldsTheAnswerToIt) {
  const auto parsed = Parse(R"({"model": "a", "messages": [{"role": "user", "content": "hi"}],
      "response_format": {"type": "json_schema", "json_schema": {"name": "verdict", "strict": true,
        "schema": {"type": "object", "properties": {"ok": {"type": "boolean"}}, "required": ["ok"],
                   "additionalProperties": false}}}})");
  ASSERT_TRUE(parsed) << parsed.error().message;
  ASSERT_TRUE(parsed->request.answer_schema);
  EXPECT_EQ(parsed->request.answer_schema->at("required").at(0), "ok");
  EXPECT_EQ(FieldOf(Parse(R"({"model": "a", "messages": [{"role": "user", "content": "hi"}],
      "response_format": {"type": "json_schema", "json_schema": {"name": "v", "schema": {"type": "array"}}}})")),
            "response_format.json_schema.schema.type");
}

}  // namespace agentgate::openai
