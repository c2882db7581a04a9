#include "domain/openai/chat_chunks.hpp"

#include <gtest/gtest.h>
#include <boost/json/parse.hpp>

#include <vector>

namespace agentgate::openai {
namespace {

namespace json = boost::json;

RunEvent Event(std::string type, std::string data) {
  return RunEvent{0, std::move(type), std::move(data)};
}

// The stream's data lines, each parsed ("[DONE]" kept as a string).
std::vector<json::value> Frames(const std::string& out) {
  std::vector<json::value> frames;
  std::size_t at = 0;
  while ((at = out.find("data: ", at)) != std::string::npos) {
    const auto end = out.find("\n\n", at);
    const std::string data = out.substr(at + 6, end - at - 6);
    frames.push_back(data == "[DONE]" ? json::value(data) : json::parse(data));
    at = end;
  }
  return frames;
}

std::string ContentOf(const std::vector<json::value>& frames) {
  std::string content;
  for (const auto& f : frames) {
    if (!f.is_object() || !f.as_object().contains("choices")) continue;
    for (const auto& choice : f.at("choices").as_array()) {
      if (const auto* c = choice.at("delta").as_object().if_contains("content")) {
        content += c->as_string();
      }
    }
  }
  return content;
}

const std::string kBody =
    R"({"response":"Let me check.","blocked":false,"conversation_id":null,"terminated_reason":null,)"
    R"("usage":{"input_tokens":30,"output_tokens":9,"cost_usd":0.1,"model_calls":2,"models":[]}})";

TEST(ChatChunks, ARunsTextActionsAndEndAreChunksEndingWithUsageAndDone) {
  ChatChunkWriter writer(ChunkStream{"chatcmpl-run_1", "shop", 1795651200, true});
  std::string out;
  for (const RunEvent& e :
       {Event("run.started", R"({"run_id":"run_1"})"), Event("model.started", R"({"call":1})"),
        Event("text.delta", R"({"text":"Looking.","call":1})"),
        Event("tool.started", R"({"call_id":"c","name":"status"})"),
        Event("model.started", R"({"call":2})"),
        Event("text.delta", R"({"text":"It ships","call":2})"),
        Event("text.delta", R"({"text":" today.","call":2})"),
        Event("action", R"({"name":"notify","arguments":{"to":"ops"}})")}) {
    EXPECT_FALSE(writer.Append(out, e));
  }
  EXPECT_TRUE(writer.Append(out, Event("run.completed", kBody)));
  const auto frames = Frames(out);
  ASSERT_GE(frames.size(), 5u);
  EXPECT_EQ(frames[0].at("object"), "chat.completion.chunk");
  EXPECT_EQ(frames[0].at("id"), "chatcmpl-run_1");
  EXPECT_EQ(frames[0].at("model"), "shop");
  EXPECT_EQ(frames[0].at("choices").at(0).at("delta").at("role"), "assistant");
  EXPECT_EQ(ContentOf(frames),
            "Looking.\n\nIt ships today.\n\n:::action\n{\"name\":\"notify\",\"arguments\":{\"to\":"
            "\"ops\"}}\n:::");
  const auto& finish = frames[frames.size() - 3];
  EXPECT_EQ(finish.at("choices").at(0).at("finish_reason"), "stop");
  EXPECT_TRUE(finish.at("agentgate").at("terminated_reason").is_null());
  EXPECT_FALSE(finish.at("agentgate").as_object().contains("response"));
  const auto& usage = frames[frames.size() - 2];
  EXPECT_TRUE(usage.at("choices").as_array().empty());
  EXPECT_EQ(usage.at("usage").at("total_tokens"), 39);
  EXPECT_EQ(frames.back(), "[DONE]");
  EXPECT_TRUE(writer.over());
  std::string more;
  EXPECT_TRUE(writer.Append(more, Event("text.delta", R"({"text":"late"})")));
  EXPECT_TRUE(more.empty());
}

TEST(ChatChunks, APlaceholderIsTheContentOfABlockedReplyWithContentFilter) {
  ChatChunkWriter writer(ChunkStream{"chatcmpl-run_2", "bot", 1, false});
  std::string out;
  writer.Append(out, Event("run.started", "{}"));
  writer.Append(out, Event("run.completed",
                           R"({"response":"withheld","blocked":true,"terminated_reason":null})"));
  const auto frames = Frames(out);
  EXPECT_EQ(ContentOf(frames), "withheld");
  EXPECT_EQ(frames[frames.size() - 2].at("choices").at(0).at("finish_reason"), "content_filter");
  EXPECT_EQ(frames.back(), "[DONE]");  // no usage chunk unless asked
}

TEST(ChatChunks, WhatCannotBeTakenBackAndAFailureEndWithAnErrorChunk) {
  for (const auto& [event, code] :
       {std::pair{Event("text.retracted", R"({"reason":"blocked"})"), "reply_withheld"},
        std::pair{Event("text.retracted", R"({"reason":"model_call_failed","call":1})"),
                  "reply_retracted"},
        std::pair{Event("run.failed", R"({"status":504,"code":"turn_timeout","message":"cap"})"),
                  "turn_timeout"}}) {
    ChatChunkWriter writer(ChunkStream{"chatcmpl-run_3", "bot", 1, true});
    std::string out;
    writer.Append(out, Event("text.delta", R"({"text":"Part","call":1})"));
    EXPECT_TRUE(writer.Append(out, event));
    const auto frames = Frames(out);
    EXPECT_EQ(frames.back().at("error").at("code"), code);
    EXPECT_TRUE(out.find("[DONE]") == std::string::npos);
  }
  EXPECT_EQ(FinishReason(false, std::string_view("max_iterations")), "length");
  EXPECT_EQ(FinishReason(false, std::string_view("approval_required")), "stop");
  EXPECT_EQ(FinishReason(false, std::nullopt), "stop");
}

}  // namespace
}  // namespace agentgate::openai
