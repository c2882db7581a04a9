#include "domain/agent/stored_messages.hpp"

#include "domain/json_text.hpp"

#include <boost/json/object.hpp>
#include <boost/json/parse.hpp>

#include <algorithm>

namespace agentgate::stored_messages {

namespace json = boost::json;

std::string FunctionCallContent(const ToolCall& call) {
  return json_text::Write(
      json::object{{"call_id", call.id}, {"name", call.name}, {"arguments", call.arguments_json}});
}

std::string FunctionCallOutputContent(std::string_view call_id, std::string_view output) {
  return json_text::Write(json::object{{"call_id", call_id}, {"output", output}});
}

StoredCall ReadStoredCall(std::string_view content) {
  StoredCall out;
  boost::system::error_code ec;
  const json::value parsed = json::parse(content, ec);
  if (ec || !parsed.is_object()) return out;
  const json::object& o = parsed.get_object();
  auto text = [&o](std::string_view key) {
    const json::value* v = o.if_contains(key);
    return v != nullptr && v->is_string() ? std::string(v->get_string()) : std::string();
  };
  out.call_id = text("call_id");
  out.name = text("name");
  out.arguments = text("arguments");
  out.output = text("output");
  return out;
}

bool AppendToHistory(std::vector<ChatMessage>& history, std::string_view role,
                     std::string content) {
  if (role == kFunctionCall) {
    StoredCall call = ReadStoredCall(content);
    ToolCall made{std::move(call.call_id), std::move(call.name), std::move(call.arguments)};
    if (!history.empty() && history.back().role == Role::kAssistant) {
      history.back().tool_calls.push_back(std::move(made));
      return false;
    }
    history.push_back(ChatMessage{Role::kAssistant, "", {std::move(made)}, {}, {}});
    return true;
  }
  if (role == kFunctionCallOutput) {
    StoredCall result = ReadStoredCall(content);
    std::string name;
    for (auto m = history.rbegin(); m != history.rend() && name.empty(); ++m) {
      for (const auto& call : m->tool_calls)
        if (call.id == result.call_id) name = call.name;
    }
    history.push_back(
        ChatMessage{Role::kTool, std::move(result.output), {}, std::move(result.call_id), name});
    return true;
  }
  history.push_back(ChatMessage{
      role == kAssistant ? Role::kAssistant : Role::kUser, std::move(content), {}, {}, {}});
  return true;
}

std::vector<ToolCall> UnansweredCalls(const std::vector<ChatMessage>& history) {
  auto asked = std::find_if(history.rbegin(), history.rend(),
                            [](const ChatMessage& m) { return m.role != Role::kTool; });
  if (asked == history.rend() || asked->role != Role::kAssistant) return {};
  std::vector<ToolCall> open = asked->tool_calls;
  for (auto m = asked.base(); m != history.end(); ++m)
    std::erase_if(open, [&](const ToolCall& c) { return c.id == m->tool_call_id; });
  return open;
}

}  // namespace agentgate::stored_messages

namespace agentgate::stored_messages {

Result<void> CheckContinuation(const std::vector<ChatMessage>& history,
                               const std::vector<ChatMessage>& continuation,
                               const std::vector<std::string>& fields,
                               std::string_view input_field) {
  std::vector<ToolCall> open = UnansweredCalls(history);
  auto field_of = [&](std::size_t i) {
    return i < fields.size() && !fields[i].empty() ? fields[i] : std::string(input_field);
  };
  auto all_answered = [&]() -> Result<void> {
    if (open.empty()) return {};
    return InvalidField(input_field, "the call '" + open.front().id + "' of function '" +
                                         open.front().name + "' has no result; send its output");
  };
  for (std::size_t i = 0; i < continuation.size(); ++i) {
    const ChatMessage& m = continuation[i];
    if (m.role != Role::kTool) {
      AG_TRYV(all_answered());
      open = m.tool_calls;
      continue;
    }
    const auto it = std::find_if(open.begin(), open.end(),
                                 [&](const ToolCall& c) { return c.id == m.tool_call_id; });
    if (it == open.end()) {
      return InvalidField(
          field_of(i), "answers no call still waiting for its result ('" + m.tool_call_id + "')");
    }
    open.erase(it);
  }
  return all_answered();
}

}  // namespace agentgate::stored_messages
