#include "domain/resource_ids.hpp"

#include <gtest/gtest.h>

namespace agentgate::ids {
namespace {

TEST(ResourceIds, ARunAndItsAnsweringTurnShareTheirPart) {
  const std::string run = Make(kRun, "018f00aa");
  EXPECT_EQ(run, "run_018f00aa");
  EXPECT_EQ(TurnOfRun(run), "turn_018f00aa");
  EXPECT_EQ(RunOfTurn(TurnOfRun(run)), run);
}

TEST(ResourceIds, OpenAiNamesComeFromTheSamePart) {
  EXPECT_EQ(ResponseOf("run_01ab"), "resp_01ab");
  EXPECT_EQ(ResponseOf("turn_01ab"), "resp_01ab");
  EXPECT_EQ(MessageOfResponse("resp_01ab"), "msg_01ab");
  EXPECT_EQ(ChatCompletionOf("turn_01ab"), "chatcmpl-turn_01ab");
}

TEST(ResourceIds, PartOfAnIdWithoutPrefixIsTheWholeId) {
  EXPECT_EQ(PartOf("run_1_2"), "1_2");
  EXPECT_EQ(PartOf("plain"), "plain");
}

TEST(ResourceIds, OnlyAResponseShapedIdHasAResponseHex) {
  EXPECT_EQ(ResponseHex("resp_01a2ff"), "01a2ff");
  EXPECT_FALSE(ResponseHex("resp_"));
  EXPECT_FALSE(ResponseHex("resp_01A2"));
  EXPECT_FALSE(ResponseHex("turn_01a2"));
  EXPECT_FALSE(ResponseHex("resp_../x"));
  EXPECT_FALSE(ResponseHex("resp_" + std::string(65, 'a')));
  EXPECT_TRUE(ResponseHex("resp_" + std::string(64, 'a')));
}

TEST(ResourceIds, AConversationItemNamesItsConversationAndSeq) {
  EXPECT_EQ(ItemOf("conv_0a1b", 7), "msg_0a1b_7");
  const auto place = ItemPlaceOf("msg_0a1b_7");
  ASSERT_TRUE(place);
  EXPECT_EQ(place->conversation_id, "conv_0a1b");
  EXPECT_EQ(place->seq, 7);
  EXPECT_FALSE(ItemPlaceOf("msg_0a1b"));  // a response's message
  EXPECT_FALSE(ItemPlaceOf("msg_0a1b_"));
  EXPECT_FALSE(ItemPlaceOf("msg_0a1b_07"));
  EXPECT_FALSE(ItemPlaceOf("msg_0a1b_-1"));
  EXPECT_FALSE(ItemPlaceOf("msg_0A1b_1"));
  EXPECT_FALSE(ItemPlaceOf("msg_0a1b_1_2"));
  EXPECT_FALSE(ItemPlaceOf("msg_0a1b_" + std::string(19, '9')));
  EXPECT_FALSE(ItemPlaceOf("conv_0a1b_1"));
}

}  // namespace
}  // namespace agentgate::ids
