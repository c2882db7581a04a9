#include "domain/openai/chat_request.hpp"

#include "domain/json_fields.hpp"
#include "domain/openai/request_fields.hpp"

namespace agentgate {
namespace {

namespace jf = json_fields;
using boost::json::array;
using boost::json::object;
using boost::json::value;

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
    AG_TRY(std::string text, openai::TextOf(*content, at + ".content", {"text"}));
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
  return {};
}

// response_format: {"type": "text"} is the default; {"type": "json_schema", "json_schema": {...}}
// holds the answer to the schema, {"type": "json_object"} to one JSON object
// (docs/structured-output.md).
Result<void> ReadResponseFormat(const object& o, InvokeRequest& request) {
  const value* format = o.if_contains("response_format");
  if (format == nullptr || format->is_null()) return {};
  const object* f = format->if_object();
  const value* type = f != nullptr ? f->if_contains("type") : nullptr;
  if (type != nullptr && type->is_string() && type->get_string() == "text") return {};
  if (type == nullptr || !type->is_string() ||
      (type->get_string() != "json_schema" && type->get_string() != "json_object"))
    return InvalidField("response_format",
                        "must be {\"type\": \"text\"}, {\"type\": \"json_object\"} or "
                        "{\"type\": \"json_schema\", ...}");
  AG_TRY(request.answer_schema, ParseResponseFormat(*format));
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
  AG_TRYV(openai::ReadModel(*o, out.model, out.agent_id, out.request.instance_id));
  AG_TRYV(ReadStream(*o, out));
  AG_TRYV(RefuseWhatCannotBeHonoured(*o));
  AG_TRYV(ReadResponseFormat(*o, out.request));
  AG_TRYV(ReadMessages(*o, out.request));
  AG_TRYV(ReadConversation(*o, out.request));
  return out;
}

}  // namespace agentgate
