#include "adapters/providers/offline_model.hpp"

#include "domain/agent/prompt.hpp"
#include "domain/json_text.hpp"
#include "domain/schema/json_schema.hpp"

#include <algorithm>
#include <sstream>

namespace agentgate {
namespace {

bool Offers(const ModelRequest& r, const std::string& name) {
  return std::any_of(r.tools.begin(), r.tools.end(),
                     [&](const ToolSpec& t) { return t.name == name; });
}

std::string AnswerFromTools(const ModelRequest& r) {
  // The latest round of tool results: the messages after the last assistant message.
  auto last_assistant =
      std::find_if(r.messages.rbegin(), r.messages.rend(),
                   [](const ChatMessage& m) { return m.role == Role::kAssistant; });
  std::string out;
  for (auto it = last_assistant.base(); it != r.messages.end(); ++it) {
    if (it->role != Role::kTool) continue;
    if (!out.empty()) out += "\n\n";
    if (it->tool_name == "search_resources") {
      out += it->content.starts_with("No trusted resource")
                 ? "I could not find that in my trusted resources."
                 : "Here is what my trusted resources say:\n\n" + it->content;
    } else if (it->content.starts_with("Recorded. The caller will perform")) {
      out += "I have asked for " + it->tool_name + " to be done.";
    } else {
      out += it->tool_name + " returned: " + it->content;
    }
  }
  return out;
}

std::vector<ToolCall> RequestedTools(const ModelRequest& r, const std::string& message) {
  std::vector<ToolCall> calls;
  std::istringstream lines(message);
  for (std::string line; std::getline(lines, line);) {
    if (!line.starts_with("/tool ")) continue;
    std::string rest = line.substr(6);
    const auto space = rest.find(' ');
    const std::string name = rest.substr(0, space);
    const std::string args = space == std::string::npos ? "{}" : rest.substr(space + 1);
    if (Offers(r, name))
      calls.push_back(ToolCall{"offline-" + std::to_string(calls.size() + 1), name, args});
  }
  return calls;
}

}  // namespace

ModelReply OfflineReply(const ModelRequest& r) {
  ModelReply reply;
  if (!r.messages.empty() && r.messages.back().role == Role::kTool) {
    reply.text = AnswerFromTools(r);
  } else {
    const std::string message = r.messages.empty() ? "" : r.messages.back().content;
    reply.tool_calls = RequestedTools(r, message);
    if (reply.tool_calls.empty()) {
      if (Offers(r, "search_resources")) {
        boost::json::object args{{"query", message}};
        reply.tool_calls.push_back(
            ToolCall{"offline-search", "search_resources", json_text::Write(args)});
      } else {
        reply.text =
            "I am the built-in offline model, so I can only answer from trusted resources. You "
            "asked: " +
            message;
      }
    }
  }
  // An answer held to a schema: an example the schema accepts, in place of the words.
  if (reply.tool_calls.empty() && r.answer_format)
    reply.text = json_text::Write(schema::ExampleOf(r.answer_format->schema));
  reply.usage.input_tokens = EstimateTokens(r);
  reply.usage.output_tokens = EstimateTokens(reply.text) + 1;
  return reply;
}

boost::asio::awaitable<ModelResult> OfflineModelClient::Complete(const ModelRequest& request,
                                                                 std::chrono::milliseconds,
                                                                 const ModelCallOptions& options) {
  const TextSink* on_text = options.on_text;
  ModelReply reply = OfflineReply(request);
  if (on_text != nullptr) {
    const std::string_view text = reply.text;
    for (std::size_t start = 0; start < text.size();) {
      const auto space = text.find(' ', start);
      const std::size_t end = space == std::string_view::npos ? text.size() : space + 1;
      (*on_text)(text.substr(start, end - start));
      start = end;
    }
  }
  co_return reply;
}

}  // namespace agentgate
