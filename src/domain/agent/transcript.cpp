#include "domain/agent/transcript.hpp"

#include "domain/json_text.hpp"

#include <boost/json/array.hpp>
#include <boost/json/monotonic_resource.hpp>
#include <boost/json/object.hpp>

#include <algorithm>

namespace agentgate {
namespace {

namespace json = boost::json;

// Every value is made in the transcript's storage (a buffer on the stack while the text is
// written), so nesting one in another moves it instead of copying it. Objects are made with room
// for their members: Boost.JSON grows one by half at a time, rehashing each time.
json::object MessageJson(const ChatMessage& m, bool withheld, const json::storage_ptr& sp) {
  json::object item(4, sp);
  item.emplace("role", RoleName(m.role));
  item.emplace("content", withheld ? std::string_view("[withheld]") : std::string_view(m.content));
  if (!m.tool_calls.empty()) {
    json::array tool_calls(sp);
    for (const auto& c : m.tool_calls) {
      json::object call(3, sp);
      call.emplace("id", c.id);
      call.emplace("name", c.name);
      call.emplace("arguments",
                   withheld ? std::string_view("[withheld]") : std::string_view(c.arguments_json));
      tool_calls.push_back(std::move(call));
    }
    item.emplace("tool_calls", std::move(tool_calls));
  }
  if (!m.tool_call_id.empty()) item.emplace("tool_call_id", m.tool_call_id);
  return item;
}

json::object CallJson(const ModelCallRecord& call, const json::storage_ptr& sp) {
  json::object out(8, sp);
  if (!call.provider.empty()) {
    out.emplace("provider", call.provider);
    out.emplace("model", call.model);
    out.emplace("key", call.key);
  }
  out.emplace("seconds", call.seconds);
  if (!call.failure.empty()) {
    out.emplace("failure", call.failure);
  } else {
    out.emplace("input_tokens", call.input_tokens);
    if (call.cached_input_tokens > 0) out.emplace("cached_input_tokens", call.cached_input_tokens);
    if (call.cache_write_tokens > 0) out.emplace("cache_write_tokens", call.cache_write_tokens);
    out.emplace("output_tokens", call.output_tokens);
  }
  return out;
}

}  // namespace

std::string TranscriptJson(const std::string& system, const std::vector<ChatMessage>& messages,
                           std::size_t history_sent, const std::vector<ModelCallRecord>& calls,
                           const TurnOutcome& outcome, bool blocked,
                           const std::vector<std::string>& notes,
                           const std::optional<SummaryRecord>& summary) {
  unsigned char buffer[4096];
  json::monotonic_resource resource(buffer, sizeof buffer);
  const json::storage_ptr sp(&resource);
  json::array out(sp);
  out.reserve(messages.size() - std::min(history_sent, messages.size()));
  for (std::size_t i = std::min(history_sent, messages.size()); i < messages.size(); ++i)
    out.push_back(MessageJson(messages[i], blocked && messages[i].role == Role::kAssistant, sp));
  json::array call_log(sp);
  call_log.reserve(calls.size());
  for (const auto& call : calls) call_log.push_back(CallJson(call, sp));
  json::object transcript(7, sp);
  transcript.emplace("system", system);
  transcript.emplace("history_messages", history_sent);
  transcript.emplace("messages", std::move(out));
  transcript.emplace("model_calls", std::move(call_log));
  if (!outcome.failure.empty()) transcript.emplace("failure", outcome.failure);
  if (!notes.empty()) {
    json::array listed(sp);
    for (const auto& note : notes) listed.emplace_back(note);
    transcript.emplace("notes", std::move(listed));
  }
  if (summary) {
    json::object point(sp);
    point.emplace("messages_folded", summary->messages_folded);
    if (summary->called) point.emplace("model_call", CallJson(summary->call, sp));
    if (summary->text.empty()) {
      point.emplace("skipped", summary->skipped);
    } else {
      point.emplace("through_seq", summary->through_seq);
      point.emplace("text", summary->text);
    }
    transcript.emplace("history_summary", std::move(point));
  }
  return json_text::Write(transcript);
}

}  // namespace agentgate
