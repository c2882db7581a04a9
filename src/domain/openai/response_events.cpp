#include "domain/openai/response_events.hpp"

#include "domain/json_text.hpp"
#include "domain/openai/error_shape.hpp"

#include <boost/json/array.hpp>

#include <variant>

namespace agentgate::openai {

namespace json = boost::json;

namespace {

json::object TextPart(std::string_view text) {
  return json::object{{"type", "output_text"}, {"text", text}, {"annotations", json::array()}};
}

}  // namespace

void ResponseEventWriter::AppendEvent(std::string& out, std::string_view type, json::object data) {
  data["type"] = type;
  data["sequence_number"] = sequence_++;
  out.append("event: ")
      .append(type)
      .append("\ndata: ")
      .append(json_text::Write(data))
      .append("\n\n");
}

void ResponseEventWriter::AppendText(std::string& out, std::string_view text) {
  if (text.empty()) return;
  const std::string item_id = MessageIdOf(header_);
  if (!message_open_) {
    json::object item{{"type", "message"},
                      {"id", item_id},
                      {"status", "in_progress"},
                      {"role", "assistant"},
                      {"content", json::array()}};
    AppendEvent(out, "response.output_item.added",
                json::object{{"output_index", 0}, {"item", std::move(item)}});
    AppendEvent(out, "response.content_part.added",
                json::object{{"item_id", item_id},
                             {"output_index", 0},
                             {"content_index", 0},
                             {"part", TextPart("")}});
    message_open_ = true;
  }
  AppendEvent(out, "response.output_text.delta",
              json::object{{"item_id", item_id},
                           {"output_index", 0},
                           {"content_index", 0},
                           {"delta", text},
                           {"logprobs", json::array()}});
  text_.append(text);
}

void ResponseEventWriter::CloseMessage(std::string& out, std::string_view status) {
  if (!message_open_) return;
  const std::string item_id = MessageIdOf(header_);
  AppendEvent(out, "response.output_text.done",
              json::object{{"item_id", item_id},
                           {"output_index", 0},
                           {"content_index", 0},
                           {"text", text_},
                           {"logprobs", json::array()}});
  AppendEvent(out, "response.content_part.done",
              json::object{{"item_id", item_id},
                           {"output_index", 0},
                           {"content_index", 0},
                           {"part", TextPart(text_)}});
  json::object item{{"type", "message"},
                    {"id", item_id},
                    {"status", status},
                    {"role", "assistant"},
                    {"content", json::array{TextPart(text_)}}};
  AppendEvent(out, "response.output_item.done",
              json::object{{"output_index", 0}, {"item", std::move(item)}});
  message_open_ = false;
}

void ResponseEventWriter::AppendEnd(std::string& out, const json::object& body) {
  // A reply the run never released as text (the placeholder, one sent whole) goes out now.
  if (!reply_.wrote_text()) AppendText(out, StringIn(body, "response"));
  // The whole response as the stream wrote it (its text as it went out).
  json::object response = AnsweredResponse(header_, body, &text_);
  const bool completed = response.at("status") == "completed";
  const bool message = message_open_;
  CloseMessage(out, completed ? "completed" : "incomplete");
  // The caller's functions the model called: each item whole, after the safety check.
  std::int64_t index = message ? 1 : 0;
  for (auto& call : FunctionCallsOf(header_, body)) {
    const json::value item_id = call.at("id");
    const json::value arguments = call.at("arguments");
    json::object added = call;
    added["status"] = "in_progress";
    added["arguments"] = "";
    AppendEvent(out, "response.output_item.added",
                json::object{{"output_index", index}, {"item", std::move(added)}});
    AppendEvent(out, "response.function_call_arguments.delta",
                json::object{{"item_id", item_id}, {"output_index", index}, {"delta", arguments}});
    AppendEvent(out, "response.function_call_arguments.done",
                json::object{{"item_id", item_id},
                             {"output_index", index},
                             {"name", call.at("name")},
                             {"arguments", arguments}});
    AppendEvent(out, "response.output_item.done",
                json::object{{"output_index", index}, {"item", std::move(call)}});
    ++index;
  }
  AppendEvent(out, completed ? "response.completed" : "response.incomplete",
              json::object{{"response", std::move(response)}});
  over_ = true;
}

void ResponseEventWriter::AppendError(std::string& out, std::string_view message,
                                      std::string_view code, int status) {
  // The Responses API's own error event, and OpenAI's error object beside it, which the SDKs
  // raise as an APIError.
  json::object error{
      {"message", message}, {"type", ErrorTypeOf(status)}, {"code", code}, {"param", nullptr}};
  AppendEvent(
      out, "error",
      json::object{
          {"code", code}, {"message", message}, {"param", nullptr}, {"error", std::move(error)}});
  over_ = true;
}

bool ResponseEventWriter::Append(std::string& out, const RunEvent& event) {
  if (over_) return true;
  if (!started_) {
    json::object response = UnansweredResponse(header_, "in_progress");
    AppendEvent(out, "response.created", json::object{{"response", response}});
    AppendEvent(out, "response.in_progress", json::object{{"response", std::move(response)}});
    started_ = true;
  }
  ReplyStep step = reply_.Read(event);
  if (auto* text = std::get_if<std::string>(&step)) {
    AppendText(out, *text);
  } else if (auto* answered = std::get_if<ReplyAnswered>(&step)) {
    AppendEnd(out, answered->body);
  } else if (auto* failed = std::get_if<ReplyFailed>(&step)) {
    if (event.type == "run.failed") {
      // The run itself failed: the response did, with its error.
      CloseMessage(out, "incomplete");
      const json::object error{{"code", failed->code}, {"message", failed->message}};
      AppendEvent(out, "response.failed",
                  json::object{{"response", UnansweredResponse(header_, "failed", &error)}});
      over_ = true;
    } else {
      AppendError(out, failed->message, failed->code, failed->status);
    }
  }
  return over_;
}

}  // namespace agentgate::openai
