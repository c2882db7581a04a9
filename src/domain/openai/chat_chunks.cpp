#include "domain/openai/chat_chunks.hpp"

#include "domain/json_text.hpp"
#include "domain/openai/error_shape.hpp"

#include <boost/json/array.hpp>
#include <boost/json/object.hpp>
#include <boost/json/parse.hpp>

namespace agentgate::openai {

namespace json = boost::json;

namespace {

json::object Parsed(std::string_view data) {
  boost::system::error_code ec;
  auto value = json::parse(data, ec);
  if (ec || !value.is_object()) return {};
  return std::move(value.as_object());
}

std::string_view StringAt(const json::object& o, std::string_view key) {
  const auto* v = o.if_contains(key);
  return v != nullptr && v->is_string() ? std::string_view(v->get_string()) : std::string_view();
}

std::int64_t IntAt(const json::object& o, std::string_view key) {
  const auto* v = o.if_contains(key);
  return v != nullptr && v->is_int64() ? v->get_int64() : 0;
}

void AppendData(std::string& out, std::string_view json_text) {
  out.append("data: ").append(json_text).append("\n\n");
}

}  // namespace

std::string_view FinishReason(bool blocked, std::optional<std::string_view> terminated_reason) {
  if (blocked) return "content_filter";
  if (!terminated_reason || *terminated_reason == "approval_required") return "stop";
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
  wrote_content_ = true;
}

void ChatChunkWriter::AppendEnd(std::string& out, std::string_view body_json) {
  json::object body = Parsed(body_json);
  const bool blocked =
      body.contains("blocked") && body.at("blocked").is_bool() && body.at("blocked").get_bool();
  const std::string_view reason = StringAt(body, "terminated_reason");
  // A reply the run never released as text (the placeholder, one sent whole) goes out now.
  if (!wrote_content_) AppendContent(out, StringAt(body, "response"));
  const std::string finish(
      FinishReason(blocked, reason.empty() ? std::nullopt : std::optional(reason)));
  const json::object usage = body.contains("usage") && body.at("usage").is_object()
                                 ? body.at("usage").as_object()
                                 : json::object();
  body.erase("response");  // the content
  AppendChunk(out, "{}", finish, json_text::Write(body));
  if (stream_.include_usage) {
    const std::int64_t prompt = IntAt(usage, "input_tokens");
    const std::int64_t completion = IntAt(usage, "output_tokens");
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
  const std::string_view type = event.type;
  if (type == "text.delta") {
    const json::object data = Parsed(event.data);
    const int call = static_cast<int>(IntAt(data, "call"));
    // Each step's text apart: a tool-calling step's commentary, then the reply.
    if (wrote_content_ && call != 0 && call != last_call_) AppendContent(out, "\n\n");
    if (call != 0) last_call_ = call;
    AppendContent(out, StringAt(data, "text"));
  } else if (type == "action") {
    // The block as the plain answer writes it (its data is the block's JSON).
    std::string block = wrote_content_ ? "\n\n" : "";
    block.append(":::action\n").append(event.data).append("\n:::");
    AppendContent(out, block);
  } else if (type == "text.retracted") {
    const json::object data = Parsed(event.data);
    if (StringAt(data, "reason") == "blocked") {
      AppendError(out,
                  "the agent's safety policy withheld the reply after part of it was sent; the "
                  "run's answer is its placeholder",
                  "reply_withheld", 502);
    } else {
      AppendError(out,
                  "a model call failed after part of its text was sent, and is retried; this "
                  "stream cannot take that text back: read the run for its answer",
                  "reply_retracted", 502);
    }
  } else if (type == "run.completed" || type == "run.requires_action") {
    AppendEnd(out, event.data);
  } else if (type == "run.failed") {
    const json::object data = Parsed(event.data);
    AppendError(out, StringAt(data, "message"), StringAt(data, "code"),
                static_cast<int>(IntAt(data, "status")));
  }
  return over_;
}

}  // namespace agentgate::openai
