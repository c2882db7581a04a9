#include "domain/a2a/send_message.hpp"

#include "domain/json_text.hpp"

#include <boost/json/array.hpp>
#include <boost/json/object.hpp>

namespace agentgate::a2a {

namespace json = boost::json;

namespace {

constexpr std::size_t kMaxMessageId = 128;

ProtocolError Invalid(std::string field, std::string_view problem) {
  return ProtocolError{Fault::kInvalidParams, "field '" + field + "': " + std::string(problem),
                       std::move(field)};
}

bool VisibleAscii(std::string_view text) {
  for (char c : text) {
    if (c < 0x21 || c > 0x7e) return false;
  }
  return true;
}

// An optional string field: absent, null or empty (proto3's default) is none; anything else but a
// string is refused.
std::variant<std::optional<std::string>, ProtocolError> OptionalString(const json::object& o,
                                                                       std::string_view key,
                                                                       const std::string& field) {
  const auto* v = o.if_contains(key);
  if (v == nullptr || v->is_null() || (v->is_string() && v->get_string().empty()))
    return std::optional<std::string>();
  if (!v->is_string()) return Invalid(field, "must be a string");
  return std::optional<std::string>(std::string(v->get_string()));
}

// The parts as the model reads them; a file part is refused.
std::variant<std::string, ProtocolError> TextOfParts(const json::value* parts) {
  if (parts == nullptr || !parts->is_array() || parts->get_array().empty())
    return Invalid("message.parts", "must be a non-empty array of parts");
  std::string text;
  std::size_t i = 0;
  for (const auto& part : parts->get_array()) {
    const std::string field = "message.parts[" + std::to_string(i++) + "]";
    if (!part.is_object()) return Invalid(field, "must be an object");
    const auto& p = part.get_object();
    if (p.contains("raw") || p.contains("url")) {
      return ProtocolError{
          Fault::kContentTypeNotSupported,
          "field '" + field + "': files (raw or url parts) are not taken; send text or data",
          field};
    }
    std::string piece;
    if (const auto* t = p.if_contains("text")) {
      if (!t->is_string()) return Invalid(field + ".text", "must be a string");
      piece = std::string(t->get_string());
    } else if (const auto* d = p.if_contains("data")) {
      piece = json_text::Write(*d);
    } else {
      return Invalid(field, "must hold one of text or data");
    }
    if (!text.empty() && !piece.empty()) text += "\n\n";
    text += piece;
  }
  if (text.empty()) return Invalid("message.parts", "hold no text");
  return text;
}

}  // namespace

std::variant<SentMessage, ProtocolError> ReadSendMessage(const json::value& params,
                                                         bool allow_private_push) {
  if (!params.is_object()) return Invalid("params", "must be a SendMessageRequest object");
  const auto& request = params.get_object();
  const auto* message_value = request.if_contains("message");
  if (message_value == nullptr || !message_value->is_object())
    return Invalid("message", "must be a Message object");
  const auto& message = message_value->get_object();
  SentMessage out;
  const auto* id = message.if_contains("messageId");
  if (id == nullptr || !id->is_string() || id->get_string().empty() ||
      id->get_string().size() > kMaxMessageId || !VisibleAscii(id->get_string()))
    return Invalid("message.messageId", "must be 1-128 visible ASCII characters");
  out.message_id = std::string(id->get_string());
  const auto* role = message.if_contains("role");
  if (role != nullptr && !(role->is_string() && role->get_string() == "ROLE_USER"))
    return Invalid("message.role", "must be \"ROLE_USER\"");
  auto text = TextOfParts(message.if_contains("parts"));
  if (auto* refused = std::get_if<ProtocolError>(&text)) return std::move(*refused);
  out.text = std::move(std::get<std::string>(text));
  out.parts = message.at("parts").get_array();
  for (auto [key, target] : {std::pair{"contextId", &out.context_id}, {"taskId", &out.task_id}}) {
    auto read = OptionalString(message, key, "message." + std::string(key));
    if (auto* refused = std::get_if<ProtocolError>(&read)) return std::move(*refused);
    *target = std::move(std::get<std::optional<std::string>>(read));
  }
  const auto* configuration = request.if_contains("configuration");
  if (configuration == nullptr || configuration->is_null()) return out;
  if (!configuration->is_object()) return Invalid("configuration", "must be an object");
  const auto& config = configuration->get_object();
  if (const auto* push = config.if_contains("taskPushNotificationConfig");
      push != nullptr && !push->is_null()) {
    auto read = ReadPushConfig(*push, "configuration.taskPushNotificationConfig",
                               allow_private_push, /*needs_task=*/false);
    if (auto* refused = std::get_if<ProtocolError>(&read)) return std::move(*refused);
    out.push = std::move(std::get<PushConfigAsked>(read));
  }
  if (const auto* immediately = config.if_contains("returnImmediately");
      immediately != nullptr && !immediately->is_null()) {
    if (!immediately->is_bool())
      return Invalid("configuration.returnImmediately", "must be a boolean");
    out.return_immediately = immediately->get_bool();
  }
  if (const auto* length = config.if_contains("historyLength");
      length != nullptr && !length->is_null()) {
    if (!length->is_int64() || length->get_int64() < 0 || length->get_int64() > 1000)
      return Invalid("configuration.historyLength", "must be an integer from 0 to 1000");
    out.history_length = static_cast<int>(length->get_int64());
  }
  return out;
}

std::string MessageKey(std::string_view agent_id, std::string_view message_id) {
  return "a2a:" + std::string(agent_id) + ":" + std::string(message_id);
}

}  // namespace agentgate::a2a
