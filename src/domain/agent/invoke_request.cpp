#include "domain/agent/invoke_request.hpp"

#include "domain/agent/busy_rules.hpp"

#include "domain/admin/names.hpp"
#include "domain/json_fields.hpp"
#include "domain/schema/json_schema.hpp"

#include <algorithm>
#include <cctype>

namespace agentgate {

namespace jf = json_fields;

namespace {

Result<void> ParseRunOptions(const boost::json::object& o, RunOptions& options) {
  AG_TRY(auto background, jf::OptionalBool(o, "background", ""));
  AG_TRY(auto stream, jf::OptionalBool(o, "stream", ""));
  AG_TRY(auto on_disconnect, jf::OptionalString(o, "on_disconnect", ""));
  options.background = background.value_or(false);
  options.stream = stream.value_or(false);
  if (options.background && options.stream) {
    return InvalidField("stream",
                        "cannot be true with \"background\": true (a background run's "
                        "events are at GET /api/runs/{run_id}/events)");
  }
  if (on_disconnect && *on_disconnect != "continue" && *on_disconnect != "cancel")
    return InvalidField("on_disconnect", "must be \"continue\" or \"cancel\"");
  options.cancel_on_disconnect = on_disconnect == "cancel";
  AG_TRY(options.webhooks, jf::OptionalBool(o, "webhooks", ""));
  return {};
}

}  // namespace

Result<boost::json::value> ParseResponseFormat(const boost::json::value& format,
                                               std::string_view field) {
  AG_TRY(const boost::json::object* o, jf::AsObject(format, field));
  AG_TRYV(jf::RejectUnknownKeys(*o, field, {"type", "schema", "json_schema"}));
  AG_TRY(const auto type, jf::RequiredString(*o, "type", field));
  if (type == "json_object") {
    // JSON mode: one JSON object, any (docs/structured-output.md).
    if (o->size() != 1)
      return InvalidField(field, "with \"type\": \"json_object\" takes no other field");
    return schema::JsonObjectSchema();
  }
  if (type != "json_schema")
    return InvalidField(jf::Join(field, "type"), "must be \"json_schema\" or \"json_object\"");
  const auto* schema = o->if_contains("schema");
  const auto* openai = o->if_contains("json_schema");
  if ((schema == nullptr) == (openai == nullptr))
    return InvalidField(field, "must carry one of \"schema\" or \"json_schema\"");
  if (schema != nullptr) return schema::ReadAnswerSchema(*schema, jf::Join(field, "schema"));
  const std::string at = jf::Join(field, "json_schema");
  AG_TRY(const boost::json::object* named, jf::AsObject(*openai, at));
  return ParseNamedAnswerSchema(*named, at);
}

Result<boost::json::value> ParseNamedAnswerSchema(const boost::json::object& named,
                                                  std::string_view field) {
  const std::string at(field);
  AG_TRYV(jf::RejectUnknownKeys(named, at, {"name", "description", "schema", "strict"}));
  AG_TRY(const auto name, jf::OptionalString(named, "name", at));
  const auto named_well = [](std::string_view n) {
    return !n.empty() && n.size() <= 64 && std::all_of(n.begin(), n.end(), [](char c) {
      return std::isalnum(static_cast<unsigned char>(c)) != 0 || c == '_' || c == '-';
    });
  };
  if (name && !named_well(*name))
    return InvalidField(jf::Join(at, "name"), "must match [A-Za-z0-9_-]{1,64}");
  AG_TRY(const auto description, jf::OptionalString(named, "description", at));
  AG_TRY(const auto strict, jf::OptionalBool(named, "strict", at));
  const auto* inner = named.if_contains("schema");
  if (inner == nullptr) return InvalidField(jf::Join(at, "schema"), "is required");
  AG_TRY(auto checked, schema::ReadAnswerSchema(*inner, jf::Join(at, "schema")));
  if (strict.value_or(false) && !schema::StrictForm(checked)) {
    return InvalidField(jf::Join(at, "strict"),
                        "needs every object closed (\"additionalProperties\": false) with all "
                        "its properties required");
  }
  return checked;
}

Result<InvokeRequest> ParseInvokeRequest(const boost::json::value& body, RunOptions* options) {
  AG_TRY(const boost::json::object* o, jf::AsObject(body, ""));
  if (options != nullptr) {
    AG_TRYV(jf::RejectUnknownKeys(
        *o, "",
        {"message", "stateful", "conversation_id", "host_context", "additional_instructions",
         "instance_id", "group_key", "response_format", "if_busy", "background", "stream",
         "on_disconnect", "webhooks"}));
    AG_TRYV(ParseRunOptions(*o, *options));
  } else {
    AG_TRYV(jf::RejectUnknownKeys(
        *o, "",
        {"message", "stateful", "conversation_id", "host_context", "additional_instructions",
         "instance_id", "group_key", "response_format", "if_busy"}));
  }
  InvokeRequest r;
  AG_TRY(r.message, jf::RequiredString(*o, "message", ""));
  if (r.message.empty()) return InvalidField("message", "must be a non-empty string");
  AG_TRY(auto stateful, jf::OptionalBool(*o, "stateful", ""));
  r.stateful = stateful.value_or(false);
  AG_TRY(r.conversation_id, jf::OptionalString(*o, "conversation_id", ""));
  if (r.conversation_id && !r.stateful) {
    return InvalidField("conversation_id",
                        "requires \"stateful\": true (stateless calls keep no conversation)");
  }
  if (r.conversation_id && r.conversation_id->empty()) {
    return InvalidField("conversation_id",
                        "must be null to start a conversation, or an id from an earlier call");
  }
  if (const auto* ctx = o->if_contains("host_context"); ctx != nullptr && !ctx->is_null()) {
    if (!ctx->is_object()) return InvalidField("host_context", "must be a JSON object or null");
    r.host_context = *ctx;
  }
  AG_TRY(r.additional_instructions, jf::OptionalString(*o, "additional_instructions", ""));
  AG_TRY(r.instance_id, jf::OptionalString(*o, "instance_id", ""));
  if (o->contains("group_key")) {
    const auto& g = o->at("group_key");
    if (!g.is_null()) {
      if (!g.is_string() || !names::IsValidGroupKey(g.get_string())) {
        return InvalidField("group_key", "must be 1-128 characters of letters, digits, . _ - @");
      }
      r.group_key = std::string(g.get_string());
    }
  }
  if (const auto* format = o->if_contains("response_format"); format && !format->is_null()) {
    AG_TRY(r.answer_schema, ParseResponseFormat(*format));
  }
  AG_TRY(const auto if_busy, jf::OptionalString(*o, "if_busy", ""));
  if (if_busy) {
    const bool background = options != nullptr && options->background;
    const auto kind = background ? busy::CallKind::kBackgroundRun : busy::CallKind::kCall;
    const std::optional<IfBusy> choice = *if_busy == "reject"      ? IfBusy::kReject
                                         : *if_busy == "interrupt" ? IfBusy::kInterrupt
                                         : *if_busy == "wait"      ? IfBusy::kWait
                                         : *if_busy == "enqueue"   ? std::optional(IfBusy::kEnqueue)
                                                                   : std::nullopt;
    if (choice && !busy::RuleOf(kind, choice).allowed) {
      return InvalidField("if_busy",
                          background ? "\"wait\" is for a plain or streamed call; a background run "
                                       "on a busy conversation may \"reject\", \"enqueue\" or "
                                       "\"interrupt\""
                                     : "\"enqueue\" is for a background run; a plain or streamed "
                                       "call waits (\"wait\")");
    }
    if (!choice) {
      return InvalidField("if_busy", background ? "must be \"reject\", \"enqueue\" or \"interrupt\""
                                                : "must be \"wait\", \"reject\" or \"interrupt\"");
    }
    r.if_busy = choice;
  }
  return r;
}

namespace {

std::string StringIn(const boost::json::object& o, std::string_view key) {
  const auto* v = o.if_contains(key);
  return v != nullptr && v->is_string() ? std::string(v->get_string()) : std::string();
}

boost::json::object MessageJson(const ChatMessage& m) {
  boost::json::object out{{"role", m.role == Role::kAssistant ? "assistant"
                                   : m.role == Role::kTool    ? "tool"
                                                              : "user"},
                          {"content", m.content}};
  if (!m.tool_calls.empty()) {
    boost::json::array calls;
    for (const auto& c : m.tool_calls)
      calls.push_back(
          boost::json::object{{"id", c.id}, {"name", c.name}, {"arguments", c.arguments_json}});
    out["tool_calls"] = std::move(calls);
  }
  if (!m.tool_call_id.empty()) out["tool_call_id"] = m.tool_call_id;
  if (!m.tool_name.empty()) out["tool_name"] = m.tool_name;
  return out;
}

boost::json::array MessagesJson(const std::vector<ChatMessage>& messages) {
  boost::json::array out;
  for (const auto& m : messages) out.push_back(MessageJson(m));
  return out;
}

}  // namespace

std::vector<ChatMessage> HistoryOfJson(const boost::json::value& kept) {
  std::vector<ChatMessage> history;
  if (!kept.is_array()) return history;
  for (const auto& m : kept.get_array()) {
    const auto* o = m.if_object();
    const auto* role = o != nullptr ? o->if_contains("role") : nullptr;
    const auto* content = o != nullptr ? o->if_contains("content") : nullptr;
    if (role == nullptr || !role->is_string() || content == nullptr || !content->is_string())
      continue;
    ChatMessage message{role->get_string() == "assistant" ? Role::kAssistant
                        : role->get_string() == "tool"    ? Role::kTool
                                                          : Role::kUser,
                        std::string(content->get_string()),
                        {},
                        StringIn(*o, "tool_call_id"),
                        StringIn(*o, "tool_name")};
    if (const auto* calls = o->if_contains("tool_calls"); calls != nullptr && calls->is_array()) {
      for (const auto& c : calls->get_array()) {
        if (!c.is_object()) continue;
        const auto& call = c.get_object();
        message.tool_calls.push_back(
            ToolCall{StringIn(call, "id"), StringIn(call, "name"), StringIn(call, "arguments")});
      }
    }
    history.push_back(std::move(message));
  }
  return history;
}

Result<InvokeRequest> KeptInvokeRequest(boost::json::value kept) {
  auto* fields = kept.if_object();
  if (fields == nullptr) return Error(ErrorCode::kInternal, "a kept request is not an object");
  std::optional<std::string> after_turn;
  if (const auto* v = fields->if_contains(kAfterTurnKey); v != nullptr && v->is_string())
    after_turn = std::string(v->get_string());
  std::vector<ChatMessage> history;
  if (const auto* v = fields->if_contains(kHistoryKey)) history = HistoryOfJson(*v);
  std::vector<ChatMessage> continuation;
  if (const auto* v = fields->if_contains(kContinuationKey)) continuation = HistoryOfJson(*v);
  std::vector<ToolSpec> caller_tools;
  std::optional<std::string> required_tool;
  bool flat = false;
  if (const auto* v = fields->if_contains(kCallerToolsKey); v != nullptr && v->is_object()) {
    const auto& kept_tools = v->get_object();
    if (const auto* tools = kept_tools.if_contains("tools");
        tools != nullptr && tools->is_array()) {
      for (const auto& t : tools->get_array()) {
        if (!t.is_object()) continue;
        const auto& tool = t.get_object();
        const auto* parameters = tool.if_contains("parameters");
        caller_tools.push_back(
            ToolSpec{StringIn(tool, "name"), StringIn(tool, "description"),
                     parameters != nullptr ? *parameters : boost::json::value()});
      }
    }
    if (const auto* r = kept_tools.if_contains("required"); r != nullptr && r->is_string())
      required_tool = std::string(r->get_string());
    if (const auto* f = kept_tools.if_contains("flat"); f != nullptr && f->is_bool())
      flat = f->get_bool();
  }
  for (const auto key : {kAfterTurnKey, kHistoryKey, kContinuationKey, kCallerToolsKey})
    fields->erase(key);
  // A continuation of a stored conversation has no message of its own; the body's reader wants
  // one, so it reads a stand-in that is dropped again.
  const bool no_message = !continuation.empty() && StringIn(*fields, "message").empty();
  if (no_message) (*fields)["message"] = "-";
  AG_TRY(auto request, ParseInvokeRequest(kept));
  if (no_message) request.message.clear();
  request.after_turn_id = std::move(after_turn);
  request.history = std::move(history);
  request.continuation = std::move(continuation);
  request.caller_tools = std::move(caller_tools);
  request.required_tool = std::move(required_tool);
  request.caller_tools_flat = flat;
  return request;
}

boost::json::object InvokeRequestJson(const InvokeRequest& r) {
  boost::json::object out{{"message", r.message}, {"stateful", r.stateful}};
  if (r.conversation_id) out["conversation_id"] = *r.conversation_id;
  if (r.host_context) out["host_context"] = *r.host_context;
  if (r.additional_instructions) out["additional_instructions"] = *r.additional_instructions;
  if (r.instance_id) out["instance_id"] = *r.instance_id;
  if (r.group_key) out["group_key"] = *r.group_key;
  if (r.after_turn_id) out[kAfterTurnKey] = *r.after_turn_id;
  if (!r.history.empty()) out[kHistoryKey] = MessagesJson(r.history);
  if (!r.continuation.empty()) out[kContinuationKey] = MessagesJson(r.continuation);
  if (!r.caller_tools.empty() || r.required_tool) {
    boost::json::array tools;
    for (const auto& t : r.caller_tools) {
      tools.push_back(boost::json::object{
          {"name", t.name}, {"description", t.description}, {"parameters", t.parameters}});
    }
    boost::json::object kept{{"tools", std::move(tools)}, {"flat", r.caller_tools_flat}};
    if (r.required_tool) kept["required"] = *r.required_tool;
    out[kCallerToolsKey] = std::move(kept);
  }
  if (r.answer_schema)
    out["response_format"] =
        boost::json::object{{"type", "json_schema"}, {"schema", *r.answer_schema}};
  return out;
}

}  // namespace agentgate
