#include "domain/openai/reply_events.hpp"

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

}  // namespace

bool BlockedIn(const json::object& body) {
  const auto* v = body.if_contains("blocked");
  return v != nullptr && v->is_bool() && v->get_bool();
}

std::string_view StringIn(const json::object& body, std::string_view key) {
  const auto* v = body.if_contains(key);
  return v != nullptr && v->is_string() ? std::string_view(v->get_string()) : std::string_view();
}

std::int64_t IntIn(const json::object& body, std::string_view key) {
  const auto* v = body.if_contains(key);
  return v != nullptr && v->is_int64() ? v->get_int64() : 0;
}

std::string ReplyReader::Text(std::string text) {
  if (!text.empty()) wrote_text_ = true;
  return text;
}

ReplyStep ReplyReader::Read(const RunEvent& event) {
  const std::string_view type = event.type;
  if (type == "text.delta") {
    const json::object data = Parsed(event.data);
    const std::string_view delta = StringIn(data, "text");
    if (delta.empty()) return std::monostate{};
    const int call = static_cast<int>(IntIn(data, "call"));
    std::string text;
    // Each step's text apart: a tool-calling step's commentary, then the reply.
    if (wrote_text_ && call != 0 && call != last_call_) text = "\n\n";
    if (call != 0) last_call_ = call;
    text.append(delta);
    return Text(std::move(text));
  }
  if (type == "action") {
    // The block as the plain answer writes it (its data is the block's JSON).
    std::string block = wrote_text_ ? "\n\n" : "";
    block.append(":::action\n").append(event.data).append("\n:::");
    return Text(std::move(block));
  }
  if (type == "text.retracted") {
    if (StringIn(Parsed(event.data), "reason") == "blocked") {
      return ReplyFailed{
          "the agent's safety policy withheld the reply after part of it was sent; the run's "
          "answer is its placeholder",
          "reply_withheld", 502};
    }
    return ReplyFailed{
        "a model call failed after part of its text was sent, and is retried; this stream "
        "cannot take that text back: read the run for its answer",
        "reply_retracted", 502};
  }
  if (type == "run.completed" || type == "run.requires_action")
    return ReplyAnswered{Parsed(event.data)};
  if (type == "run.failed") {
    const json::object data = Parsed(event.data);
    return ReplyFailed{std::string(StringIn(data, "message")), std::string(StringIn(data, "code")),
                       static_cast<int>(IntIn(data, "status"))};
  }
  return std::monostate{};
}

}  // namespace agentgate::openai
