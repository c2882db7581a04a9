#include "domain/a2a/legacy.hpp"

#include <boost/json/array.hpp>
#include <boost/json/object.hpp>

#include <array>
#include <cctype>
#include <utility>

namespace agentgate::a2a::legacy {

namespace json = boost::json;

namespace {

constexpr std::array<std::pair<std::string_view, std::string_view>, 11> kMethods = {{
    {"message/send", "SendMessage"},
    {"message/stream", "SendStreamingMessage"},
    {"tasks/get", "GetTask"},
    {"tasks/cancel", "CancelTask"},
    {"tasks/resubscribe", "SubscribeToTask"},
    {"tasks/list", "ListTasks"},
    {"tasks/pushNotificationConfig/set", "CreateTaskPushNotificationConfig"},
    {"tasks/pushNotificationConfig/get", "GetTaskPushNotificationConfig"},
    {"tasks/pushNotificationConfig/list", "ListTaskPushNotificationConfigs"},
    {"tasks/pushNotificationConfig/delete", "DeleteTaskPushNotificationConfig"},
    {"agent/getAuthenticatedExtendedCard", "GetExtendedAgentCard"},
}};

ProtocolError Invalid(const std::string& field, std::string_view problem) {
  return ProtocolError{Fault::kInvalidParams, "field '" + field + "': " + std::string(problem),
                       field};
}

std::string_view StringAt(const json::object& o, std::string_view key) {
  const auto* v = o.if_contains(key);
  return v != nullptr && v->is_string() ? std::string_view(v->get_string()) : std::string_view();
}

// A 0.3 part as 1.0's: its kind's member, with its metadata.
std::variant<json::value, ProtocolError> V1Part(const json::value& part, const std::string& field) {
  if (!part.is_object()) return Invalid(field, "must be an object");
  const auto& p = part.get_object();
  const std::string_view kind = StringAt(p, "kind");
  json::object out;
  if (kind == "text") {
    const auto* text = p.if_contains("text");
    if (text == nullptr || !text->is_string()) return Invalid(field + ".text", "must be a string");
    out["text"] = *text;
  } else if (kind == "data") {
    const auto* data = p.if_contains("data");
    if (data == nullptr) return Invalid(field + ".data", "is missing");
    out["data"] = *data;
  } else if (kind == "file") {
    const auto* file = p.if_contains("file");
    const json::object* f = file != nullptr ? file->if_object() : nullptr;
    if (f == nullptr) return Invalid(field + ".file", "must be an object");
    if (f->contains("uri"))
      out["url"] = f->at("uri");
    else
      out["raw"] = f->contains("bytes") ? f->at("bytes") : json::value("");
    if (const auto* type = f->if_contains("mimeType")) out["mediaType"] = *type;
  } else {
    return Invalid(field + ".kind", "must be \"text\", \"data\" or \"file\"");
  }
  if (const auto* metadata = p.if_contains("metadata")) out["metadata"] = *metadata;
  return json::value(std::move(out));
}

std::variant<json::value, ProtocolError> V1Message(const json::value& message) {
  if (!message.is_object()) return Invalid("message", "must be a Message object");
  json::object out = message.get_object();
  out.erase("kind");
  const std::string_view role = StringAt(out, "role");
  if (role != "user") return Invalid("message.role", "must be \"user\"");
  out["role"] = "ROLE_USER";
  const auto* parts = out.if_contains("parts");
  if (parts == nullptr || !parts->is_array()) return Invalid("message.parts", "must be an array");
  json::array v1_parts;
  std::size_t i = 0;
  for (const auto& part : parts->get_array()) {
    auto read = V1Part(part, "message.parts[" + std::to_string(i++) + "]");
    if (auto* refused = std::get_if<ProtocolError>(&read)) return std::move(*refused);
    v1_parts.push_back(std::move(std::get<json::value>(read)));
  }
  out["parts"] = std::move(v1_parts);
  return json::value(std::move(out));
}

std::string LegacyState(std::string_view state) {
  constexpr std::string_view prefix = "TASK_STATE_";
  if (!state.starts_with(prefix)) return "unknown";
  std::string out(state.substr(prefix.size()));
  for (auto& c : out)
    c = c == '_' ? '-' : static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out == "unspecified" ? "unknown" : out;
}

json::value LegacyParts(const json::value& parts) {
  json::array out;
  if (!parts.is_array()) return out;
  for (const auto& part : parts.get_array()) {
    if (!part.is_object()) continue;
    const auto& p = part.get_object();
    json::object written;
    if (const auto* text = p.if_contains("text")) {
      written = {{"kind", "text"}, {"text", *text}};
    } else if (const auto* data = p.if_contains("data")) {
      // 0.3's data is an object: anything else travels wrapped, marked as the SDKs mark it.
      if (data->is_object()) {
        written = {{"kind", "data"}, {"data", *data}};
      } else {
        written = {{"kind", "data"},
                   {"data", json::object{{"value", *data}}},
                   {"metadata", json::object{{"data_part_compat", true}}}};
      }
    } else {
      continue;
    }
    if (const auto* metadata = p.if_contains("metadata");
        metadata != nullptr && !written.contains("metadata"))
      written["metadata"] = *metadata;
    out.push_back(std::move(written));
  }
  return out;
}

json::object LegacyMessage(const json::object& message) {
  json::object out = message;
  out["kind"] = "message";
  out["role"] = StringAt(message, "role") == "ROLE_USER" ? "user" : "agent";
  if (const auto* parts = message.if_contains("parts")) out["parts"] = LegacyParts(*parts);
  return out;
}

json::object LegacyStatus(const json::object& status) {
  json::object out = status;
  out["state"] = LegacyState(StringAt(status, "state"));
  if (const auto* message = status.if_contains("message");
      message != nullptr && message->is_object())
    out["message"] = LegacyMessage(message->get_object());
  return out;
}

json::object LegacyArtifact(const json::object& artifact) {
  json::object out = artifact;
  if (const auto* parts = artifact.if_contains("parts")) out["parts"] = LegacyParts(*parts);
  return out;
}

json::object LegacyTask(const json::object& task) {
  json::object out = task;
  out["kind"] = "task";
  if (const auto* status = task.if_contains("status"); status != nullptr && status->is_object())
    out["status"] = LegacyStatus(status->get_object());
  if (const auto* artifacts = task.if_contains("artifacts");
      artifacts != nullptr && artifacts->is_array()) {
    json::array written;
    for (const auto& a : artifacts->get_array())
      if (a.is_object()) written.push_back(LegacyArtifact(a.get_object()));
    out["artifacts"] = std::move(written);
  }
  return out;
}

// tasks/pushNotificationConfig/*'s params as 1.0's: set's {taskId, pushNotificationConfig} as
// one TaskPushNotificationConfig; get's, list's and delete's {id, pushNotificationConfigId} as
// {taskId, id}.
std::variant<json::value, ProtocolError> V1PushConfigParams(std::string_view v1_method,
                                                            const json::value& params) {
  if (!params.is_object()) return Invalid("params", "must be an object");
  const auto& p = params.get_object();
  if (v1_method == "CreateTaskPushNotificationConfig") {
    const auto* config = p.if_contains("pushNotificationConfig");
    if (config == nullptr || !config->is_object())
      return Invalid("pushNotificationConfig", "must be a PushNotificationConfig object");
    json::object out = config->get_object();
    if (const auto* task = p.if_contains("taskId")) out["taskId"] = *task;
    return json::value(std::move(out));
  }
  json::object out;
  if (const auto* task = p.if_contains("id")) out["taskId"] = *task;
  if (const auto* id = p.if_contains("pushNotificationConfigId")) out["id"] = *id;
  return json::value(std::move(out));
}

json::object LegacyPushConfig(const json::object& config) {
  json::object inner;
  for (const char* key : {"id", "url"}) {
    if (const auto* v = config.if_contains(key)) inner[key] = *v;
  }
  if (const auto* auth = config.if_contains("authentication"); auth != nullptr && auth->is_object())
    inner["authentication"] = json::object{
        {"schemes", json::array{json::string(StringAt(auth->get_object(), "scheme"))}}};
  return json::object{{"taskId", StringAt(config, "taskId")},
                      {"pushNotificationConfig", std::move(inner)}};
}

}  // namespace

json::value LegacyPushConfigResult(std::string_view v1_method, const json::value& v1_result) {
  if (v1_method == "DeleteTaskPushNotificationConfig") return nullptr;
  const json::object* o = v1_result.if_object();
  if (o == nullptr) return v1_result;
  if (v1_method == "ListTaskPushNotificationConfigs") {
    json::array out;
    if (const auto* configs = o->if_contains("configs");
        configs != nullptr && configs->is_array()) {
      for (const auto& c : configs->get_array())
        if (c.is_object()) out.push_back(LegacyPushConfig(c.get_object()));
    }
    return out;
  }
  return LegacyPushConfig(*o);
}

std::optional<std::string> V1Method(std::string_view method) {
  for (const auto& [legacy_name, v1] : kMethods) {
    if (legacy_name == method) return std::string(v1);
  }
  return std::nullopt;
}

std::variant<json::value, ProtocolError> V1Params(std::string_view v1_method,
                                                  const json::value& params) {
  if (v1_method.find("PushNotificationConfig") != std::string_view::npos)
    return V1PushConfigParams(v1_method, params);
  if (v1_method != "SendMessage" && v1_method != "SendStreamingMessage") return params;
  if (!params.is_object()) return Invalid("params", "must be a MessageSendParams object");
  const auto& p = params.get_object();
  const auto* message = p.if_contains("message");
  auto read = V1Message(message != nullptr ? *message : json::value(nullptr));
  if (auto* refused = std::get_if<ProtocolError>(&read)) return std::move(*refused);
  json::object out{{"message", std::move(std::get<json::value>(read))}};
  if (const auto* config = p.if_contains("configuration");
      config != nullptr && config->is_object()) {
    const auto& c = config->get_object();
    json::object v1_config;
    // 0.3's `blocking` is off unless sent: a configuration without it returns at once.
    const auto* blocking = c.if_contains("blocking");
    if (blocking != nullptr && !blocking->is_null() && !blocking->is_bool())
      return Invalid("configuration.blocking", "must be a boolean");
    v1_config["returnImmediately"] =
        !(blocking != nullptr && blocking->is_bool() && blocking->get_bool());
    if (const auto* length = c.if_contains("historyLength")) v1_config["historyLength"] = *length;
    if (const auto* push = c.if_contains("pushNotificationConfig"))
      v1_config["taskPushNotificationConfig"] = *push;
    out["configuration"] = std::move(v1_config);
  }
  if (const auto* metadata = p.if_contains("metadata")) out["metadata"] = *metadata;
  return json::value(std::move(out));
}

json::value LegacyResult(const json::value& v1_result) {
  const json::object* o = v1_result.if_object();
  if (o == nullptr) return v1_result;
  if (const auto* task = o->if_contains("task"); task != nullptr && task->is_object())
    return LegacyTask(task->get_object());
  if (const auto* message = o->if_contains("message"); message != nullptr && message->is_object())
    return LegacyMessage(message->get_object());
  if (const auto* update = o->if_contains("statusUpdate");
      update != nullptr && update->is_object()) {
    json::object out = update->get_object();
    out["kind"] = "status-update";
    const auto* status = out.if_contains("status");
    json::object written = status != nullptr && status->is_object()
                               ? LegacyStatus(status->get_object())
                               : json::object{{"state", "unknown"}};
    const std::string_view state = StringAt(written, "state");
    // The stream ends here: at the task's end, or where it waits for its caller.
    out["final"] = state == "completed" || state == "failed" || state == "canceled" ||
                   state == "rejected" || state == "input-required";
    out["status"] = std::move(written);
    return out;
  }
  if (const auto* update = o->if_contains("artifactUpdate");
      update != nullptr && update->is_object()) {
    json::object out = update->get_object();
    out["kind"] = "artifact-update";
    if (const auto* artifact = out.if_contains("artifact");
        artifact != nullptr && artifact->is_object())
      out["artifact"] = LegacyArtifact(artifact->get_object());
    return out;
  }
  if (o->contains("id") && o->contains("status")) return LegacyTask(*o);
  if (const auto* tasks = o->if_contains("tasks"); tasks != nullptr && tasks->is_array()) {
    json::object out = *o;
    json::array written;
    for (const auto& t : tasks->get_array())
      if (t.is_object()) written.push_back(LegacyTask(t.get_object()));
    out["tasks"] = std::move(written);
    return out;
  }
  return v1_result;
}

}  // namespace agentgate::a2a::legacy
