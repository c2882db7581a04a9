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

RunEvent Of(std::string type, const json::object& data) {
  return RunEvent{0, std::move(type), json_text::Write(data)};
}

}  // namespace

RunEvent Started(std::string_view run_id, std::string_view conversation_id,
                 std::string_view agent_id) {
  return Of("run.started", json::object{{"run_id", run_id},
                                        {"conversation_id", conversation_id.empty()
                                                                ? json::value(nullptr)
                                                                : json::value(conversation_id)},
                                        {"agent_id", agent_id}});
}

RunEvent ModelStarted(int call, std::string_view provider, std::string_view model) {
  return Of("model.started",
            json::object{{"call", call}, {"provider", provider}, {"model", model}});
}

RunEvent ModelFinished(int call, std::int64_t input_tokens, std::int64_t output_tokens,
                       double cost_usd) {
  return Of("model.finished", json::object{{"call", call},
                                           {"input_tokens", input_tokens},
                                           {"output_tokens", output_tokens},
                                           {"cost_usd", cost_usd}});
}

RunEvent ModelFailed(int call, std::string_view failure) {
  return Of("model.finished", json::object{{"call", call}, {"failure", failure}});
}

RunEvent ToolStarted(std::string_view call_id, std::string_view name) {
  return Of("tool.started", json::object{{"call_id", call_id}, {"name", name}});
}

RunEvent ToolFinished(std::string_view call_id, std::string_view name, bool ok, std::int64_t ms) {
  return Of("tool.finished",
            json::object{{"call_id", call_id}, {"name", name}, {"ok", ok}, {"ms", ms}});
}

RunEvent TextDelta(std::string_view text, std::optional<int> call) {
  json::object data{{"text", text}};
  if (call) data.emplace("call", *call);
  return Of("text.delta", std::move(data));
}

RunEvent Action(std::string_view name, const json::value& arguments) {
  return Of("action", json::object{{"name", name}, {"arguments", arguments}});
}

RunEvent TextRetracted(std::optional<int> call) {
  if (call)
    return Of("text.retracted", json::object{{"reason", "model_call_failed"}, {"call", *call}});
  return Of("text.retracted", json::object{{"reason", "blocked"}});
}

RunEvent Completed(std::string body_json) {
  return RunEvent{0, "run.completed", std::move(body_json)};
}

RunEvent RequiresAction(std::string body_json) {
  return RunEvent{0, "run.requires_action", std::move(body_json)};
}

RunEvent Failed(const Error& error) {
  return Of("run.failed", ErrorJson(error));
}

}  // namespace run_events

std::string SseFrame(const RunEvent& event) {
  std::string out;
  out.reserve(event.type.size() + event.data.size() + 32);
  out.append("id: ").append(std::to_string(event.seq)).append("\nevent: ").append(event.type);
  out.append("\ndata: ").append(event.data).append("\n\n");
  return out;
}

Result<std::int64_t> ParseLastEventId(std::string_view text) {
  std::int64_t value = -1;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (text.empty() || ec != std::errc() || end != text.data() + text.size() || value < 0)
    return InvalidField("Last-Event-ID", "must be the number of an event of the run (0 or more)");
  return value;
}

}  // namespace agentgate
