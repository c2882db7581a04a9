#include "domain/openai/conversation_objects.hpp"

#include <gtest/gtest.h>
#include <boost/json/parse.hpp>

namespace agentgate::openai {
namespace {

namespace json = boost::json;

TEST(ConversationObjects, ItemsAreMessagesOfTheUserOrTheAssistant) {
  // As the Agents SDK's session adds them: parts, ids and statuses of its own.
  const auto items = ReadItems(json::parse(R"([
    {"role": "user", "content": "hi"},
    {"type": "message", "role": "assistant", "id": "msg_1", "status": "completed",
     "content": [{"type": "output_text", "text": "hello", "annotations": []}]}])"),
                               "items");
  ASSERT_TRUE(items) << items.error().message;
  ASSERT_EQ(items->size(), 2u);
  EXPECT_EQ((*items)[1].role, "assistant");
  EXPECT_EQ((*items)[1].text, "hello");
}

TEST(ConversationObjects, FunctionCallsAndTheirOutputsAreKeptAndShownAsTheirItems) {
  const auto items = ReadItems(json::parse(R"([
    {"type": "function_call", "call_id": "call_1", "name": "weather", "arguments": "{}"},
    {"type": "function_call_output", "call_id": "call_1", "output": "sunny"}])"),
                               "items");
  ASSERT_TRUE(items) << items.error().message;
  ASSERT_EQ(items->size(), 2u);
  const auto call = ItemObject("msg_1_1", (*items)[0]);
  EXPECT_EQ(call.at("type"), "function_call");
  EXPECT_EQ(call.at("call_id"), "call_1");
  EXPECT_EQ(call.at("name"), "weather");
  const auto output = ItemObject("msg_1_2", (*items)[1]);
  EXPECT_EQ(output.at("type"), "function_call_output");
  EXPECT_EQ(output.at("output"), "sunny");
}

TEST(ConversationObjects, WhatIsNotAMessageIsRefusedNamingItsField) {
  auto refused = ReadItems(json::parse(R"([{"role": "user", "content": "a"},
    {"type": "web_search_call", "id": "f"}])"),
                           "items");
  ASSERT_FALSE(refused);
  EXPECT_NE(refused.error().message.find("items[1].type"), std::string::npos);
  // A function call needs its call_id.
  refused = ReadItems(json::parse(R"([{"type": "function_call", "name": "f"}])"), "items");
  ASSERT_FALSE(refused);
  EXPECT_NE(refused.error().message.find("items[0].call_id"), std::string::npos);
  refused = ReadItems(json::parse(R"([{"role": "system", "content": "a"}])"), "items");
  ASSERT_FALSE(refused);
  EXPECT_NE(refused.error().message.find("items[0].role"), std::string::npos);
  refused = ReadItems(json::parse(R"([{"role": "user"}])"), "items");
  ASSERT_FALSE(refused);
  EXPECT_NE(refused.error().message.find("items[0].content"), std::string::npos);
  refused = ReadItems(json::parse(R"({"role": "user"})"), "items");
  ASSERT_FALSE(refused);
  json::array many;
  for (int i = 0; i < 21; ++i) many.push_back(json::object{{"role", "user"}, {"content", "x"}});
  EXPECT_FALSE(ReadItems(many, "items"));
}

TEST(ConversationObjects, AnItemListNamesItsFirstAndLastItem) {
  json::array data{ItemObject("msg_a_1", {"user", "q"}), ItemObject("msg_a_2", {"assistant", "a"})};
  const auto list = ItemList(std::move(data), true);
  EXPECT_EQ(list.at("first_id"), "msg_a_1");
  EXPECT_EQ(list.at("last_id"), "msg_a_2");
  EXPECT_EQ(list.at("has_more"), true);
  EXPECT_EQ(list.at("data").as_array()[1].at("content").as_array()[0].at("type"), "output_text");
  EXPECT_TRUE(ItemList({}, false).at("first_id").is_null());
}

}  // namespace
}  // namespace agentgate::openai
