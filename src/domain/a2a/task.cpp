#include "domain/a2a/task.hpp"

#include "domain/governance/governance.hpp"

#include <boost/json/array.hpp>
#include <boost/json/parse.hpp>

namespace agentgate::a2a {

namespace json = boost::json;

namespace {

std::string_view StringAt(const json::object& o, std::string_view key) {
  const auto* v = o.if_contains(key);
  return v != nullptr && v->is_string() ? std::string_view(v->get_string()) : std::string_view();
}

const json::object* ObjectAt(const json::object& o, std::string_view key) {
  const auto* v = o.if_contains(key);
  return v != nullptr && v->is_object() ? &v->get_object() : nullptr;
}

json::object AgentMessage(std::string_view task_id, std::string_view context_id,
                          json::array parts) {
  json::object message{{"messageId", std::string(task_id) + "-status"},
                       {"role", "ROLE_AGENT"},
                       {"parts", std::move(parts)},
                       {"taskId", task_id}};
  if (!context_id.empty()) message["contextId"] = context_id;
  return message;
}

json::array TextParts(std::string_view text) {
  return json::array{json::object{{"text", text}}};
}

// Why a completed turn is not COMPLETED: its stop reason, or its blocked reply; empty when it is.
std::string ShortOf(const json::object& result) {
  const auto* blocked = result.if_contains("blocked");
  if (blocked != nullptr && blocked->is_bool() && blocked->get_bool())
    return "blocked: the reply broke the agent's safety policy (terminated_reason: blocked)";
  const std::string_view reason = StringAt(result, "terminated_reason");
  if (reason.empty()) return "";
  return "terminated_reason: " + std::string(reason);
}

// The task's status: {state, message?, timestamp?}.
json::object StatusOf(const json::object& run, std::string_view task_id,
                      std::string_view context_id, std::string_view timestamp) {
  const std::string_view status = StringAt(run, "status");
  json::object out;
  const auto say = [&](std::string_view state, json::array parts) {
    out["state"] = state;
    if (!parts.empty()) out["message"] = AgentMessage(task_id, context_id, std::move(parts));
  };
  if (status == "queued") {
    say("TASK_STATE_SUBMITTED", {});
  } else if (status == "running") {
    say("TASK_STATE_WORKING", {});
  } else if (status == "requires_action") {
    json::object needs{{"run_id", task_id}};
    if (const auto* pending = run.if_contains("pending_actions"))
      needs["pending_actions"] = *pending;
    json::array parts = TextParts(
        "The task waits for its caller: answer each pending action in a message with this taskId "
        "(docs/a2a.md).");
    parts.push_back(json::object{{"data", std::move(needs)}});
    say("TASK_STATE_INPUT_REQUIRED", std::move(parts));
  } else if (status == "completed") {
    const json::object* result = ObjectAt(run, "result");
    const std::string short_of = result != nullptr ? ShortOf(*result) : "";
    if (short_of.empty()) {
      say("TASK_STATE_COMPLETED", {});
    } else {
      say("TASK_STATE_FAILED", TextParts(short_of));
    }
  } else {
    const json::object* error = ObjectAt(run, "error");
    std::string why = error != nullptr ? std::string(StringAt(*error, "message")) : "";
    const std::string_view code = error != nullptr ? StringAt(*error, "code") : "";
    if (!code.empty()) why = std::string(code) + ": " + why;
    say(status == "canceled" ? "TASK_STATE_CANCELED" : "TASK_STATE_FAILED",
        why.empty() ? json::array{} : TextParts(why));
  }
  if (!timestamp.empty()) out["timestamp"] = timestamp;
  return out;
}

// The reply's parts: its text, and its parsed answer as data when it kept to a schema.
json::array ReplyParts(const json::object& result) {
  json::array parts = TextParts(StringAt(result, "response"));
  const auto* output = result.if_contains("output");
  if (output != nullptr && !output->is_null()) parts.push_back(json::object{{"data", *output}});
  return parts;
}

std::string LastTimestamp(const json::object& run) {
  for (const char* key : {"ended_at", "started_at", "created_at"}) {
    const std::string_view at = StringAt(run, key);
    if (!at.empty()) return std::string(at);
  }
  return "";
}

}  // namespace

json::object TaskOfRun(const json::object& run) {
  const std::string_view task_id = StringAt(run, "run_id");
  const std::string_view context_id = StringAt(run, "conversation_id");
  json::object task{{"id", task_id}};
  if (!context_id.empty()) task["contextId"] = context_id;
  task["status"] = StatusOf(run, task_id, context_id, LastTimestamp(run));
  const json::object* result = ObjectAt(run, "result");
  if (result != nullptr && StringAt(run, "status") == "completed") {
    json::array artifacts;
    artifacts.push_back(json::object{
        {"artifactId", kReplyArtifactId}, {"name", "reply"}, {"parts", ReplyParts(*result)}});
    task["artifacts"] = std::move(artifacts);
  }
  return task;
}

json::object RejectedTask(std::string_view task_id, std::string_view context_id, const Error& why,
                          std::int64_t now_ms) {
  json::object task{{"id", task_id}};
  if (!context_id.empty()) task["contextId"] = context_id;
  const std::string said = std::string(ErrorCodeName(why.code)) + ": " + why.message;
  task["status"] = json::object{{"state", "TASK_STATE_REJECTED"},
                                {"message", AgentMessage(task_id, context_id, TextParts(said))},
                                {"timestamp", governance::IsoUtc(now_ms)}};
  return task;
}

json::object TaskEvents::ArtifactUpdate(json::array parts, bool append, bool last) const {
  json::object artifact{
      {"artifactId", kReplyArtifactId}, {"name", "reply"}, {"parts", std::move(parts)}};
  return json::object{{"artifactUpdate", json::object{{"taskId", task_id_},
                                                      {"contextId", context_id_},
                                                      {"artifact", std::move(artifact)},
                                                      {"append", append},
                                                      {"lastChunk", last}}}};
}

json::object TaskEvents::StatusUpdate(json::object status) const {
  return json::object{{"statusUpdate", json::object{{"taskId", task_id_},
                                                    {"contextId", context_id_},
                                                    {"status", std::move(status)}}}};
}

void TaskEvents::Add(const RunEvent& event, std::int64_t now_ms, std::vector<json::object>& out) {
  const std::string now = governance::IsoUtc(now_ms);
  if (!started_) {
    started_ = true;
    json::object task{{"id", task_id_}, {"contextId", context_id_}};
    task["status"] = json::object{{"state", "TASK_STATE_WORKING"}, {"timestamp", now}};
    out.push_back(json::object{{"task", std::move(task)}});
  }
  if (event.type == "text.delta") {
    boost::system::error_code ec;
    const json::value data = json::parse(event.data, ec);
    if (ec || !data.is_object()) return;
    const std::string_view text = StringAt(data.get_object(), "text");
    out.push_back(ArtifactUpdate(TextParts(text), !streamed_.empty(), false));
    streamed_.append(text);
    return;
  }
  if (event.type == "text.retracted") {
    streamed_.clear();
    out.push_back(ArtifactUpdate(TextParts(""), false, false));
    return;
  }
  if (!run_events::IsTerminal(event.type)) return;
  boost::system::error_code ec;
  json::value data = json::parse(event.data, ec);
  if (ec || !data.is_object()) data = json::object{};
  json::object run{{"run_id", task_id_}, {"conversation_id", context_id_}};
  if (event.type == "run.completed") {
    run["status"] = "completed";
    const json::object& result = data.get_object();
    // The whole reply closes the artifact: appended when the follower has all of it but its
    // parsed answer, else in place of what was streamed (a block after text went out).
    const std::string_view reply = StringAt(result, "response");
    const bool whole = !streamed_.empty() && streamed_ == reply;
    json::array parts = ReplyParts(result);
    if (whole) {
      parts.erase(parts.begin());
      if (parts.empty()) parts = TextParts("");
    }
    out.push_back(ArtifactUpdate(std::move(parts), whole, true));
    run["result"] = std::move(data);
  } else if (event.type == "run.requires_action") {
    run["status"] = "requires_action";
    if (const auto* pending = data.get_object().if_contains("pending_actions"))
      run["pending_actions"] = *pending;
  } else {
    const std::string_view code = StringAt(data.get_object(), "code");
    run["status"] = code == "canceled" || code == "superseded" ? "canceled" : "failed";
    run["error"] = std::move(data);
  }
  out.push_back(StatusUpdate(StatusOf(run, task_id_, context_id_, now)));
}

}  // namespace agentgate::a2a
