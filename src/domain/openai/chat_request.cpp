#include "domain/openai/chat_request.hpp"

#include "domain/admin/names.hpp"
#include "domain/json_fields.hpp"

namespace agentgate {
namespace {

namespace jf = json_fields;
using boost::json::array;
using boost::json::object;
using boost::json::value;

// A message's text: a string, or text parts ([{type: "text", text}], joined by new lines).
Result<std::string> TextOf(const value& content, const std::string& at) {
  if (content.is_string()) return std::string(content.get_string());
  if (!content.is_array()) return InvalidField(at, "must be a string or an array of text parts");
  std::string text;
  const array& parts = content.get_array();
  for (std::size_t i = 0; i < parts.size(); ++i) {
    const std::string part_at = at + "[" + std::to_string(i) + "]";
    const object* part = parts[i].if_object();
    const value* type = part != nullptr ? part->if_contains("type") : nullptr;
    const value* part_text = part != nullptr ? part->if_contains("text") : nullptr;
    if (type == nullptr || !type->is_string() || type->get_string() != "text")
      return InvalidField(part_at + ".type", "only text parts are accepted");
    if (part_text == nullptr || !part_text->is_string())
      return InvalidField(part_at + ".text", "must be a string");
    if (!text.empty()) text += "\n";
    text.append(part_text->get_string());
  }
  return text;
}

// `model`: the agent, and for a per-instance agent its instance after a ':'.
Result<void> ReadModel(const object& o, ChatCompletionRequest& out) {
  AG_TRY(out.model, jf::RequiredString(o, "model", ""));
  const auto colon = out.model.find(':');
  out.agent_id = out.model.substr(0, colon);
  if (!names::IsValidId(out.agent_id))
    return InvalidField("model", "must be an agent id, or agent_id:instance_id");
  if (colon != std::string::npos) {
    std::string instance = out.model.substr(colon + 1);
    if (!names::IsValidInstanceId(instance))
      return InvalidField("model", "the instance after ':' is not an instance id");
    out.request.instance_id = std::move(instance);
  }
  return {};
}

Result<void> ReadMessages(const object& o, InvokeRequest& request) {
  const value* messages = o.if_contains("messages");
  if (messages == nullptr || !messages->is_array() || messages->get_array().empty())
    return InvalidField("messages", "must be a non-empty array of {role, content}");
  const array& items = messages->get_array();
  std::string instructions;
  for (std::size_t i = 0; i < items.size(); ++i) {
    const std::string at = "messages[" + std::to_string(i) + "]";
    AG_TRY(const object* m, jf::AsObject(items[i], at));
    AG_TRY(const std::string role, jf::RequiredString(*m, "role", at));
    if (const value* calls = m->if_contains("tool_calls");
        calls != nullptr && calls->is_array() && !calls->get_array().empty()) {
      return InvalidField(at + ".tool_calls",
                          "the agent calls its own tools; a client's tool calls are not accepted");
    }
    const value* content = m->if_contains("content");
    if (content == nullptr || content->is_null())
      return InvalidField(at + ".content", "is required");
    AG_TRY(std::string text, TextOf(*content, at + ".content"));
    if (role == "system" || role == "developer") {
      if (!instructions.empty()) instructions += "\n\n";
      instructions += text;
    } else if (role == "user" || role == "assistant") {
      request.history.push_back(ChatMessage{
          role == "user" ? Role::kUser : Role::kAssistant, std::move(text), {}, {}, {}});
    } else {
      return InvalidField(at + ".role",
                          "must be system, developer, user or assistant (the agent runs its own "
                          "tools)");
    }
  }
  if (request.history.empty() || request.history.back().role != Role::kUser)
    return InvalidField("messages", "the last user or assistant message must be the user's");
  request.message = std::move(request.history.back().content);
  request.history.pop_back();
  if (request.message.empty())
    return InvalidField("messages", "the last user message must not be empty");
  if (!instructions.empty()) request.additional_instructions = std::move(instructions);
  return {};
}

// What agentgate cannot honour is refused, naming the field; the rest these clients send is
// ignored (docs/openai.md has the table).
Result<void> RefuseWhatCannotBeHonoured(const object& o) {
  AG_TRY(const auto n, jf::OptionalInteger(o, "n", ""));
  if (n && *n != 1) return InvalidField("n", "must be 1: an agent's turn has one answer");
  for (const char* field : {"tools", "functions"}) {
    const value* tools = o.if_contains(field);
    if (tools != nullptr && !tools->is_null() &&
        !(tools->is_array() && tools->get_array().empty())) {
      return InvalidField(field,
                          "the agent runs its own tools (its version's config); a client's tools "
                          "are not accepted");
    }
  }
  if (const value* format = o.if_contains("response_format"); format && !format->is_null()) {
    const object* f = format->if_object();
    const value* type = f != nullptr ? f->if_contains("type") : nullptr;
    if (type == nullptr || !type->is_string() || type->get_string() != "text")
      return InvalidField("response_format", "only {\"type\": \"text\"} is served");
  }
  return {};
}

// metadata.conversation_id continues a stored conversation: its history is the store's, and
// only the last message is the turn's.
Result<void> ReadConversation(const object& o, InvokeRequest& request) {
  const value* metadata = o.if_contains("metadata");
  if (metadata == nullptr || metadata->is_null()) return {};
  AG_TRY(const object* m, jf::AsObject(*metadata, "metadata"));
  AG_TRY(auto conversation, jf::OptionalString(*m, "conversation_id", "metadata"));
  if (!conversation) return {};
  request.stateful = true;
  request.conversation_id = std::move(conversation);
  request.history.clear();
  return {};
}

// `stream`, and what its stream_options ask.
Result<void> ReadStream(const object& o, ChatCompletionRequest& out) {
  AG_TRY(const auto stream, jf::OptionalBool(o, "stream", ""));
  out.stream = stream.value_or(false);
  const value* options = o.if_contains("stream_options");
  if (!out.stream || options == nullptr || options->is_null()) return {};
  AG_TRY(const object* opts, jf::AsObject(*options, "stream_options"));
  AG_TRY(const auto usage, jf::OptionalBool(*opts, "include_usage", "stream_options"));
  out.include_usage = usage.value_or(false);
  return {};
}

}  // namespace

Result<ChatCompletionRequest> ParseChatCompletionRequest(const value& body) {
  AG_TRY(const object* o, jf::AsObject(body, ""));
  ChatCompletionRequest out;
  AG_TRYV(ReadModel(*o, out));
  AG_TRYV(ReadStream(*o, out));
  AG_TRYV(RefuseWhatCannotBeHonoured(*o));
  AG_TRYV(ReadMessages(*o, out.request));
  AG_TRYV(ReadConversation(*o, out.request));
  return out;
}

}  // namespace agentgate
