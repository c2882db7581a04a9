#include "adapters/providers/stream_wire.hpp"

#include <gtest/gtest.h>
#include <boost/json/parse.hpp>

namespace agentgate::wire {
namespace {

namespace json = boost::json;
using Kind = ModelFailure::Kind;

// Feeds `body` to a reader `piece` bytes at a time (streams arrive cut anywhere) and returns
// the text pieces it heard and its reply.
struct Heard {
  std::vector<std::string> pieces;
  Parsed result;
};
Heard Read(StreamDialect dialect, std::string_view body, std::size_t piece) {
  StreamedReply reader(dialect);
  Heard heard;
  const auto sink = [&](std::string_view text) { heard.pieces.emplace_back(text); };
  for (std::size_t at = 0; at < body.size(); at += piece) reader.Feed(body.substr(at, piece), sink);
  heard.result = reader.Finish();
  return heard;
}

std::string Joined(const std::vector<std::string>& pieces) {
  std::string out;
  for (const auto& p : pieces) out += p;
  return out;
}

// As OpenAI streams /v1/chat/completions with stream_options.include_usage.
constexpr std::string_view kOpenAiText =
    "data: {\"id\":\"c\",\"model\":\"gpt-4o-mini-2024-07-18\",\"choices\":[{\"index\":0,"
    "\"delta\":{\"role\":\"assistant\",\"content\":\"\"},\"finish_reason\":null}]}\n\n"
    "data: {\"id\":\"c\",\"choices\":[{\"index\":0,\"delta\":{\"content\":\"Hel\"}}]}\n\n"
    "data: {\"id\":\"c\",\"choices\":[{\"index\":0,\"delta\":{\"content\":\"lo "
    "\\u00e9t\\u00e9\"}}]}"
    "\r\n\r\n"
    ": keep-alive\n\n"
    "data: {\"id\":\"c\",\"choices\":[{\"index\":0,\"delta\":{},\"finish_reason\":\"stop\"}]}\n\n"
    "data: "
    "{\"id\":\"c\",\"choices\":[],\"usage\":{\"prompt_tokens\":11,\"completion_tokens\":4}}\n\n"
    "data: [DONE]\n\n";

TEST(SseDecoder, JoinsDataLinesAndSkipsCommentsAcrossAnyCut) {
  const std::string_view stream = "event: a\ndata: one\ndata: two\n\n: note\n\ndata:three\r\n\r\n";
  for (std::size_t piece = 1; piece <= stream.size(); ++piece) {
    SseDecoder decoder;
    std::vector<SseEvent> events;
    for (std::size_t at = 0; at < stream.size(); at += piece) {
      for (auto& e : decoder.Feed(stream.substr(at, piece))) events.push_back(std::move(e));
    }
    ASSERT_EQ(events.size(), 2u) << "piece " << piece;
    EXPECT_EQ(events[0].event, "a");
    EXPECT_EQ(events[0].data, "one\ntwo");
    EXPECT_EQ(events[1].event, "");
    EXPECT_EQ(events[1].data, "three");
  }
}

TEST(StreamedReply, OpenAiTextArrivesInPiecesAndTheReplyCountsItsUsage) {
  for (std::size_t piece : {1u, 7u, 4096u}) {
    const Heard heard = Read(StreamDialect::kOpenAi, kOpenAiText, piece);
    EXPECT_EQ(Joined(heard.pieces), "Hello \u00e9t\u00e9");
    EXPECT_EQ(heard.pieces.size(), 2u);  // one per delta, whatever the cut
    const auto& reply = std::get<ModelReply>(heard.result);
    EXPECT_EQ(reply.text, "Hello \u00e9t\u00e9");
    EXPECT_TRUE(reply.tool_calls.empty());
    EXPECT_EQ(reply.usage.input_tokens, 11);
    EXPECT_EQ(reply.usage.output_tokens, 4);
    EXPECT_EQ(reply.finish_reason, "stop");
    EXPECT_EQ(reply.response_model, "gpt-4o-mini-2024-07-18");
  }
}

TEST(StreamedReply, OpenAiToolCallsAreAssembledFromTheirFragments) {
  const std::string body =
      "data: {\"choices\":[{\"delta\":{\"tool_calls\":[{\"index\":0,\"id\":\"call_a\",\"type\":"
      "\"function\",\"function\":{\"name\":\"lookup\",\"arguments\":\"\"}}]}}]}\n\n"
      "data: {\"choices\":[{\"delta\":{\"tool_calls\":[{\"index\":0,\"function\":{\"arguments\":"
      "\"{\\\"q\\\":\"}}]}}]}\n\n"
      "data: {\"choices\":[{\"delta\":{\"tool_calls\":[{\"index\":1,\"id\":\"call_b\","
      "\"function\":{\"name\":\"track\",\"arguments\":\"{}\"}}]}}]}\n\n"
      "data: {\"choices\":[{\"delta\":{\"tool_calls\":[{\"index\":0,\"function\":{\"arguments\":"
      "\"\\\"x\\\"}\"}}]}}]}\n\n"
      "data: {\"choices\":[],\"usage\":{\"prompt_tokens\":3,\"completion_tokens\":2}}\n\n"
      "data: [DONE]\n\n";
  const Heard heard = Read(StreamDialect::kOpenAi, body, 5);
  EXPECT_TRUE(heard.pieces.empty());
  const auto& reply = std::get<ModelReply>(heard.result);
  ASSERT_EQ(reply.tool_calls.size(), 2u);
  EXPECT_EQ(reply.tool_calls[0].id, "call_a");
  EXPECT_EQ(reply.tool_calls[0].name, "lookup");
  EXPECT_EQ(reply.tool_calls[0].arguments_json, R"({"q":"x"})");
  EXPECT_EQ(reply.tool_calls[1].name, "track");
}

TEST(StreamedReply, AStreamCutBeforeItsEndIsATransientFailure) {
  const std::string_view whole = kOpenAiText;
  const auto cut = whole.substr(0, whole.find("data: [DONE]"));
  const Heard heard = Read(StreamDialect::kOpenAi, cut, 64);
  EXPECT_EQ(Joined(heard.pieces), "Hello \u00e9t\u00e9");  // heard, then failed: retried
  const auto& failure = std::get<ModelFailure>(heard.result);
  EXPECT_EQ(failure.kind, Kind::kTransient);
  EXPECT_NE(failure.message.find("stream ended"), std::string::npos);
}

TEST(StreamedReply, AnErrorInTheStreamIsClassifiedLikeTheSameErrorAnswered) {
  const Heard openai = Read(StreamDialect::kOpenAi,
                            "data: {\"error\":{\"message\":\"boom\",\"type\":\"server_error\"}}\n\n"
                            "data: [DONE]\n\n",
                            4096);
  EXPECT_EQ(std::get<ModelFailure>(openai.result).kind, Kind::kTransient);
  const Heard overloaded = Read(StreamDialect::kAnthropic,
                                "event: error\ndata: {\"type\":\"error\",\"error\":{\"type\":"
                                "\"overloaded_error\",\"message\":\"Overloaded\"}}\n\n",
                                4096);
  const auto& failure = std::get<ModelFailure>(overloaded.result);
  EXPECT_EQ(failure.kind, Kind::kTransient);
  EXPECT_NE(failure.message.find("overloaded_error"), std::string::npos);
  const Heard limited = Read(StreamDialect::kAnthropic,
                             "event: error\ndata: {\"type\":\"error\",\"error\":{\"type\":"
                             "\"rate_limit_error\",\"message\":\"slow down\"}}\n\n",
                             4096);
  EXPECT_EQ(std::get<ModelFailure>(limited.result).kind, Kind::kThrottled);
  const Heard garbage = Read(StreamDialect::kOpenAi, "data: {not json\n\n", 4096);
  EXPECT_EQ(std::get<ModelFailure>(garbage.result).kind, Kind::kTransient);
}

// As Anthropic streams /v1/messages: text and a tool call, usage from message_start and the
// cumulative count in message_delta.
constexpr std::string_view kAnthropic =
    "event: message_start\ndata: {\"type\":\"message_start\",\"message\":{\"id\":\"msg_1\","
    "\"model\":\"claude-haiku-4-5\","
    "\"type\":\"message\",\"role\":\"assistant\",\"content\":[],\"usage\":{\"input_tokens\":25,"
    "\"output_tokens\":1}}}\n\n"
    "event: content_block_start\ndata: {\"type\":\"content_block_start\",\"index\":0,"
    "\"content_block\":{\"type\":\"text\",\"text\":\"\"}}\n\n"
    "event: ping\ndata: {\"type\": \"ping\"}\n\n"
    "event: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"index\":0,\"delta\":"
    "{\"type\":\"text_delta\",\"text\":\"Checking \"}}\n\n"
    "event: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"index\":0,\"delta\":"
    "{\"type\":\"text_delta\",\"text\":\"now.\"}}\n\n"
    "event: content_block_stop\ndata: {\"type\":\"content_block_stop\",\"index\":0}\n\n"
    "event: content_block_start\ndata: {\"type\":\"content_block_start\",\"index\":1,"
    "\"content_block\":{\"type\":\"tool_use\",\"id\":\"toolu_1\",\"name\":\"track\",\"input\":{}}}"
    "\n\n"
    "event: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"index\":1,\"delta\":"
    "{\"type\":\"input_json_delta\",\"partial_json\":\"{\\\"order\\\": \"}}\n\n"
    "event: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"index\":1,\"delta\":"
    "{\"type\":\"input_json_delta\",\"partial_json\":\"\\\"A-1\\\"}\"}}\n\n"
    "event: content_block_stop\ndata: {\"type\":\"content_block_stop\",\"index\":1}\n\n"
    "event: message_delta\ndata: {\"type\":\"message_delta\",\"delta\":{\"stop_reason\":"
    "\"tool_use\"},\"usage\":{\"output_tokens\":17}}\n\n"
    "event: message_stop\ndata: {\"type\":\"message_stop\"}\n\n";

TEST(StreamedReply, AnthropicTextAndToolInputAreAssembledWithTheFinalUsage) {
  for (std::size_t piece : {1u, 13u, 4096u}) {
    const Heard heard = Read(StreamDialect::kAnthropic, kAnthropic, piece);
    EXPECT_EQ(heard.pieces, (std::vector<std::string>{"Checking ", "now."}));
    const auto& reply = std::get<ModelReply>(heard.result);
    EXPECT_EQ(reply.text, "Checking now.");
    ASSERT_EQ(reply.tool_calls.size(), 1u);
    EXPECT_EQ(reply.tool_calls[0].id, "toolu_1");
    EXPECT_EQ(reply.tool_calls[0].name, "track");
    EXPECT_EQ(reply.tool_calls[0].arguments_json, R"({"order":"A-1"})");
    EXPECT_EQ(reply.usage.input_tokens, 25);
    EXPECT_EQ(reply.usage.output_tokens, 17);
    EXPECT_EQ(reply.finish_reason, "tool_use");
    EXPECT_EQ(reply.response_model, "claude-haiku-4-5");
  }
  const std::string_view whole = kAnthropic;
  const Heard cut =
      Read(StreamDialect::kAnthropic, whole.substr(0, whole.find("event: message_delta")), 50);
  EXPECT_EQ(std::get<ModelFailure>(cut.result).kind, Kind::kTransient);
}

TEST(RequestBodies, AStreamedCallAsksForEventsAndForItsUsage) {
  ModelRequest request;
  request.model = "m";
  request.messages.push_back(ChatMessage{Role::kUser, "hi", {}, "", ""});
  const auto openai = json::parse(OpenAiRequestBody(request, true)).as_object();
  EXPECT_EQ(openai.at("stream"), true);
  EXPECT_EQ(openai.at("stream_options").at("include_usage"), true);
  EXPECT_FALSE(json::parse(OpenAiRequestBody(request)).as_object().contains("stream"));
  EXPECT_EQ(json::parse(AnthropicRequestBody(request, true)).as_object().at("stream"), true);
  EXPECT_FALSE(json::parse(AnthropicRequestBody(request)).as_object().contains("stream"));
}

}  // namespace
}  // namespace agentgate::wire

namespace agentgate::wire {

TEST(StreamedReply, CachedTokensInAStreamAreCountedAsAPlainReplyCountsThem) {
  const std::string anthropic =
      "event: message_start\ndata: {\"type\":\"message_start\",\"message\":{\"model\":\"c\","
      "\"usage\":{\"input_tokens\":7,\"cache_read_input_tokens\":1500,"
      "\"cache_creation_input_tokens\":300,\"output_tokens\":1}}}\n\n"
      "event: content_block_start\ndata: {\"type\":\"content_block_start\",\"index\":0,"
      "\"content_block\":{\"type\":\"text\",\"text\":\"\"}}\n\n"
      "event: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"index\":0,"
      "\"delta\":{\"type\":\"text_delta\",\"text\":\"ok\"}}\n\n"
      "event: message_delta\ndata: {\"type\":\"message_delta\",\"delta\":{\"stop_reason\":"
      "\"end_turn\"},\"usage\":{\"output_tokens\":9}}\n\n"
      "event: message_stop\ndata: {\"type\":\"message_stop\"}\n\n";
  const auto a = std::get<ModelReply>(Read(StreamDialect::kAnthropic, anthropic, 17).result).usage;
  EXPECT_EQ(a.input_tokens, 1807);
  EXPECT_EQ(a.cached_input_tokens, 1500);
  EXPECT_EQ(a.cache_write_tokens, 300);
  EXPECT_EQ(a.output_tokens, 9);

  const std::string openai =
      "data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"ok\"}}]}\n\n"
      "data: {\"choices\":[{\"index\":0,\"delta\":{},\"finish_reason\":\"stop\"}]}\n\n"
      "data: {\"choices\":[],\"usage\":{\"prompt_tokens\":2000,\"completion_tokens\":3,"
      "\"prompt_tokens_details\":{\"cached_tokens\":1024}}}\n\n"
      "data: [DONE]\n\n";
  const auto o = std::get<ModelReply>(Read(StreamDialect::kOpenAi, openai, 11).result).usage;
  EXPECT_EQ(o.input_tokens, 2000);
  EXPECT_EQ(o.cached_input_tokens, 1024);
}

}  // namespace agentgate::wire
