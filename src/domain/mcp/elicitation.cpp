#include "domain/mcp/elicitation.hpp"

#include "domain/json_text.hpp"

#include <boost/json/parse.hpp>

#include <algorithm>
#include <array>
#include <set>

namespace agentgate::mcp {

namespace json = boost::json;

namespace {

constexpr std::string_view kCapabilities = "io.modelcontextprotocol/clientCapabilities";
constexpr std::size_t kArgumentsShown = 2000;  // a form's message stays readable

// The keywords a form's primitive field may carry (the elicitation schema's subset).
constexpr std::array<std::string_view, 12> kFieldKeywords = {
    "type",      "title",     "description", "enum",    "enumNames", "oneOf",
    "minLength", "maxLength", "format",      "minimum", "maximum",   "default"};

bool PrimitiveField(const json::value& schema) {
  if (!schema.is_object()) return false;
  const auto* type = schema.get_object().if_contains("type");
  if (type == nullptr || !type->is_string()) return false;
  const std::string_view t = type->get_string();
  return t == "string" || t == "number" || t == "integer" || t == "boolean";
}

// A field as a form may hold it: only the keywords forms know.
json::object FormField(const json::object& schema) {
  json::object field;
  for (const auto& [key, value] : schema) {
    if (std::find(kFieldKeywords.begin(), kFieldKeywords.end(), std::string_view(key)) !=
        kFieldKeywords.end())
      field[key] = value;
  }
  return field;
}

// An object schema whose every property is a primitive field: the form is the schema itself.
std::optional<json::object> FlatForm(const json::value& schema) {
  if (!schema.is_object()) return std::nullopt;
  const auto& o = schema.get_object();
  const auto* type = o.if_contains("type");
  const auto* properties = o.if_contains("properties");
  if (type == nullptr || *type != "object" || properties == nullptr || !properties->is_object() ||
      properties->get_object().empty())
    return std::nullopt;
  json::object fields;
  for (const auto& [name, field] : properties->get_object()) {
    if (!PrimitiveField(field)) return std::nullopt;
    fields[name] = FormField(field.get_object());
  }
  json::object form{{"type", "object"}, {"properties", std::move(fields)}};
  if (const auto* required = o.if_contains("required")) form["required"] = *required;
  return form;
}

json::object AnswerForm(json::object field) {
  return json::object{{"type", "object"},
                      {"properties", json::object{{"answer", std::move(field)}}},
                      {"required", json::array{"answer"}}};
}

json::object Request(std::string message, json::object schema) {
  return json::object{{"method", "elicitation/create"},
                      {"params", json::object{{"mode", "form"},
                                              {"message", std::move(message)},
                                              {"requestedSchema", std::move(schema)}}}};
}

json::object ApprovalRequestOf(std::string_view agent_id, std::string_view tool,
                               const json::value& arguments_value) {
  std::string arguments = arguments_value.is_string() ? std::string(arguments_value.get_string())
                                                      : json_text::Write(arguments_value);
  if (arguments.size() > kArgumentsShown) arguments = arguments.substr(0, kArgumentsShown) + "...";
  json::object approve{
      {"type", "boolean"}, {"title", "Approve"}, {"description", "Let the agent make this call"}};
  json::object reason{{"type", "string"},
                      {"title", "Reason"},
                      {"description", "Optional: why, told to the agent when you deny"}};
  json::object schema{
      {"type", "object"},
      {"properties", json::object{{"approve", std::move(approve)}, {"reason", std::move(reason)}}},
      {"required", json::array{"approve"}}};
  return Request("The agent " + std::string(agent_id) + " asks to call " + std::string(tool) +
                     " with these arguments: " + arguments + "\nApprove this call?",
                 std::move(schema));
}

// A question's form, and how its content reads back: a flat form is asked as it is; no schema
// is any text; any other schema is JSON text that keeps to it.
std::pair<json::object, FormShape> QuestionRequestOf(std::string text, const json::value& schema) {
  if (schema.is_null()) {
    return {Request(std::move(text), AnswerForm(json::object{{"type", "string"}})),
            FormShape::kAnswerField};
  }
  if (auto flat = FlatForm(schema)) {
    return {Request(std::move(text), std::move(*flat)), FormShape::kWholeAnswer};
  }
  json::object field{
      {"type", "string"},
      {"description", "Your answer as JSON that keeps to: " + json_text::Write(schema)}};
  return {Request(std::move(text), AnswerForm(std::move(field))), FormShape::kJsonAnswerField};
}

std::string_view TextOf(const json::object& o, std::string_view key) {
  const auto* v = o.if_contains(key);
  return v != nullptr && v->is_string() ? std::string_view(v->get_string()) : std::string_view();
}

std::string FieldOf(std::string_view call_id) {
  return "params.inputResponses[\"" + std::string(call_id) + "\"]";
}

// An accepted question form's answer, as the run's answers take it.
Result<json::value> AnswerOf(const ElicitedNeed& need, const json::object& content,
                             const std::string& at) {
  if (need.shape == FormShape::kWholeAnswer) return json::value(content);
  const auto* answer = content.if_contains("answer");
  if (answer == nullptr) return InvalidField(at + ".content.answer", "is required");
  if (need.shape != FormShape::kJsonAnswerField) return *answer;
  if (!answer->is_string()) return InvalidField(at + ".content.answer", "must be JSON text");
  boost::system::error_code ec;
  json::value parsed = json::parse(answer->get_string(), ec);
  if (ec) return InvalidField(at + ".content.answer", "is not JSON");
  return parsed;
}

std::string_view ShapeName(FormShape shape) {
  switch (shape) {
    case FormShape::kApproval:
      return "approval";
    case FormShape::kWholeAnswer:
      return "whole";
    case FormShape::kAnswerField:
      return "answer";
    case FormShape::kJsonAnswerField:
      return "json";
  }
  return "approval";
}

// One need's response into the request being built.
Result<void> ReadOne(const ElicitedNeed& need, const json::value& response,
                     ApprovalRequest& request) {
  const std::string at = FieldOf(need.call_id);
  if (!response.is_object()) return InvalidField(at, "must be an elicitation result object");
  const auto& r = response.get_object();
  const auto* action = r.if_contains("action");
  if (action == nullptr || !action->is_string() ||
      (*action != "accept" && *action != "decline" && *action != "cancel"))
    return InvalidField(at + ".action", "must be accept, decline or cancel");
  const bool accepted = *action == "accept";
  const auto* content = r.if_contains("content");
  if (accepted && (content == nullptr || !content->is_object()))
    return InvalidField(at + ".content", "must be an object when the form is accepted");
  const std::size_t place = request.decisions.size();
  if (need.shape == FormShape::kApproval) {
    ApprovalDecision decision{need.call_id, false, "", std::nullopt, std::nullopt, place};
    if (!accepted) {
      decision.reason = *action == "cancel" ? "the MCP client's user canceled the form"
                                            : "the MCP client's user declined the form";
    } else {
      const auto* approve = content->get_object().if_contains("approve");
      if (approve == nullptr || !approve->is_bool())
        return InvalidField(at + ".content.approve", "must be a boolean");
      decision.approve = approve->get_bool();
      const auto* reason = content->get_object().if_contains("reason");
      if (reason != nullptr && reason->is_string()) decision.reason = reason->get_string();
    }
    request.decisions.push_back(std::move(decision));
    return {};
  }
  if (!accepted) {
    request.declined.emplace_back(need.call_id, *action == "cancel"
                                                    ? "The user canceled the question."
                                                    : "The user declined to answer.");
    return {};
  }
  AG_TRY(auto answer, AnswerOf(need, content->get_object(), at));
  request.answered.emplace_back(need.call_id, std::move(answer));
  return {};
}

}  // namespace

bool InitializeDeclaresForms(const json::object& params) {
  const auto* capabilities = params.if_contains("capabilities");
  const auto* c = capabilities != nullptr ? capabilities->if_object() : nullptr;
  const auto* elicitation = c != nullptr ? c->if_contains("elicitation") : nullptr;
  if (elicitation == nullptr || !elicitation->is_object()) return false;
  const auto& modes = elicitation->get_object();
  return modes.contains("form") || !modes.contains("url");
}

constexpr std::string_view kFormsMark = ".forms";

std::string LegacySessionId(std::string random, bool takes_forms) {
  if (takes_forms) random += kFormsMark;
  return random;
}

bool LegacySessionTakesForms(std::string_view session_id) {
  return session_id.ends_with(kFormsMark);
}

json::object LegacyElicitParams(const json::object& input_request, std::string_view version) {
  json::object params = input_request.at("params").as_object();
  if (version != "2025-11-25") params.erase("mode");  // named from 2025-11-25 on
  return params;
}

bool AcceptsFormElicitation(const json::object& params) {
  const auto* meta = params.if_contains("_meta");
  if (meta == nullptr || !meta->is_object()) return false;
  const auto* capabilities = meta->get_object().if_contains(kCapabilities);
  if (capabilities == nullptr || !capabilities->is_object()) return false;
  const auto* elicitation = capabilities->get_object().if_contains("elicitation");
  if (elicitation == nullptr || !elicitation->is_object()) return false;
  const auto& modes = elicitation->get_object();
  // An empty capability means forms (the revisions before modes were named).
  return modes.contains("form") || !modes.contains("url");
}

Elicitation ElicitationOf(std::string_view agent_id, const json::array& pending_actions) {
  Elicitation out;
  for (const auto& item : pending_actions) {
    if (!item.is_object()) continue;
    const auto& need = item.get_object();
    const std::string call_id(TextOf(need, "call_id"));
    const auto* arguments = need.if_contains("arguments");
    if (TextOf(need, "kind") != "question") {
      out.input_requests[call_id] = ApprovalRequestOf(
          agent_id, TextOf(need, "tool"), arguments != nullptr ? *arguments : json::value());
      out.needs.push_back({call_id, FormShape::kApproval});
      continue;
    }
    const auto* schema = need.if_contains("answer_schema");
    auto [request, shape] = QuestionRequestOf(std::string(TextOf(need, "question")),
                                              schema != nullptr ? *schema : json::value());
    out.input_requests[call_id] = std::move(request);
    out.needs.push_back({call_id, shape});
  }
  return out;
}

json::object InputRequiredResult(json::object input_requests, std::string request_state) {
  return json::object{{"resultType", "input_required"},
                      {"inputRequests", std::move(input_requests)},
                      {"requestState", std::move(request_state)}};
}

Result<ApprovalRequest> ReadInputResponses(const json::value* responses,
                                           const std::vector<ElicitedNeed>& needs) {
  if (responses == nullptr || !responses->is_object())
    return InvalidField("params.inputResponses", "must be an object of the elicitations' results");
  const auto& given = responses->get_object();
  for (const auto& [key, value] : given) {
    const bool asked = std::any_of(needs.begin(), needs.end(),
                                   [&](const ElicitedNeed& n) { return n.call_id == key; });
    if (!asked) return InvalidField(FieldOf(key), "answers nothing this call asked");
  }
  ApprovalRequest request;
  for (const auto& need : needs) {
    const auto* response = given.if_contains(need.call_id);
    if (response == nullptr) return InvalidField(FieldOf(need.call_id), "is missing");
    AG_TRYV(ReadOne(need, *response, request));
  }
  return request;
}

json::array NeedsJson(const std::vector<ElicitedNeed>& needs) {
  json::array out;
  for (const auto& need : needs) out.push_back(json::array{need.call_id, ShapeName(need.shape)});
  return out;
}

Result<std::vector<ElicitedNeed>> ParseNeeds(const json::value& value) {
  const auto bad = Error(ErrorCode::kInvalidRequest, "the request state's needs are unreadable");
  if (!value.is_array()) return bad;
  std::vector<ElicitedNeed> needs;
  for (const auto& item : value.get_array()) {
    if (!item.is_array() || item.get_array().size() != 2 || !item.get_array()[0].is_string() ||
        !item.get_array()[1].is_string())
      return bad;
    ElicitedNeed need{std::string(item.get_array()[0].get_string()), FormShape::kApproval};
    const std::string_view shape = item.get_array()[1].get_string();
    bool known = false;
    for (FormShape s : {FormShape::kApproval, FormShape::kWholeAnswer, FormShape::kAnswerField,
                        FormShape::kJsonAnswerField}) {
      if (ShapeName(s) == shape) {
        need.shape = s;
        known = true;
      }
    }
    if (!known) return bad;
    needs.push_back(std::move(need));
  }
  return needs;
}

std::optional<Result<ToolAsk>> ReadInputRequired(const json::value& result) {
  const auto* o = result.if_object();
  const auto* type = o != nullptr ? o->if_contains("resultType") : nullptr;
  if (type == nullptr || *type != "input_required") return std::nullopt;
  const auto unsupported = [](std::string what) {
    return Error(ErrorCode::kUnavailable,
                 "the MCP server asked for input agentgate cannot give (" + what + ")");
  };
  const auto* requests = o->if_contains("inputRequests");
  const auto* state = o->if_contains("requestState");
  if (requests == nullptr || !requests->is_object() || requests->get_object().size() != 1)
    return unsupported("it must ask exactly one form");
  if (state == nullptr || !state->is_string()) return unsupported("it gave no requestState");
  const auto& [key, request] = *requests->get_object().begin();
  const auto* method = request.is_object() ? request.get_object().if_contains("method") : nullptr;
  if (method == nullptr || *method != "elicitation/create")
    return unsupported(method != nullptr && method->is_string() ? std::string(method->get_string())
                                                                : "an unreadable request");
  const auto* params = request.get_object().if_contains("params");
  const auto* p = params != nullptr ? params->if_object() : nullptr;
  const auto* mode = p != nullptr ? p->if_contains("mode") : nullptr;
  if (p == nullptr || (mode != nullptr && *mode != "form")) return unsupported("a URL elicitation");
  const auto* message = p->if_contains("message");
  const auto* schema = p->if_contains("requestedSchema");
  if (message == nullptr || !message->is_string() || message->get_string().empty() ||
      schema == nullptr || !schema->is_object())
    return unsupported("a form without a message or a schema");
  return Result<ToolAsk>(ToolAsk{std::string(key), std::string(state->get_string()),
                                 std::string(message->get_string()), *schema});
}

void AddInputResponse(json::object& params, const ToolAsk& ask,
                      const std::optional<json::value>& content) {
  json::object response{{"action", content ? "accept" : "decline"}};
  if (content) response["content"] = *content;
  params["inputResponses"] = json::object{{ask.input_key, std::move(response)}};
  params["requestState"] = ask.request_state;
}

}  // namespace agentgate::mcp
