#include "domain/agent/transcript.hpp"

#include "domain/json_text.hpp"

#include <algorithm>

namespace agentgate {
namespace {

void WriteMessage(json_text::ObjectWriter& out, const ChatMessage& m, bool withheld) {
  constexpr std::string_view kWithheld = "[withheld]";
  out.Object().String("role", RoleName(m.role)).String("content", withheld ? kWithheld : m.content);
  if (!m.tool_calls.empty()) {
    out.Array("tool_calls");
    for (const auto& c : m.tool_calls) {
      out.Object()
          .String("id", c.id)
          .String("name", c.name)
          .String("arguments", withheld ? kWithheld : std::string_view(c.arguments_json))
          .End();
    }
    out.End();
  }
  if (!m.tool_call_id.empty()) out.String("tool_call_id", m.tool_call_id);
  out.End();
}

// A model call's record, as the object just opened (an array's element or a member).
void WriteCall(json_text::ObjectWriter& out, const ModelCallRecord& call) {
  if (!call.provider.empty()) {
    out.String("provider", call.provider)
        .String("model", call.model)
        .Int("key", static_cast<std::int64_t>(call.key));
  }
  out.Number("seconds", call.seconds);
  if (!call.failure.empty()) {
    out.String("failure", call.failure);
  } else {
    out.Int("input_tokens", call.input_tokens);
    if (call.cached_input_tokens > 0) out.Int("cached_input_tokens", call.cached_input_tokens);
    if (call.cache_write_tokens > 0) out.Int("cache_write_tokens", call.cache_write_tokens);
    out.Int("output_tokens", call.output_tokens);
  }
  out.End();
}

}  // namespace

// Written straight to text: no JSON tree is built for it (a turn's transcript, every turn).
std::string TranscriptJson(const std::string& system, const std::vector<ChatMessage>& messages,
                           std::size_t history_sent, const std::vector<ModelCallRecord>& calls,
                           const TurnOutcome& outcome, bool blocked,
                           const std::vector<std::string>& notes,
                           const std::optional<SummaryRecord>& summary) {
  json_text::ObjectWriter out(1024);
  out.String("system", system).Int("history_messages", static_cast<std::int64_t>(history_sent));
  out.Array("messages");
  for (std::size_t i = std::min(history_sent, messages.size()); i < messages.size(); ++i)
    WriteMessage(out, messages[i], blocked && messages[i].role == Role::kAssistant);
  out.End().Array("model_calls");
  for (const auto& call : calls) WriteCall(out.Object(), call);
  out.End();
  if (!outcome.failure.empty()) out.String("failure", outcome.failure);
  if (blocked)
    out.String("withheld", outcome.approval_withheld
                               ? "the safety policy blocks the arguments of a call that needed "
                                 "approval: none was offered for approval or run"
                               : "the safety policy blocks the reply");
  if (!notes.empty()) {
    out.Array("notes");
    for (const auto& note : notes) out.String(note);
    out.End();
  }
  if (summary) {
    out.Object("history_summary")
        .Int("messages_folded", static_cast<std::int64_t>(summary->messages_folded));
    if (summary->called) WriteCall(out.Object("model_call"), summary->call);
    if (summary->text.empty()) {
      out.String("skipped", summary->skipped);
    } else {
      out.Int("through_seq", summary->through_seq).String("text", summary->text);
    }
    out.End();
  }
  return out.Finish();
}

}  // namespace agentgate
