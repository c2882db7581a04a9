#include "domain/openai/chat_request.hpp"

#include "domain/json_fields.hpp"
#include "domain/openai/caller_tools.hpp"
#include "domain/openai/request_fields.hpp"

#include <algorithm>
#include <iterator>

namespace agentgate {
namespace {

namespace jf = json_fields;
using boost::json::array;
using boost::json::object;
using boost::json::value;

// An assistant message's tool_calls: [{id, type: "function", function: {name, arguments}}].
Result<std::vector<ToolCall>> ReadToolCalls(const value& calls, const std::string& at) {
  if (!calls.is_array()) return InvalidField(at, "must be an array of function calls");
  std::vector<ToolCall> out;
  for (std::size_t j = 0; j < calls.get_array().size(); ++j) {
    const std::string cat = at + "[" + std::to_string(j) + "]";
    AG_TRY(const object* call, jf::AsObject(calls.get_array()[j], cat));
    ToolCall read;
    AG_TRY(read.id, jf::RequiredString(*call, "id", cat));
    const value* function = call->if_contains("function");
    if (function == nullptr) return InvalidField(cat + ".function", "is required");
    AG_TRY(const object* f, jf::AsObject(*function, cat + ".function"));
    AG_TRY(read.name, jf::RequiredString(*f, "name", cat + ".function"));
    AG_TRY(const auto arguments, jf::OptionalString(*f, "arguments", cat + ".function"));
    read.arguments_json = arguments.value_or("{}");
    out.push_back(std::move(read));
  }
  return out;
}

// The calls of the latest assistant message still waiting for their tool messages.
struct OpenCalls {
  std::vector<ToolCall> calls;
  std::vector<std::string> fields;  // where each was sent: messages[i].tool_calls[j]
  Result<void> AllAnswered() const {
    if (calls.empty()) return {};
    return InvalidField(fields.front(), "has no tool message with its result (tool_call_id '" +
                                            calls.front().id + "')");
  }
};

// The messages, in order, as the model's: every tool call answered by a tool message naming it.
Result<std::vector<ChatMessage>> ReadHistory(const array& items, std::string& instructions) {
  std::vector<ChatMessage> history;
  OpenCalls open;
  for (std::size_t i = 0; i < items.size(); ++i) {
    const std::string at = "messages[" + std::to_string(i) + "]";
    AG_TRY(const object* m, jf::AsObject(items[i], at));
    AG_TRY(const std::string role, jf::RequiredString(*m, "role", at));
    const value* content = m->if_contains("content");
    const bool no_content = content == nullptr || content->is_null();
    if (role == "tool") {
      AG_TRY(const std::string call_id, jf::RequiredString(*m, "tool_call_id", at));
      const auto it = std::find_if(open.calls.begin(), open.calls.end(),
                                   [&](const ToolCall& c) { return c.id == call_id; });
      if (it == open.calls.end()) {
        return InvalidField(
            at + ".tool_call_id",
            "answers no call of the assistant message before it ('" + call_id + "')");
      }
      std::string text;
      if (!no_content) {
        AG_TRY(text, openai::TextOf(*content, at + ".content", {"text"}));
      }
      history.push_back(ChatMessage{Role::kTool, std::move(text), {}, call_id, it->name});
      open.fields.erase(open.fields.begin() + (it - open.calls.begin()));
      open.calls.erase(it);
      continue;
    }
    if (role != "system" && role != "developer" && role != "user" && role != "assistant") {
      return InvalidField(at + ".role", "must be system, developer, user, assistant or tool");
    }
    if (role != "system" && role != "developer") AG_TRYV(open.AllAnswered());
    std::vector<ToolCall> calls;
    if (const value* sent = m->if_contains("tool_calls");
        role == "assistant" && sent != nullptr && !sent->is_null()) {
      AG_TRY(calls, ReadToolCalls(*sent, at + ".tool_calls"));
    }
    if (no_content && calls.empty()) return InvalidField(at + ".content", "is required");
    std::string text;
    if (!no_content) {
      AG_TRY(text, openai::TextOf(*content, at + ".content", {"text", "refusal"}));
    }
    if (role == "system" || role == "developer") {
      if (!instructions.empty()) instructions += "\n\n";
      instructions += text;
      continue;
    }
    for (std::size_t j = 0; j < calls.size(); ++j) {
      open.calls.push_back(calls[j]);
      open.fields.push_back(at + ".tool_calls[" + std::to_string(j) + "]");
    }
    history.push_back(ChatMessage{role == "user" ? Role::kUser : Role::kAssistant,
                                  std::move(text),
                                  std::move(calls),
                                  {},
                                  {}});
  }
  AG_TRYV(open.AllAnswered());
  return history;
}

// The last user message is the turn's own; what follows it may only be the model's calls of the
// caller's functions and their results (a continuation, ending with a result).
Result<void> ReadMessages(const object& o, InvokeRequest& request) {
  const value* messages = o.if_contains("messages");
  if (messages == nullptr || !messages->is_array() || messages->get_array().empty())
    return InvalidField("messages", "must be a non-empty array of {role, content}");
  std::string instructions;
  AG_TRY(auto history, ReadHistory(messages->get_array(), instructions));
  auto last_user = std::find_if(history.rbegin(), history.rend(),
                                [](const ChatMessage& m) { return m.role == Role::kUser; });
  if (last_user == history.rend()) return InvalidField("messages", "must hold the user's message");
  if (history.back().role == Role::kAssistant)
    return InvalidField("messages", "the last user or assistant message must be the user's");
  const auto user = std::prev(last_user.base());
  request.message = std::move(user->content);
  request.continuation.assign(std::make_move_iterator(user + 1),
                              std::make_move_iterator(history.end()));
  history.erase(user, history.end());
  request.history = std::move(history);
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
  const value* functions = o.if_contains("functions");
  if (functions != nullptr && !functions->is_null() &&
      !(functions->is_array() && functions->get_array().empty())) {
    return InvalidField("functions", "is OpenAI's deprecated form: send them as `tools`");
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

// In a stored conversation the model's calls of the caller's functions are the store's (the turn
// that made them kept them): a continuation brings only the tool messages after the last of them,
// and no new message of the user's. Each is named by its place in `messages`.
void KeepTheNewResults(const array& messages, InvokeRequest& request) {
  auto& continuation = request.continuation;
  const auto calls = std::find_if(continuation.rbegin(), continuation.rend(),
                                  [](const ChatMessage& m) { return m.role != Role::kTool; });
  continuation.erase(continuation.begin(), calls.base());
  request.message.clear();
  request.continuation_input = "messages";
  std::vector<std::string> fields;
  for (std::size_t i = messages.size(); i-- > 0 && fields.size() < continuation.size();) {
    const object* m = messages[i].if_object();
    const value* role = m != nullptr ? m->if_contains("role") : nullptr;
    if (role != nullptr && *role == "tool")
      fields.insert(fields.begin(), "messages[" + std::to_string(i) + "].tool_call_id");
  }
  request.continuation_fields = std::move(fields);
}

// metadata.conversation_id continues a stored conversation: its history is the store's, and
// only the last message is the turn's (or, after the model called the caller's functions, only
// their results are).
Result<void> ReadConversation(const object& o, InvokeRequest& request) {
  const value* metadata = o.if_contains("metadata");
  if (metadata == nullptr || metadata->is_null()) return {};
  AG_TRY(const object* m, jf::AsObject(*metadata, "metadata"));
  AG_TRY(auto conversation, jf::OptionalString(*m, "conversation_id", "metadata"));
  if (!conversation) return {};
  if (!request.continuation.empty()) KeepTheNewResults(o.at("messages").get_array(), request);
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
  AG_TRYV(openai::ReadCallerTools(*o, openai::ToolShape::kChat, out.request));
  AG_TRYV(ReadConversation(*o, out.request));
  return out;
}

}  // namespace agentgate
