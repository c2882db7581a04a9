#include "domain/runs/run_events.hpp"

#include "domain/error_json.hpp"
#include "domain/json_text.hpp"

#include <boost/json/object.hpp>
#include <boost/json/value.hpp>

#include <charconv>

namespace agentgate {

namespace json = boost::json;

std::string_view RunStatusName(RunStatus status) {
  switch (status) {
    case RunStatus::kQueued:
      return "queued";
    case RunStatus::kRunning:
      return "running";
    case RunStatus::kCompleted:
      return "completed";
    case RunStatus::kFailed:
      return "failed";
    case RunStatus::kCanceled:
      return "canceled";
    case RunStatus::kRequiresAction:
      return "requires_action";
  }
  return "failed";
}

std::optional<RunStatus> ParseRunStatus(std::string_view name) {
  for (auto s : {RunStatus::kQueued, RunStatus::kRunning, RunStatus::kCompleted, RunStatus::kFailed,
                 RunStatus::kCanceled, RunStatus::kRequiresAction}) {
    if (RunStatusName(s) == name) return s;
  }
  return std::nullopt;
}

namespace run_events {
namespace {

using json_text::ObjectWriter;

RunEvent Of(std::string_view type, ObjectWriter& data) {
  return RunEvent{0, std::string(type), data.Finish()};
}

}  // namespace

// Each event's data is written straight to text: a streamed turn makes several a model call.
RunEvent Started(std::string_view run_id, std::string_view conversation_id,
                 std::string_view agent_id) {
  ObjectWriter data;
  data.String("run_id", run_id);
  if (conversation_id.empty()) {
    data.Null("conversation_id");
  } else {
    data.String("conversation_id", conversation_id);
  }
  return Of("run.started", data.String("agent_id", agent_id));
}

RunEvent ModelStarted(int call, std::string_view provider, std::string_view model) {
  return Of("model.started",
            ObjectWriter().Int("call", call).String("provider", provider).String("model", model));
}

RunEvent ModelFinished(int call, std::int64_t input_tokens, std::int64_t output_tokens,
                       double cost_usd) {
  return Of("model.finished", ObjectWriter()
                                  .Int("call", call)
                                  .Int("input_tokens", input_tokens)
                                  .Int("output_tokens", output_tokens)
                                  .Number("cost_usd", cost_usd));
}

RunEvent ModelFailed(int call, std::string_view failure) {
  return Of("model.finished", ObjectWriter().Int("call", call).String("failure", failure));
}

RunEvent ToolStarted(std::string_view call_id, std::string_view name) {
  return Of("tool.started", ObjectWriter().String("call_id", call_id).String("name", name));
}

RunEvent ToolFinished(std::string_view call_id, std::string_view name, bool ok, std::int64_t ms) {
  return Of(
      "tool.finished",
      ObjectWriter().String("call_id", call_id).String("name", name).Bool("ok", ok).Int("ms", ms));
}

RunEvent ToolProgress(std::string_view call_id, std::string_view name, std::string_view state,
                      std::int64_t chars) {
  return Of("tool.progress", ObjectWriter()
                                 .String("call_id", call_id)
                                 .String("name", name)
                                 .String("state", state)
                                 .Int("chars", chars));
}

RunEvent TextDelta(std::string_view text, std::optional<int> call) {
  ObjectWriter data(text.size() + 32);
  data.String("text", text);
  if (call) data.Int("call", *call);
  return Of("text.delta", data);
}

RunEvent Action(std::string_view name, const json::value& arguments) {
  return Of("action", ObjectWriter().String("name", name).Value("arguments", arguments));
}

RunEvent TextRetracted(std::optional<int> call) {
  if (call) {
    return Of("text.retracted",
              ObjectWriter().String("reason", "model_call_failed").Int("call", *call));
  }
  return Of("text.retracted", ObjectWriter().String("reason", "blocked"));
}

RunEvent Completed(std::string body_json) {
  return RunEvent{0, "run.completed", std::move(body_json)};
}

RunEvent RequiresAction(std::string body_json) {
  return RunEvent{0, "run.requires_action", std::move(body_json)};
}

RunEvent Failed(const Error& error) {
  return RunEvent{0, "run.failed", json_text::Write(ErrorJson(error))};
}

}  // namespace run_events

void AppendSseFrame(std::string& out, const RunEvent& event) {
  char seq[24];
  out.append("id: ").append(seq, std::to_chars(seq, seq + sizeof seq, event.seq).ptr);
  out.append("\nevent: ").append(event.type);
  out.append("\ndata: ").append(event.data).append("\n\n");
}

Result<std::int64_t> ParseLastEventId(std::string_view text) {
  std::int64_t value = -1;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (text.empty() || ec != std::errc() || end != text.data() + text.size() || value < 0)
    return InvalidField("Last-Event-ID", "must be the number of an event of the run (0 or more)");
  return value;
}

}  // namespace agentgate
