#include "domain/tracing/genai_content.hpp"

#include "domain/json_text.hpp"

#include <boost/json/array.hpp>
#include <boost/json/object.hpp>
#include <boost/json/parse.hpp>

namespace agentgate::tracing {
namespace {

namespace json = boost::json;

json::object TextPart(const std::string& text) {
  return json::object{{"type", "text"}, {"content", text}};
}

// Arguments as the model wrote them: an object when they parse as one, else the text.
json::value Arguments(const std::string& arguments_json) {
  boost::system::error_code ec;
  auto parsed = json::parse(arguments_json, ec);
  if (!ec) return parsed;
  return json::value(arguments_json);
}

bool Withheld(const std::string& text, const ContentRules& rules) {
  return rules.withheld && rules.withheld(text);
}

std::string Checked(const std::string& text, const ContentRules& rules) {
  return Withheld(text, rules) ? rules.placeholder : text;
}

bool ArgumentsWithheld(const std::string& arguments_json, const ContentRules& rules) {
  return rules.arguments_withheld ? rules.arguments_withheld(arguments_json)
                                  : Withheld(arguments_json, rules);
}

// A call whose arguments the policy blocks shows the placeholder in their place.
json::object ToolCallPart(const ToolCall& call, const ContentRules& rules) {
  return json::object{{"type", "tool_call"},
                      {"id", call.id},
                      {"name", call.name},
                      {"arguments", ArgumentsWithheld(call.arguments_json, rules)
                                        ? json::value(rules.placeholder)
                                        : Arguments(call.arguments_json)}};
}

json::object AssistantMessage(const std::string& text, const std::vector<ToolCall>& calls,
                              const ContentRules& rules) {
  json::array parts;
  if (!text.empty()) parts.push_back(TextPart(Checked(text, rules)));
  for (const auto& call : calls) parts.push_back(ToolCallPart(call, rules));
  return json::object{{"role", "assistant"}, {"parts", std::move(parts)}};
}

}  // namespace

std::string SystemInstructionsJson(const std::string& system) {
  return json_text::Write(json::array{TextPart(system)});
}

std::string InputMessagesJson(const std::vector<ChatMessage>& messages, const ContentRules& rules) {
  json::array out;
  for (const auto& m : messages) {
    switch (m.role) {
      case Role::kUser:
        out.push_back(json::object{{"role", "user"}, {"parts", json::array{TextPart(m.content)}}});
        break;
      case Role::kAssistant:
        out.push_back(AssistantMessage(m.content, m.tool_calls, rules));
        break;
      case Role::kTool:
        out.push_back(
            json::object{{"role", "tool"},
                         {"parts", json::array{json::object{{"type", "tool_call_response"},
                                                            {"id", m.tool_call_id},
                                                            {"response", m.content}}}}});
        break;
    }
  }
  return json_text::Write(out);
}

std::string OutputMessagesJson(const ModelReply& reply, const ContentRules& rules) {
  json::object message = AssistantMessage(reply.text, reply.tool_calls, rules);
  message["finish_reason"] = reply.finish_reason.empty()
                                 ? (reply.tool_calls.empty() ? "stop" : "tool_call")
                                 : reply.finish_reason;
  return json_text::Write(json::array{std::move(message)});
}

std::string TextMessageJson(std::string_view role, const std::string& text) {
  return json_text::Write(
      json::array{json::object{{"role", role}, {"parts", json::array{TextPart(text)}}}});
}

}  // namespace agentgate::tracing
