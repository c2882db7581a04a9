#include "domain/agent/transcript.hpp"

#include "domain/json_text.hpp"

#include <boost/json/array.hpp>
#include <boost/json/object.hpp>
#include <boost/json/parse.hpp>
#include <boost/json/serialize.hpp>
#include <boost/json/value.hpp>

#include <gtest/gtest.h>

namespace agentgate {
namespace {

std::vector<ChatMessage> Conversation() {
  ChatMessage user{Role::kUser, "card 4111 1111 1111 1111?", {}, "", ""};
  ChatMessage calls{Role::kAssistant, "", {ToolCall{"c1", "lookup", R"({"card":"4111"})"}}, "", ""};
  ChatMessage result{Role::kTool, "found", {}, "c1", "lookup"};
  ChatMessage reply{Role::kAssistant, "Your card is 4111 1111 1111 1111", {}, "", ""};
  return {user, calls, result, reply};
}

boost::json::value Parsed(const std::string& text) {
  return boost::json::parse(text);
}

}  // namespace

TEST(Transcript, RecordsMessagesToolCallsAndModelCalls) {
  const std::vector<ModelCallRecord> calls{{0.25, 100, 7, ""}, {1.5, 0, 0, "HTTP 503"}};
  const auto t =
      Parsed(TranscriptJson("Be brief.", Conversation(), 0, calls, TurnOutcome{}, false));
  EXPECT_EQ(t.at("system"), "Be brief.");
  const auto& messages = t.at("messages").as_array();
  ASSERT_EQ(messages.size(), 4u);
  EXPECT_EQ(messages[0].at("role"), "user");
  EXPECT_EQ(messages[1].at("tool_calls").at(0).at("name"), "lookup");
  EXPECT_EQ(messages[1].at("tool_calls").at(0).at("arguments"), R"({"card":"4111"})");
  EXPECT_EQ(messages[2].at("role"), "tool");
  EXPECT_EQ(messages[2].at("tool_call_id"), "c1");
  EXPECT_EQ(messages[3].at("content"), "Your card is 4111 1111 1111 1111");
  const auto& log = t.at("model_calls").as_array();
  ASSERT_EQ(log.size(), 2u);
  EXPECT_EQ(log[0].at("input_tokens"), 100);
  EXPECT_EQ(log[0].at("output_tokens"), 7);
  EXPECT_EQ(log[1].at("failure"), "HTTP 503");
  EXPECT_FALSE(log[1].as_object().contains("input_tokens"));
  EXPECT_FALSE(t.as_object().contains("failure"));
}

// A stored format: its fields keep their order.
TEST(Transcript, TheTextKeepsItsFieldOrder) {
  const std::vector<ModelCallRecord> calls{{0.5, 3, 2, ""}};
  TurnOutcome outcome;
  outcome.failure = "cut";
  EXPECT_EQ(TranscriptJson("s", Conversation(), 3, calls, outcome, false, {"n1"}),
            R"({"system":"s","history_messages":3,"messages":[{"role":"assistant",)"
            R"("content":"Your card is 4111 1111 1111 1111"}],"model_calls":[{"seconds":0.5,)"
            R"("input_tokens":3,"output_tokens":2}],"failure":"cut","notes":["n1"]})");
  const std::string tools = TranscriptJson("s", Conversation(), 1, {}, TurnOutcome{}, false);
  EXPECT_TRUE(tools.starts_with(
      R"({"system":"s","history_messages":1,"messages":[{"role":"assistant","content":"",)"
      R"("tool_calls":[{"id":"c1","name":"lookup","arguments":"{\"card\":\"4111\"}"}]},)"
      R"({"role":"tool","content":"found","tool_call_id":"c1"})"))
      << tools;
}

// Every field, against the text Write gives for the same tree built member by member.
TEST(Transcript, EveryFieldIsWrittenAsWriteWritesTheSameTree) {
  ModelCallRecord answered{0.125, 30, 4, "", "openai", "gpt-4o", 2, 10, 5};
  ModelCallRecord failed{2.5, 0, 0, "HTTP 503", "anthropic", "claude", 0};
  SummaryRecord summary;
  summary.through_seq = 12;
  summary.messages_folded = 9;
  summary.text = "They asked about \"refunds\".";
  summary.called = true;
  summary.call = answered;
  TurnOutcome outcome;
  outcome.failure = "cut";
  const std::string text = TranscriptJson("sys\tem", Conversation(), 1, {answered, failed}, outcome,
                                          false, {"n1", "n2"}, summary);

  auto call = [](const ModelCallRecord& c) {
    boost::json::object o;
    o["provider"] = c.provider;
    o["model"] = c.model;
    o["key"] = c.key;
    o["seconds"] = c.seconds;
    if (!c.failure.empty()) {
      o["failure"] = c.failure;
      return o;
    }
    o["input_tokens"] = c.input_tokens;
    if (c.cached_input_tokens > 0) o["cached_input_tokens"] = c.cached_input_tokens;
    if (c.cache_write_tokens > 0) o["cache_write_tokens"] = c.cache_write_tokens;
    o["output_tokens"] = c.output_tokens;
    return o;
  };
  boost::json::object same;
  same["system"] = "sys\tem";
  same["history_messages"] = 1;
  boost::json::array messages;
  messages.push_back(boost::json::object{
      {"role", "assistant"},
      {"content", ""},
      {"tool_calls", boost::json::array{boost::json::object{
                         {"id", "c1"}, {"name", "lookup"}, {"arguments", R"({"card":"4111"})"}}}}});
  messages.push_back(
      boost::json::object{{"role", "tool"}, {"content", "found"}, {"tool_call_id", "c1"}});
  messages.push_back(
      boost::json::object{{"role", "assistant"}, {"content", "Your card is 4111 1111 1111 1111"}});
  same["messages"] = std::move(messages);
  same["model_calls"] = boost::json::array{call(answered), call(failed)};
  same["failure"] = "cut";
  same["notes"] = boost::json::array{"n1", "n2"};
  boost::json::object point;
  point["messages_folded"] = 9;
  point["model_call"] = call(answered);
  point["through_seq"] = 12;
  point["text"] = summary.text;
  same["history_summary"] = std::move(point);
  EXPECT_EQ(text, json_text::Write(same));

  summary.text.clear();
  summary.skipped = "spend limit";
  summary.called = false;
  EXPECT_TRUE(TranscriptJson("s", {}, 0, {}, TurnOutcome{}, false, {}, summary)
                  .ends_with(R"("model_calls":[],"history_summary":{"messages_folded":9,)"
                             R"("skipped":"spend limit"}})"));
}

TEST(Transcript, AWithheldReplyWithholdsEveryModelWrittenText) {
  TurnOutcome outcome;
  outcome.failure = "model timed out";
  const std::string text = TranscriptJson("s", Conversation(), 0, {}, outcome, true);
  EXPECT_EQ(text.find("Your card is"), std::string::npos);
  EXPECT_EQ(text.find(R"(\"card\")"), std::string::npos);  // the model's tool arguments
  const auto t = Parsed(text);
  const auto& messages = t.at("messages").as_array();
  EXPECT_EQ(messages[1].at("tool_calls").at(0).at("arguments"), "[withheld]");
  EXPECT_EQ(messages[3].at("content"), "[withheld]");
  EXPECT_EQ(messages[0].at("content"), "card 4111 1111 1111 1111?");  // the caller's own words
  EXPECT_EQ(messages[2].at("content"), "found");                      // a tool's result
  EXPECT_EQ(t.at("failure"), "model timed out");
}

TEST(Transcript, KeepsWhatTheTurnAddedNotTheHistoryItWasSent) {
  std::vector<ChatMessage> sent{{Role::kUser, "an old question", {}, "", ""},
                                {Role::kAssistant, "an old answer", {}, "", ""}};
  for (auto& m : Conversation()) sent.push_back(m);
  const auto t = Parsed(TranscriptJson("s", sent, 2, {}, TurnOutcome{}, false));
  EXPECT_EQ(t.at("history_messages"), 2);
  const auto& messages = t.at("messages").as_array();
  ASSERT_EQ(messages.size(), 4u);
  EXPECT_EQ(messages[0].at("content"), "card 4111 1111 1111 1111?");
  EXPECT_EQ(boost::json::serialize(t).find("an old"), std::string::npos);
}

}  // namespace agentgate
