#include "domain/agent/stored_messages.hpp"

#include <gtest/gtest.h>

namespace agentgate::stored_messages {
namespace {

TEST(StoredMessages, AStepsCallsJoinItsTextAndTheirOutputsAreToolMessages) {
  std::vector<ChatMessage> history;
  EXPECT_TRUE(AppendToHistory(history, kUser, "Paris and Rome?"));
  EXPECT_TRUE(AppendToHistory(history, kAssistant, "Looking."));
  EXPECT_FALSE(AppendToHistory(history, kFunctionCall,
                               FunctionCallContent({"call_1", "weather", R"({"city":"Paris"})"})));
  EXPECT_FALSE(AppendToHistory(history, kFunctionCall,
                               FunctionCallContent({"call_2", "weather", R"({"city":"Rome"})"})));
  EXPECT_TRUE(
      AppendToHistory(history, kFunctionCallOutput, FunctionCallOutputContent("call_2", "rain")));
  ASSERT_EQ(history.size(), 3u);
  EXPECT_EQ(history[1].content, "Looking.");
  ASSERT_EQ(history[1].tool_calls.size(), 2u);
  EXPECT_EQ(history[1].tool_calls[0].arguments_json, R"({"city":"Paris"})");
  EXPECT_EQ(history[2].role, Role::kTool);
  EXPECT_EQ(history[2].tool_call_id, "call_2");
  EXPECT_EQ(history[2].tool_name, "weather");
  EXPECT_EQ(history[2].content, "rain");
  // call_1 still waits.
  const auto open = UnansweredCalls(history);
  ASSERT_EQ(open.size(), 1u);
  EXPECT_EQ(open[0].id, "call_1");
}

TEST(StoredMessages, ACallWithoutTextStartsItsOwnAssistantMessage) {
  std::vector<ChatMessage> history;
  AppendToHistory(history, kUser, "Paris?");
  EXPECT_TRUE(AppendToHistory(history, kFunctionCall, FunctionCallContent({"c", "weather", "{}"})));
  ASSERT_EQ(history.size(), 2u);
  EXPECT_EQ(history[1].role, Role::kAssistant);
  EXPECT_EQ(history[1].content, "");
  EXPECT_EQ(history[1].tool_calls.size(), 1u);
}

TEST(StoredMessages, AContinuationAnswersEveryWaitingCallAndNothingElse) {
  std::vector<ChatMessage> history;
  AppendToHistory(history, kUser, "Paris and Rome?");
  AppendToHistory(history, kFunctionCall, FunctionCallContent({"call_1", "weather", "{}"}));
  AppendToHistory(history, kFunctionCall, FunctionCallContent({"call_2", "weather", "{}"}));
  const ChatMessage one{Role::kTool, "sunny", {}, "call_1", ""};
  const ChatMessage two{Role::kTool, "rain", {}, "call_2", ""};
  const ChatMessage stray{Role::kTool, "?", {}, "call_9", ""};
  EXPECT_TRUE(
      CheckContinuation(history, {two, one}, {"input[0].call_id", "input[1].call_id"}, "input"));
  auto refused = CheckContinuation(history, {one}, {"input[0].call_id"}, "input");
  ASSERT_FALSE(refused);
  EXPECT_EQ(refused.error().field(), "input");
  refused =
      CheckContinuation(history, {one, two, stray},
                        {"input[0].call_id", "input[1].call_id", "input[2].call_id"}, "input");
  ASSERT_FALSE(refused);
  EXPECT_EQ(refused.error().field(), "input[2].call_id");
  // A new message while calls wait is refused; with none waiting, anything goes.
  EXPECT_FALSE(CheckContinuation(history, {}, {}, "input"));
  history.push_back(one);
  history.push_back(two);
  EXPECT_TRUE(CheckContinuation(history, {}, {}, "input"));
}

TEST(StoredMessages, AnUnreadableStoredCallReadsAsEmptyFields) {
  const StoredCall call = ReadStoredCall("not json");
  EXPECT_EQ(call.call_id, "");
  EXPECT_EQ(call.name, "");
}

}  // namespace
}  // namespace agentgate::stored_messages
