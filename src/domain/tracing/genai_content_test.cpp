#include "domain/tracing/genai_content.hpp"

#include <gtest/gtest.h>
#include <boost/json/parse.hpp>

namespace agentgate::tracing {
namespace {

namespace json = boost::json;

ContentRules WithholdingSecrets() {
  return ContentRules{[](std::string_view text) { return text.find("SECRET") != text.npos; },
                      "Withheld."};
}

TEST(GenAiContent, InputMessagesHaveTheConventionsRolesAndParts) {
  std::vector<ChatMessage> messages(3);
  messages[0] = ChatMessage{Role::kUser, "where is A-1?", {}, "", ""};
  messages[1] =
      ChatMessage{Role::kAssistant, "Looking.", {{"call_0", "track", R"({"o":"A-1"})"}}, "", ""};
  messages[2] = ChatMessage{Role::kTool, "shipped", {}, "call_0", "track"};
  const auto v = json::parse(InputMessagesJson(messages, WithholdingSecrets()));
  const auto expected = json::parse(R"([
    {"role":"user","parts":[{"type":"text","content":"where is A-1?"}]},
    {"role":"assistant","parts":[{"type":"text","content":"Looking."},
      {"type":"tool_call","id":"call_0","name":"track","arguments":{"o":"A-1"}}]},
    {"role":"tool","parts":[{"type":"tool_call_response","id":"call_0","response":"shipped"}]}])");
  EXPECT_EQ(v, expected);
}

TEST(GenAiContent, WithheldAssistantTextIsNeverWritten) {
  std::vector<ChatMessage> messages{ChatMessage{Role::kAssistant, "the SECRET is 42", {}, "", ""}};
  const std::string input = InputMessagesJson(messages, WithholdingSecrets());
  EXPECT_EQ(input.find("SECRET"), std::string::npos);
  EXPECT_NE(input.find("Withheld."), std::string::npos);
  ModelReply reply;
  reply.text = "SECRET: 42";
  reply.finish_reason = "stop";
  const std::string output = OutputMessagesJson(reply, WithholdingSecrets());
  EXPECT_EQ(output.find("SECRET"), std::string::npos);
  EXPECT_EQ(json::parse(output),
            json::parse(R"([{"role":"assistant","parts":[{"type":"text","content":"Withheld."}],
                             "finish_reason":"stop"}])"));
}

TEST(GenAiContent, ToolCallArgumentsThePolicyBlocksAreNeverWritten) {
  ModelReply reply;
  reply.tool_calls = {{"c1", "refund", R"({"card":"SECRET-4111"})"}, {"c2", "status", "{}"}};
  const std::string output = OutputMessagesJson(reply, WithholdingSecrets());
  EXPECT_EQ(output.find("SECRET"), std::string::npos);
  const auto v = json::parse(output);
  EXPECT_EQ(v.at(0).at("parts").at(0).at("arguments"), json::value("Withheld."));
  EXPECT_EQ(v.at(0).at("parts").at(1).at("arguments"), json::parse("{}"));
  std::vector<ChatMessage> messages{ChatMessage{Role::kAssistant, "", reply.tool_calls, "", ""}};
  EXPECT_EQ(InputMessagesJson(messages, WithholdingSecrets()).find("SECRET"), std::string::npos);
}

TEST(GenAiContent, ArgumentsThatAreNotJsonStayText) {
  ModelReply reply;
  reply.tool_calls = {{"c1", "f", "{broken"}};
  const auto v = json::parse(OutputMessagesJson(reply, ContentRules{}));
  EXPECT_EQ(v.at(0).at("parts").at(0).at("arguments"), json::value("{broken"));
  EXPECT_EQ(v.at(0).at("finish_reason"), json::value("tool_call"));
}

TEST(GenAiContent, SystemAndSingleTextMessages) {
  EXPECT_EQ(json::parse(SystemInstructionsJson("Be brief.")),
            json::parse(R"([{"type":"text","content":"Be brief."}])"));
  EXPECT_EQ(json::parse(TextMessageJson("user", "hi")),
            json::parse(R"([{"role":"user","parts":[{"type":"text","content":"hi"}]}])"));
}

}  // namespace
}  // namespace agentgate::tracing
