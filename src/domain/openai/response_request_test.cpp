#include "domain/openai/response_request.hpp"
#include "domain/schema/json_schema.hpp"

#include <gtest/gtest.h>
#include <boost/json/parse.hpp>

namespace agentgate {
namespace {

Result<ResponseRequest> Parse(std::string_view body) {
  return ParseResponseRequest(boost::json::parse(body));
}

std::string FieldOf(const Result<ResponseRequest>& parsed) {
  return parsed ? "" : std::string(parsed.error().field().value_or("?"));
}

TEST(ResponseRequests, AStringInputIsAStoredTurnWithItsInstructions) {
  auto parsed = Parse(
      R"({"model":"shop:eu","input":"Where is A-1?","instructions":"Be brief.","temperature":0.2,
               "metadata":{"k":"v"},"max_output_tokens":50,"reasoning":{"effort":"low"}})");
  ASSERT_TRUE(parsed) << parsed.error().message;
  EXPECT_EQ(parsed->agent_id, "shop");
  EXPECT_EQ(parsed->request.instance_id, "eu");
  EXPECT_EQ(parsed->request.message, "Where is A-1?");
  EXPECT_TRUE(parsed->request.stateful);
  EXPECT_EQ(parsed->request.additional_instructions, "Be brief.");
  EXPECT_EQ(parsed->instructions, "Be brief.");
  EXPECT_FALSE(parsed->stream || parsed->background || parsed->previous_response_id);
}

TEST(ResponseRequests, MessagesGiveInstructionsAndTheUsersMessage) {
  auto parsed = Parse(R"({"model":"shop","input":[
      {"role":"developer","content":"Be brief."},
      {"type":"message","role":"user","content":[{"type":"input_text","text":"Where"},
                                                 {"type":"input_text","text":"is A-1?"}]}],
      "previous_response_id":"resp_01a2"})");
  ASSERT_TRUE(parsed) << parsed.error().message;
  EXPECT_EQ(parsed->request.message, "Where\nis A-1?");
  EXPECT_EQ(parsed->request.additional_instructions, "Be brief.");
  EXPECT_EQ(parsed->previous_response_id, "resp_01a2");
  EXPECT_TRUE(parsed->request.history.empty());
}

TEST(ResponseRequests, AStatelessOneTakesItsEarlierMessagesAsHistory) {
  auto parsed = Parse(R"({"model":"shop","store":false,"stream":true,"input":[
      {"role":"user","content":"I ordered A-1."},{"role":"assistant","content":"Noted."},
      {"role":"user","content":"Status?"}]})");
  ASSERT_TRUE(parsed) << parsed.error().message;
  EXPECT_FALSE(parsed->request.stateful);
  EXPECT_TRUE(parsed->stream);
  ASSERT_EQ(parsed->request.history.size(), 2u);
  EXPECT_EQ(parsed->request.history[1].role, Role::kAssistant);
  EXPECT_EQ(parsed->request.message, "Status?");
}

TEST(ResponseRequests, AConversationIsNamedByItsIdOrAnObject) {
  for (const char* body : {R"({"model":"shop","input":"hi","conversation":"conv_0a"})",
                           R"({"model":"shop","input":"hi","conversation":{"id":"conv_0a"}})"}) {
    const auto parsed = Parse(body);
    ASSERT_TRUE(parsed) << parsed.error().message;
    EXPECT_EQ(parsed->conversation, "conv_0a");
    EXPECT_TRUE(parsed->request.stateful);
  }
}

TEST(ResponseRequests, WhatCannotBeHonouredIsA400NamingTheField) {
  EXPECT_EQ(FieldOf(Parse(R"({"input":"hi"})")), "model");
  EXPECT_EQ(FieldOf(Parse(R"({"model":"shop"})")), "input");
  EXPECT_EQ(FieldOf(Parse(R"({"model":"shop","input":[]})")), "input");
  EXPECT_EQ(FieldOf(Parse(R"({"model":"shop","input":""})")), "input");
  EXPECT_EQ(FieldOf(Parse(R"({"model":"shop","input":"hi","tools":[{"type":"web_search"}]})")),
            "tools[0].type");
  EXPECT_EQ(FieldOf(Parse(R"({"model":"shop","input":"hi","tools":[{"type":"function"}]})")),
            "tools[0].name");
  EXPECT_EQ(FieldOf(Parse(R"({"model":"shop","input":"hi","conversation":"resp_1"})")),
            "conversation");
  EXPECT_EQ(FieldOf(Parse(R"({"model":"shop","input":"hi","conversation":{"id":7}})")),
            "conversation");
  EXPECT_EQ(
      FieldOf(Parse(
          R"({"model":"shop","input":"hi","conversation":"conv_1","previous_response_id":"resp_1"})")),
      "conversation");
  EXPECT_EQ(
      FieldOf(Parse(R"({"model":"shop","input":"hi","conversation":"conv_1","store":false})")),
      "conversation");
  EXPECT_EQ(FieldOf(Parse(R"({"model":"shop","conversation":"conv_1","input":[
              {"role":"user","content":"a"},{"role":"assistant","content":"b"},
              {"role":"user","content":"c"}]})")),
            "input");
  EXPECT_EQ(FieldOf(Parse(
                R"({"model":"shop","input":"hi","text":{"format":{"type":"json_object","x":1}}})")),
            "text.format");
  const auto json_mode =
      Parse(R"({"model":"shop","input":"hi","text":{"format":{"type":"json_object"}}})");
  ASSERT_TRUE(json_mode);
  EXPECT_TRUE(schema::IsJsonObjectSchema(*json_mode->request.answer_schema));
  EXPECT_EQ(FieldOf(Parse(R"({"model":"shop","input":"hi","previous_response_id":"run_1"})")),
            "previous_response_id");
  EXPECT_EQ(FieldOf(Parse(R"({"model":"shop","input":"hi","store":false,"background":true})")),
            "store");
  EXPECT_EQ(FieldOf(Parse(R"({"model":"shop","input":"hi","background":true,"stream":true})")),
            "stream");
  EXPECT_EQ(
      FieldOf(Parse(R"({"model":"shop","input":[{"type":"function_call_output","output":"x"}]})")),
      "input[0].call_id");
  EXPECT_EQ(FieldOf(Parse(R"({"model":"shop","input":[{"type":"web_search_call","id":"x"}]})")),
            "input[0].type");
  EXPECT_EQ(FieldOf(Parse(R"({"model":"shop","input":[{"role":"tool","content":"x"}]})")),
            "input[0].role");
  EXPECT_EQ(FieldOf(Parse(R"({"model":"shop","input":[{"role":"assistant","content":"x"}]})")),
            "input");
  // With previous_response_id the input is what comes after it: the conversation keeps the rest.
  EXPECT_EQ(FieldOf(Parse(R"({"model":"shop","previous_response_id":"resp_01","input":[
                              {"role":"user","content":"a"},{"role":"assistant","content":"b"},
                              {"role":"user","content":"c"}]})")),
            "input");
  EXPECT_TRUE(
      Parse(R"({"model":"shop","input":"hi","tools":[],"text":{"format":{"type":"text"}}})"));
}

TEST(ResponseRequests, AJsonSchemaTextFormatHoldsTheAnswerToItsSchema) {
  const auto parsed = Parse(R"({"model":"shop","input":"refund?","text":{"format":{
      "type":"json_schema","name":"verdict","strict":true,"schema":{"type":"object",
      "properties":{"escalate":{"type":"boolean"}},"required":["escalate"],
      "additionalProperties":false}}}})");
  ASSERT_TRUE(parsed) << parsed.error().message;
  ASSERT_TRUE(parsed->request.answer_schema);
  EXPECT_EQ(parsed->request.answer_schema->at("required").at(0).as_string(), "escalate");
  // The flat shape's own fields are named where they are.
  EXPECT_EQ(FieldOf(Parse(R"({"model":"shop","input":"hi","text":{"format":{
      "type":"json_schema","name":"v","schema":{"type":"object","properties":{"a":{"$ref":"#/$defs/none"}}}}}})")),
            "text.format.schema.properties.a.$ref");
  EXPECT_EQ(FieldOf(Parse(R"({"model":"shop","input":"hi","text":{"format":{
      "type":"json_schema","name":"v","strict":true,"schema":{"type":"object",
      "properties":{"a":{"type":"string"}}}}}})")),
            "text.format.strict");
  EXPECT_EQ(FieldOf(Parse(R"({"model":"shop","input":"hi","text":{"format":{
      "type":"json_schema","name":"v"}}})")),
            "text.format.schema");
  EXPECT_EQ(FieldOf(Parse(R"({"model":"shop","input":"hi","text":{"format":{
      "type":"json_schema","name":"v","schema":{"type":"object"},"extra":1}}})")),
            "text.format.extra");
}

}  // namespace
}  // namespace agentgate

namespace agentgate {
namespace {

Result<ResponseRequest> ParseText(const char* text) {
  return ParseResponseRequest(boost::json::parse(text));
}

TEST(ResponseHistories, AStoredResponseTakesTheHistoryTheClientKeeps) {
  const auto resent = ParseText(R"({"model":"shop","input":[{"role":"user","content":"a"},
      {"role":"assistant","content":"b"},{"role":"user","content":"c"}]})");
  ASSERT_TRUE(resent) << resent.error().message;
  EXPECT_TRUE(resent->request.stateful);
  ASSERT_EQ(resent->request.history.size(), 2u);
  EXPECT_EQ(resent->request.history[1].content, "b");
  EXPECT_EQ(resent->request.message, "c");
  EXPECT_FALSE(resent->continues);
}

TEST(ResponseHistories, AReferenceToOurMessageContinuesItsConversation) {
  // The AI SDK's second message: the earlier ones, our reply as an item_reference, the new one.
  const auto referenced = ParseText(R"({"model":"shop","input":[{"role":"user","content":"a"},
      {"type":"item_reference","id":"msg_01ab"},{"role":"user","content":"c"}]})");
  ASSERT_TRUE(referenced) << referenced.error().message;
  ASSERT_TRUE(referenced->continues);
  EXPECT_EQ(referenced->continues->message_id, "msg_01ab");
  EXPECT_EQ(referenced->continues->field, "input[1].id");
  EXPECT_TRUE(referenced->request.history.empty());
  EXPECT_EQ(referenced->request.message, "c");
  // The Agents SDK's session: our reply resent whole, with the id we gave it.
  const auto resent = ParseText(R"({"model":"shop","input":[{"role":"user","content":"a"},
      {"type":"message","id":"msg_01ab","role":"assistant","status":"completed",
       "content":[{"type":"output_text","text":"b","annotations":[]}]},
      {"role":"user","content":"c"}]})");
  ASSERT_TRUE(resent);
  ASSERT_TRUE(resent->continues);
  EXPECT_EQ(resent->continues->field, "input[1].id");
}

TEST(ResponseHistories, AConversationItemOrAStatelessCallsReferenceIsReadIntoTheHistory) {
  // A conversation's item, wherever it is: its place in the history waits for the store's text.
  const auto item = ParseText(R"({"model":"shop","input":[{"type":"item_reference","id":"msg_0a_3"},
      {"role":"assistant","content":"b"},{"role":"user","content":"c"}]})");
  ASSERT_TRUE(item) << item.error().message;
  EXPECT_FALSE(item->continues);
  ASSERT_EQ(item->resolve.size(), 1u);
  EXPECT_EQ(item->resolve[0].item_id, "msg_0a_3");
  EXPECT_EQ(item->resolve[0].field, "input[0].id");
  EXPECT_EQ(item->resolve[0].history_index, 0u);
  ASSERT_EQ(item->request.history.size(), 2u);
  EXPECT_EQ(item->request.history[1].content, "b");
  // With "store": false a reply of ours does not continue (nothing is stored): it is read too,
  // and one resent whole is its own text.
  const auto unstored = ParseText(R"({"model":"shop","store":false,"input":[
      {"role":"user","content":"a"},{"type":"item_reference","id":"msg_01"},
      {"type":"message","id":"msg_02","role":"assistant","content":"d"},
      {"role":"user","content":"c"}]})");
  ASSERT_TRUE(unstored) << unstored.error().message;
  EXPECT_FALSE(unstored->continues);
  ASSERT_EQ(unstored->resolve.size(), 1u);
  EXPECT_EQ(unstored->resolve[0].history_index, 1u);
  EXPECT_EQ(unstored->request.history.size(), 3u);
  // A later reply that continues drops what came before it, references included.
  const auto continued = ParseText(R"({"model":"shop","input":[
      {"type":"item_reference","id":"msg_0a_3"},{"type":"item_reference","id":"msg_01"},
      {"role":"user","content":"c"}]})");
  ASSERT_TRUE(continued);
  EXPECT_TRUE(continued->continues);
  EXPECT_TRUE(continued->resolve.empty());
  EXPECT_TRUE(continued->request.history.empty());
}

TEST(ResponseHistories, AReferenceThatCannotBeFollowedIsA400NamingIt) {
  const auto theirs = ParseText(R"({"model":"shop","input":[{"type":"item_reference","id":"rs_1"},
      {"role":"user","content":"c"}]})");
  ASSERT_FALSE(theirs);
  EXPECT_EQ(std::string(theirs.error().field().value_or("")), "input[0].id");
  const auto last = ParseText(R"({"model":"shop","input":[{"role":"user","content":"a"},
      {"type":"item_reference","id":"msg_01_2"}]})");
  ASSERT_FALSE(last);
  EXPECT_EQ(std::string(last.error().field().value_or("")), "input[1].id");
  const auto after = ParseText(R"({"model":"shop","input":[{"type":"item_reference","id":"msg_01"},
      {"role":"user","content":"c"},{"role":"assistant","content":"d"},{"role":"user","content":"e"}]})");
  ASSERT_FALSE(after);
  EXPECT_EQ(std::string(after.error().field().value_or("")), "input");
}

}  // namespace
}  // namespace agentgate

namespace agentgate {

TEST(ResponseRequests, FunctionItemsAfterTheUsersMessageContinueTheTurn) {
  const auto parsed = Parse(R"({"model":"shop","store":false,
    "tools":[{"type":"function","name":"weather","parameters":{"type":"object","properties":{}}}],
    "input":[{"role":"user","content":"Paris?"},
      {"type":"function_call","call_id":"call_1","name":"weather","arguments":"{}"},
      {"type":"function_call","call_id":"call_2","name":"weather","arguments":"{}"},
      {"type":"function_call_output","call_id":"call_1","output":"sunny"},
      {"type":"function_call_output","call_id":"call_2","output":[{"type":"input_text","text":"rain"}]}]})");
  ASSERT_TRUE(parsed) << parsed.error().message;
  const InvokeRequest& request = parsed->request;
  EXPECT_EQ(request.message, "Paris?");
  EXPECT_TRUE(request.history.empty());
  ASSERT_EQ(request.continuation.size(), 3u);
  EXPECT_EQ(request.continuation[0].tool_calls.size(), 2u);  // one step's calls, one message
  EXPECT_EQ(request.continuation[2].content, "rain");
  EXPECT_EQ(request.continuation_fields[1], "input[3].call_id");
  ASSERT_EQ(request.caller_tools.size(), 1u);
  EXPECT_TRUE(request.caller_tools_flat);
}

TEST(ResponseRequests, AStoredResponseIsContinuedByItsFunctionsOutputsAlone) {
  auto parsed = Parse(R"({"model":"shop","previous_response_id":"resp_0a",
    "input":[{"type":"function_call_output","call_id":"call_1","output":"sunny"}]})");
  ASSERT_TRUE(parsed) << parsed.error().message;
  EXPECT_EQ(parsed->request.message, "");
  ASSERT_EQ(parsed->request.continuation.size(), 1u);
  EXPECT_EQ(parsed->request.continuation_fields[0], "input[0].call_id");
  // A call of ours resent (an SDK's own history) continues its response's conversation.
  parsed = Parse(R"({"model":"shop","input":[{"role":"user","content":"Paris?"},
    {"type":"function_call","id":"fc_0a_0","call_id":"call_1","name":"weather","arguments":"{}"},
    {"type":"function_call_output","call_id":"call_1","output":"sunny"}]})");
  ASSERT_TRUE(parsed) << parsed.error().message;
  ASSERT_TRUE(parsed->continues);
  EXPECT_EQ(parsed->continues->message_id, "msg_0a");
  EXPECT_TRUE(parsed->request.history.empty());
  EXPECT_EQ(parsed->request.continuation.size(), 1u);
  // Without a stored response to go on from, outputs alone are not a turn.
  EXPECT_EQ(FieldOf(Parse(R"({"model":"shop","store":false,
    "input":[{"type":"function_call_output","call_id":"call_1","output":"sunny"}]})")),
            "input");
}

}  // namespace agentgate
