#include "domain/openai/chat_chunks.hpp"

#include "domain/json_text.hpp"
#include "domain/openai/error_shape.hpp"

#include <boost/json/array.hpp>
#include <boost/json/object.hpp>
#include <boost/json/parse.hpp>

#include <variant>

namespace agentgate::openai {

namespace json = boost::json;

namespace {

void AppendData(std::string& out, std::string_view json_text) {
  out.append("data: ").append(json_text).append("\n\n");
}

}  // namespace

std::string_view FinishReason(bool blocked, std::optional<std::string_view> terminated_reason) {
  if (blocked) return "content_filter";
  if (!terminated_reason || *terminated_reason == "approval_required" ||
      *terminated_reason == "input_required")
    return "stop";
  return "length";
}

void ChatChunkWriter::AppendChunk(std::string& out, std::string_view delta_json,
                                  std::string_view finish_reason, std::string_view extension_json) {
  json::object choice{{"index", 0}, {"delta", json::parse(delta_json)}, {"logprobs", nullptr}};
  choice["finish_reason"] =
      finish_reason.empty() ? json::value(nullptr) : json::value(finish_reason);
  json::object chunk{{"id", stream_.id},
                     {"object", "chat.completion.chunk"},
                     {"created", stream_.created},
                     {"model", stream_.model},
                     {"choices", json::array{std::move(choice)}}};
  if (!extension_json.empty()) chunk["agentgate"] = json::parse(extension_json);
  AppendData(out, json_text::Write(chunk));
}

void ChatChunkWriter::AppendContent(std::string& out, std::string_view text) {
  if (text.empty()) return;
  AppendChunk(out, json_text::Write(json::object{{"content", text}}));
}

void ChatChunkWriter::AppendEnd(std::string& out, json::object body) {
  const std::string_view reason = StringIn(body, "terminated_reason");
  // A reply the run never released as text (the placeholder, one sent whole) goes out now.
  if (!reply_.wrote_text()) AppendContent(out, StringIn(body, "response"));
  const std::string finish(
      FinishReason(BlockedIn(body), reason.empty() ? std::nullopt : std::optional(reason)));
  const json::object usage = body.contains("usage") && body.at("usage").is_object()
                                 ? body.at("usage").as_object()
                                 : json::object();
  body.erase("response");  // the content
  // The caller's functions the model called: sent once, whole, after the safety check.
  const json::value* calls = body.if_contains("tool_calls");
  if (calls != nullptr && calls->is_array() && !calls->get_array().empty()) {
    json::array deltas;
    for (const auto& call : calls->get_array()) {
      if (!call.is_object()) continue;
      const json::object& c = call.as_object();
      deltas.push_back(json::object{
          {"index", static_cast<std::int64_t>(deltas.size())},
          {"id", StringIn(c, "call_id")},
          {"type", "function"},
          {"function",
           json::object{{"name", StringIn(c, "name")}, {"arguments", StringIn(c, "arguments")}}}});
    }
    AppendChunk(out, json_text::Write(json::object{{"tool_calls", std::move(deltas)}}));
    body.erase("tool_calls");
    AppendChunk(out, "{}", "tool_calls", json_text::Write(body));
  } else {
    AppendChunk(out, "{}", finish, json_text::Write(body));
  }
  if (stream_.include_usage) {
    const std::int64_t prompt = IntIn(usage, "input_tokens");
    const std::int64_t completion = IntIn(usage, "output_tokens");
    json::object chunk{{"id", stream_.id},
                       {"object", "chat.completion.chunk"},
                       {"created", stream_.created},
                       {"model", stream_.model},
                       {"choices", json::array()},
                       {"usage", json::object{{"prompt_tokens", prompt},
                                              {"completion_tokens", completion},
                                              {"total_tokens", prompt + completion}}}};
    AppendData(out, json_text::Write(chunk));
  }
  AppendData(out, "[DONE]");
  over_ = true;
}

void ChatChunkWriter::AppendError(std::string& out, std::string_view message, std::string_view code,
                                  int status) {
  json::object error{
      {"message", message}, {"type", ErrorTypeOf(status)}, {"code", code}, {"param", nullptr}};
  AppendData(out, json_text::Write(json::object{{"error", std::move(error)}}));
  over_ = true;
}

bool ChatChunkWriter::Append(std::string& out, const RunEvent& event) {
  if (over_) return true;
  if (!started_) {
    AppendChunk(out, R"({"role":"assistant","content":""})");
    started_ = true;
  }
  ReplyStep step = reply_.Read(event);
  if (auto* text = std::get_if<std::string>(&step)) {
    AppendContent(out, *text);
  } else if (auto* answered = std::get_if<ReplyAnswered>(&step)) {
    AppendEnd(out, std::move(answered->body));
  } else if (auto* failed = std::get_if<ReplyFailed>(&step)) {
    AppendError(out, failed->message, failed->code, failed->status);
  }
  return over_;
}

}  // namespace agentgate::openai
