#include "domain/agent/transcript.hpp"

#include "domain/json_text.hpp"

#include <boost/json/array.hpp>
#include <boost/json/object.hpp>

#include <algorithm>

namespace agentgate {
namespace {

namespace json = boost::json;

const char* RoleName(Role role) {
  switch (role) {
    case Role::kUser:
      return "user";
    case Role::kAssistant:
      return "assistant";
    case Role::kTool:
      return "tool";
  }
  return "user";
}

json::object MessageJson(const ChatMessage& m, bool withheld) {
  json::object item{{"role", RoleName(m.role)}};
  item["content"] = withheld ? std::string("[withheld]") : m.content;
  if (!m.tool_calls.empty()) {
    json::array tool_calls;
    for (const auto& c : m.tool_calls) {
      tool_calls.push_back(
          json::object{{"id", c.id},
                       {"name", c.name},
                       {"arguments", withheld ? std::string("[withheld]") : c.arguments_json}});
    }
    item["tool_calls"] = std::move(tool_calls);
  }
  if (!m.tool_call_id.empty()) item["tool_call_id"] = m.tool_call_id;
  return item;
}

json::object CallJson(const ModelCallRecord& call) {
  if (!call.failure.empty())
    return json::object{{"seconds", call.seconds}, {"failure", call.failure}};
  return json::object{{"seconds", call.seconds},
                      {"input_tokens", call.input_tokens},
                      {"output_tokens", call.output_tokens}};
}

}  // namespace

std::string TranscriptJson(const std::string& system, const std::vector<ChatMessage>& messages,
                           std::size_t history_sent, const std::vector<ModelCallRecord>& calls,
                           const TurnOutcome& outcome, bool blocked,
                           const std::vector<std::string>& notes,
                           const std::optional<SummaryRecord>& summary) {
  json::array out;
  for (std::size_t i = std::min(history_sent, messages.size()); i < messages.size(); ++i)
    out.push_back(MessageJson(messages[i], blocked && messages[i].role == Role::kAssistant));
  json::array call_log;
  for (const auto& call : calls) call_log.push_back(CallJson(call));
  json::object transcript{{"system", system},
                          {"history_messages", history_sent},
                          {"messages", std::move(out)},
                          {"model_calls", std::move(call_log)}};
  if (!outcome.failure.empty()) transcript["failure"] = outcome.failure;
  if (!notes.empty()) {
    json::array listed;
    for (const auto& note : notes) listed.emplace_back(note);
    transcript["notes"] = std::move(listed);
  }
  if (summary) {
    json::object point{{"messages_folded", summary->messages_folded}};
    if (summary->called) point["model_call"] = CallJson(summary->call);
    if (summary->text.empty()) {
      point["skipped"] = summary->skipped;
    } else {
      point["through_seq"] = summary->through_seq;
      point["text"] = summary->text;
    }
    transcript["history_summary"] = std::move(point);
  }
  return json_text::Write(transcript);
}

}  // namespace agentgate
