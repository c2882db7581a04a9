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
            "tools");
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
            "messages[0].role");
  EXPECT_EQ(FieldOf(Parse(R"({"model": "a", "messages": [{"role": "user"}]})")),
            "messages[0].content");
  EXPECT_EQ(
      FieldOf(Parse(
          R"({"model": "a", "messages": [{"role": "user", "content": [{"type": "image_url"}]}]})")),
      "messages[0].content[0].type");
  EXPECT_EQ(FieldOf(Parse(R"({"model": "a", "messages": [{"role": "assistant", "content": null,
             "tool_calls": [{"id": "c"}]}, {"role": "user", "content": "x"}]})")),
            "messages[0].tool_calls");
  EXPECT_EQ(FieldOf(Parse(R"({"model": "a", "metadata": {"conversation_id": 7}, )" + user + "}")),
            "metadata.conversation_id");
  EXPECT_EQ(FieldOf(Parse("[]")), "body");  // not an object
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
