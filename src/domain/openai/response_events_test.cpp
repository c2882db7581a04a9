#include "domain/openai/response_events.hpp"
#include "domain/openai/response_shape.hpp"

#include <gtest/gtest.h>
#include <boost/json/parse.hpp>

#include <vector>

namespace agentgate::openai {
namespace {

namespace json = boost::json;

RunEvent Event(std::string type, std::string data) {
  return RunEvent{0, std::move(type), std::move(data)};
}

struct Frame {
  std::string event;
  json::object data;
};

// Each `event:` line and its data, parsed.
std::vector<Frame> Frames(const std::string& out) {
  std::vector<Frame> frames;
  std::size_t at = 0;
  while ((at = out.find("event: ", at)) != std::string::npos) {
    const auto line_end = out.find('\n', at);
    const auto data_at = out.find("data: ", line_end) + 6;
    const auto end = out.find("\n\n", data_at);
    frames.push_back(Frame{out.substr(at + 7, line_end - at - 7),
                           json::parse(out.substr(data_at, end - data_at)).as_object()});
    at = end;
  }
  return frames;
}

std::vector<std::string> TypesOf(const std::vector<Frame>& frames) {
  std::vector<std::string> types;
  for (const auto& f : frames) {
    EXPECT_EQ(f.data.at("type").as_string(), f.event);
    types.push_back(f.event);
  }
  return types;
}

ResponseHeader Header() {
  ResponseHeader header;
  header.id = "resp_01ab";
  header.model = "shop";
  header.created_at = 1795651200;
  return header;
}

const std::string kBody =
    R"({"response":"It ships today.","blocked":false,"conversation_id":"conv_1",)"
    R"("terminated_reason":null,"usage":{"input_tokens":30,"output_tokens":9,"cost_usd":0.1,)"
    R"("model_calls":2,"models":[]}})";

TEST(ResponseEvents, ARunsTextIsTheTypedEventsEndingCompletedWithTheWholeResponse) {
  ResponseEventWriter writer(Header());
  std::string out;
  for (const RunEvent& e : {Event("run.started", R"({"run_id":"run_01ab"})"),
                            Event("text.delta", R"({"text":"Looking.","call":1})"),
                            Event("tool.started", R"({"call_id":"c","name":"status"})"),
                            Event("text.delta", R"({"text":"It ships","call":2})"),
                            Event("text.delta", R"({"text":" today.","call":2})")}) {
    EXPECT_FALSE(writer.Append(out, e));
  }
  EXPECT_TRUE(writer.Append(out, Event("run.completed", kBody)));
  const auto frames = Frames(out);
  EXPECT_EQ(
      TypesOf(frames),
      (std::vector<std::string>{
          "response.created", "response.in_progress", "response.output_item.added",
          "response.content_part.added", "response.output_text.delta", "response.output_text.delta",
          "response.output_text.delta", "response.output_text.done", "response.content_part.done",
          "response.output_item.done", "response.completed"}));
  for (std::size_t i = 0; i < frames.size(); ++i)
    EXPECT_EQ(frames[i].data.at("sequence_number").as_int64(), static_cast<std::int64_t>(i));
  EXPECT_EQ(frames[0].data.at("response").at("status"), "in_progress");
  EXPECT_EQ(frames[0].data.at("response").at("id"), "resp_01ab");
  EXPECT_EQ(frames[2].data.at("item").at("id"), "msg_01ab");
  // Each step's text apart, as /api's stream releases it.
  EXPECT_EQ(frames[5].data.at("delta"), "\n\nIt ships");
  EXPECT_EQ(frames[7].data.at("text"), "Looking.\n\nIt ships today.");
  const auto& response = frames.back().data.at("response").as_object();
  EXPECT_EQ(response.at("status"), "completed");
  EXPECT_EQ(response.at("output").at(0).at("content").at(0).at("text"),
            "Looking.\n\nIt ships today.");
  EXPECT_EQ(response.at("usage").at("total_tokens"), 39);
  EXPECT_EQ(response.at("agentgate").at("conversation_id"), "conv_1");
  EXPECT_FALSE(response.at("agentgate").as_object().contains("response"));
  std::string after;
  EXPECT_TRUE(writer.Append(after, Event("run.completed", kBody)));
  EXPECT_TRUE(after.empty());  // nothing past the end
}

TEST(ResponseEvents, AReplyNeverReleasedAsTextGoesOutWholeAtTheEnd) {
  ResponseEventWriter writer(Header());
  std::string out;
  writer.Append(
      out,
      Event("run.completed",
            R"({"response":"[withheld]","blocked":true,"terminated_reason":null,"usage":{}})"));
  const auto frames = Frames(out);
  EXPECT_EQ(frames[4].event, "response.output_text.delta");
  EXPECT_EQ(frames[4].data.at("delta"), "[withheld]");
  EXPECT_EQ(frames.back().event, "response.incomplete");
  EXPECT_EQ(frames.back().data.at("response").at("incomplete_details").at("reason"),
            "content_filter");
}

TEST(ResponseEvents, APauseForApprovalIsIncompleteWithItsRunAndPendingCalls) {
  ResponseEventWriter writer(Header());
  std::string out;
  writer.Append(out,
                Event("run.requires_action",
                      R"({"response":"","blocked":false,"terminated_reason":"approval_required",)"
                      R"("run_id":"run_01ab","pending_actions":[{"call_id":"c0","tool":"refund"}],)"
                      R"("usage":{}})"));
  const auto frames = Frames(out);
  EXPECT_EQ(TypesOf(frames), (std::vector<std::string>{"response.created", "response.in_progress",
                                                       "response.incomplete"}));
  const auto& response = frames.back().data.at("response");
  EXPECT_EQ(response.at("incomplete_details").at("reason"), "approval_required");
  EXPECT_EQ(response.at("agentgate").at("pending_actions").at(0).at("tool"), "refund");
  EXPECT_TRUE(response.at("output").as_array().empty());
}

TEST(ResponseEvents, ARetractionEndsWithAnErrorEventTheSdksRaise) {
  ResponseEventWriter writer(Header());
  std::string out;
  writer.Append(out, Event("text.delta", R"({"text":"The code is","call":1})"));
  EXPECT_TRUE(writer.Append(out, Event("text.retracted", R"({"reason":"blocked","call":1})")));
  const auto frames = Frames(out);
  EXPECT_EQ(frames.back().event, "error");
  EXPECT_EQ(frames.back().data.at("code"), "reply_withheld");
  EXPECT_EQ(frames.back().data.at("error").at("code"), "reply_withheld");
  EXPECT_EQ(frames.back().data.at("error").at("type"), "server_error");
}

TEST(ResponseEvents, ARunThatFailsEndsWithResponseFailedAndItsError) {
  ResponseEventWriter writer(Header());
  std::string out;
  EXPECT_TRUE(writer.Append(out, Event("run.failed", R"({"status":504,"code":"turn_timeout",)"
                                                     R"("message":"the turn passed its cap"})")));
  const auto frames = Frames(out);
  EXPECT_EQ(frames.back().event, "response.failed");
  const auto& response = frames.back().data.at("response");
  EXPECT_EQ(response.at("status"), "failed");
  EXPECT_EQ(response.at("error").at("code"), "turn_timeout");
  EXPECT_EQ(response.at("error").at("message"), "the turn passed its cap");
}

TEST(ResponseShapes, WhatWasAskedIsKeptAndReadBackAndTheDefaultKeepsNothing) {
  ResponseHeader asked;
  EXPECT_FALSE(AskedOf(asked).has_value());
  asked.instructions = "Be brief.";
  asked.previous_response_id = "resp_01";
  asked.conversation = "conv_02";
  asked.background = true;
  asked.text_format = json::object{{"type", "json_object"}};
  asked.metadata = json::object{{"ticket", "T-7"}};
  const auto kept = AskedOf(asked);
  ASSERT_TRUE(kept.has_value());
  ResponseHeader read;
  read.id = "resp_03";
  ApplyAsked(*kept, read);
  EXPECT_EQ(read.instructions, "Be brief.");
  EXPECT_EQ(read.previous_response_id, "resp_01");
  EXPECT_EQ(read.conversation, "conv_02");
  EXPECT_TRUE(read.background);
  EXPECT_EQ(read.text_format, (json::object{{"type", "json_object"}}));
  EXPECT_EQ(read.metadata, (json::object{{"ticket", "T-7"}}));
  EXPECT_EQ(read.id, "resp_03");
  ResponseHeader untouched;
  ApplyAsked("not json", untouched);
  EXPECT_FALSE(untouched.instructions.has_value());
  EXPECT_EQ(untouched.text_format, (json::object{{"type", "text"}}));
}

TEST(ResponseShapes, AnAnswerMapsItsStopReasonToStatusAndIncompleteReason) {
  auto body = [](std::string_view reason) {
    return json::parse(std::string(R"({"response":"part","blocked":false,"terminated_reason":)") +
                       std::string(reason) + R"(,"usage":{"input_tokens":1,"output_tokens":2}})")
        .as_object();
  };
  EXPECT_EQ(AnsweredResponse(Header(), body("null")).at("status"), "completed");
  const auto partial = AnsweredResponse(Header(), body(R"("max_iterations")"));
  EXPECT_EQ(partial.at("status"), "incomplete");
  EXPECT_EQ(partial.at("incomplete_details").at("reason"), "max_output_tokens");
  EXPECT_EQ(partial.at("agentgate").at("terminated_reason"), "max_iterations");
  EXPECT_EQ(partial.at("output").at(0).at("status"), "incomplete");
  const auto queued = UnansweredResponse(Header(), "queued");
  EXPECT_EQ(queued.at("status"), "queued");
  EXPECT_TRUE(queued.at("output").as_array().empty());
  EXPECT_TRUE(queued.at("usage").is_null());
}

}  // namespace
}  // namespace agentgate::openai
