#include "domain/openai/response_request.hpp"

#include "domain/resource_ids.hpp"
#include "domain/schema/json_schema.hpp"

#include "domain/json_fields.hpp"
#include "domain/openai/caller_tools.hpp"
#include "domain/openai/request_fields.hpp"

#include <algorithm>

namespace agentgate {
namespace {

namespace jf = json_fields;
using boost::json::array;
using boost::json::object;
using boost::json::value;

void AddInstructions(std::string& instructions, std::string_view text) {
  if (text.empty()) return;
  if (!instructions.empty()) instructions += "\n\n";
  instructions.append(text);
}

// The message id an input item names, if it names one of ours ("msg_<hex>"): an item_reference's
// `id`, or a resent message's.
std::optional<std::string> OurMessageId(const object& item) {
  const value* id = item.if_contains("id");
  if (id == nullptr || !id->is_string()) return std::nullopt;
  const std::string_view text = id->get_string();
  if (!text.starts_with(ids::kMessage)) return std::nullopt;
  if (!ids::ResponseHex(ids::Make(ids::kResponse, ids::PartOf(text)))) return std::nullopt;
  return std::string(text);
}

// The response a function call of ours names ("fc_<hex>_<n>" of "resp_<hex>"), as its reply's
// message id ("msg_<hex>").
std::optional<std::string> OurCallsMessageId(std::string_view id) {
  const auto response = ids::ResponseOfFunctionCall(id);
  if (!response) return std::nullopt;
  return ids::MessageOfResponse(*response);
}

// The turn continues the conversation of the stored message `named`: what input sent before it
// is that conversation's own.
void Continue(ResponseRequest& out, std::string named, std::string field) {
  out.continues = InputReference{std::move(named), std::move(field)};
  out.request.history.clear();
  out.resolve.clear();
}

// An item_reference: to a conversation's item, or (stateless) to a response's reply, its text is
// history, read from the store; to a response's reply of a stored call, it continues.
Result<void> ReadReference(const object& item, const std::string& at, bool store,
                           ResponseRequest& out) {
  AG_TRY(const std::string id, jf::RequiredString(item, "id", at));
  if (const auto calls = OurCallsMessageId(id)) {
    if (!store) {
      return InvalidField(at + ".id",
                          "names a function call of a stored response: resend the call itself "
                          "with \"store\": false");
    }
    Continue(out, *calls, at + ".id");
    return {};
  }
  const auto reply = OurMessageId(item);
  if (ids::ItemPlaceOf(id) || (reply && !store)) {
    out.resolve.push_back(ItemToResolve{id, at + ".id", out.request.history.size()});
    out.request.history.push_back(ChatMessage{Role::kUser, "", {}, {}, {}});  // its place
    return {};
  }
  if (!reply) {
    return InvalidField(at + ".id",
                        "must name a message of one of this API's responses or conversations "
                        "(msg_...)");
  }
  Continue(out, *reply, at + ".id");
  return {};
}

// A function_call (the model's call of a caller's function, resent) or a function_call_output
// (its result). A call of ours resent to a stored call continues its response's conversation.
Result<void> AddFunctionItem(const object& item, std::string_view type, const std::string& at,
                             bool store, ResponseRequest& out, std::vector<std::string>& fields) {
  InvokeRequest& request = out.request;
  AG_TRYV(jf::RequiredString(item, "call_id", at));
  if (type == "function_call") {
    // A call of ours resent: its response is continued, whatever else the item says.
    AG_TRY(const auto id, jf::OptionalString(item, "id", at));
    if (const auto ours = id ? OurCallsMessageId(*id) : std::nullopt; ours && store) {
      Continue(out, *ours, at + ".id");
      return {};
    }
  }
  AG_TRY(auto read, openai::ReadFunctionItem(item, type, at));
  if (type == "function_call") {
    ToolCall call{std::move(read.call_id), std::move(read.name), std::move(read.arguments)};
    if (!request.history.empty() && request.history.back().role == Role::kAssistant &&
        !request.history.back().tool_calls.empty()) {
      request.history.back().tool_calls.push_back(std::move(call));
    } else {
      request.history.push_back(ChatMessage{Role::kAssistant, "", {std::move(call)}, {}, {}});
    }
    fields.resize(request.history.size());
    fields.back() = at;
    return {};
  }
  request.history.push_back(
      ChatMessage{Role::kTool, std::move(*read.output), {}, std::move(read.call_id), {}});
  fields.resize(request.history.size());
  fields.back() = at;
  return {};
}

// The last user message is the turn's own; what follows it, the model's calls of the caller's
// functions and their results, continues it. A stored call continuing a response may bring results
// alone.
Result<void> SplitAtTheUsersMessage(ResponseRequest& out, std::vector<std::string>& fields) {
  InvokeRequest& request = out.request;
  auto& history = request.history;
  fields.resize(history.size());
  const auto last_user = std::find_if(history.rbegin(), history.rend(),
                                      [](const ChatMessage& m) { return m.role == Role::kUser; });
  const bool continues_stored = out.continues || out.previous_response_id || out.conversation;
  if (!history.empty() && history.back().role == Role::kAssistant)
    return InvalidField("input", "the last user or assistant message must be the user's");
  if (last_user == history.rend() && !(continues_stored && !history.empty()))
    return InvalidField("input", "the last user or assistant message must be the user's");
  const auto from = last_user == history.rend() ? 0 : (history.rend() - last_user);
  if (last_user != history.rend()) request.message = std::move(history[from - 1].content);
  for (auto i = static_cast<std::size_t>(from); i < history.size(); ++i) {
    const bool result = history[i].role == Role::kTool;
    request.continuation.push_back(std::move(history[i]));
    request.continuation_fields.push_back(result ? fields[i] + ".call_id" : fields[i]);
  }
  history.erase(history.begin() + (last_user == history.rend() ? 0 : from - 1), history.end());
  fields.clear();
  return {};
}

// `input` as a list of items: messages ({role, content} or {type: "message", role, content}) and
// references to stored ones (item_reference). The last user or assistant message must be the
// user's; the earlier ones are the turn's history, except those up to the last reply of ours a
// stored call names: they are its conversation's, which the turn continues.
Result<void> ReadInputItems(const array& items, ResponseRequest& out, std::string& instructions,
                            bool store) {
  InvokeRequest& request = out.request;
  std::vector<std::string> fields;  // where each history item was sent, for a result's 400
  for (std::size_t i = 0; i < items.size(); ++i) {
    const std::string at = "input[" + std::to_string(i) + "]";
    AG_TRY(const object* item, jf::AsObject(items[i], at));
    AG_TRY(const auto type, jf::OptionalString(*item, "type", at));
    if (type && *type == "item_reference") {
      AG_TRYV(ReadReference(*item, at, store, out));
      continue;
    }
    if (type && (*type == "function_call" || *type == "function_call_output")) {
      AG_TRYV(AddFunctionItem(*item, *type, at, store, out, fields));
      continue;
    }
    if (type && *type != "message") {
      return InvalidField(at + ".type",
                          "must be message, item_reference, function_call or "
                          "function_call_output (the agent's own tools run on the server)");
    }
    AG_TRY(const std::string role, jf::RequiredString(*item, "role", at));
    const value* content = item->if_contains("content");
    if (content == nullptr || content->is_null())
      return InvalidField(at + ".content", "is required");
    AG_TRY(std::string text,
           openai::TextOf(*content, at + ".content", {"input_text", "output_text", "text"}));
    if (role == "assistant" && store) {
      if (auto named = OurMessageId(*item)) {
        // A reply of ours, resent as the client kept it (an SDK's session, its history).
        Continue(out, std::move(*named), at + ".id");
        continue;
      }
    }
    if (role == "system" || role == "developer") {
      AddInstructions(instructions, text);
    } else if (role == "user" || role == "assistant") {
      request.history.push_back(ChatMessage{
          role == "user" ? Role::kUser : Role::kAssistant, std::move(text), {}, {}, {}});
    } else {
      return InvalidField(at + ".role", "must be system, developer, user or assistant");
    }
  }
  if (!out.resolve.empty() && out.resolve.back().history_index + 1 == request.history.size()) {
    return InvalidField(out.resolve.back().field,
                        "names a stored message: the user's new message is sent as text");
  }
  return SplitAtTheUsersMessage(out, fields);
}

Result<void> ReadInput(const object& o, ResponseRequest& out, bool store) {
  const value* input = o.if_contains("input");
  std::string instructions;
  if (out.instructions) AddInstructions(instructions, *out.instructions);
  InvokeRequest& request = out.request;
  if (input != nullptr && input->is_string()) {
    request.message = std::string(input->get_string());
  } else if (input != nullptr && input->is_array() && !input->get_array().empty()) {
    AG_TRYV(ReadInputItems(input->get_array(), out, instructions, store));
  } else {
    return InvalidField("input", "must be a string, or a non-empty array of messages");
  }
  if (request.message.empty() && request.continuation.empty())
    return InvalidField("input", "the user's message must not be empty");
  if (out.continues) {
    if (out.previous_response_id) {
      return InvalidField(out.continues->field,
                          "names a stored message; with previous_response_id, input takes only "
                          "what comes after that response");
    }
    if (!request.history.empty()) {
      return InvalidField("input",
                          "after a stored message it continues, input takes the user's new "
                          "message alone");
    }
  }
  if (out.conversation && (out.continues || !request.history.empty())) {
    return InvalidField("input",
                        "with conversation, input takes the user's new message alone (the "
                        "conversation keeps the rest)");
  }
  if (out.previous_response_id && !request.history.empty()) {
    return InvalidField("input",
                        "with previous_response_id, input takes the user's message alone (the "
                        "conversation keeps the rest)");
  }
  if (!instructions.empty()) request.additional_instructions = std::move(instructions);
  return {};
}

// `conversation`: its id, or {"id": ...}; the turn adds to that conversation, so input takes only
// what is new, and neither previous_response_id nor "store": false goes with it.
Result<void> ReadConversation(const object& o, ResponseRequest& out, bool stored) {
  const value* given = o.if_contains("conversation");
  if (given == nullptr || given->is_null()) return {};
  const value* id = given;
  if (given->is_object()) id = given->get_object().if_contains("id");
  if (id == nullptr || !id->is_string() || !id->get_string().starts_with(ids::kConversation))
    return InvalidField("conversation", "must be a conversation id (conv_...) or {\"id\": ...}");
  if (out.previous_response_id)
    return InvalidField("conversation", "must not be sent with previous_response_id");
  if (!stored) return InvalidField("conversation", "must not be sent with \"store\": false");
  out.conversation = std::string(id->get_string());
  return {};
}

// text.format: {"type": "text"} is the default; {"type": "json_schema", "name", "schema",
// "strict"} (the Responses API's flat shape) holds the answer to the schema, {"type":
// "json_object"} to one JSON object (docs/structured-output.md).
Result<void> ReadTextFormat(const object& o, InvokeRequest& request) {
  const value* text = o.if_contains("text");
  if (text == nullptr || !text->is_object()) return {};
  const value* format = text->get_object().if_contains("format");
  if (format == nullptr || format->is_null()) return {};
  const object* f = format->if_object();
  const value* type = f != nullptr ? f->if_contains("type") : nullptr;
  if (type != nullptr && type->is_string() && type->get_string() == "text") return {};
  if (type != nullptr && type->is_string() && type->get_string() == "json_object") {
    if (f->size() != 1)
      return InvalidField("text.format", "with \"type\": \"json_object\" takes no other field");
    request.answer_schema = schema::JsonObjectSchema();
    return {};
  }
  if (type == nullptr || !type->is_string() || type->get_string() != "json_schema") {
    return InvalidField("text.format",
                        "must be {\"type\": \"text\"}, {\"type\": \"json_object\"} or "
                        "{\"type\": \"json_schema\", ...}");
  }
  object named = *f;
  named.erase("type");
  AG_TRY(request.answer_schema, ParseNamedAnswerSchema(named, "text.format"));
  return {};
}

}  // namespace

Result<ResponseRequest> ParseResponseRequest(const value& body) {
  AG_TRY(const object* o, jf::AsObject(body, ""));
  ResponseRequest out;
  AG_TRYV(openai::ReadModel(*o, out.model, out.agent_id, out.request.instance_id));
  AG_TRY(const auto store, jf::OptionalBool(*o, "store", ""));
  AG_TRY(const auto stream, jf::OptionalBool(*o, "stream", ""));
  AG_TRY(const auto background, jf::OptionalBool(*o, "background", ""));
  out.stream = stream.value_or(false);
  out.background = background.value_or(false);
  const bool stored = store.value_or(true);
  AG_TRY(out.instructions, jf::OptionalString(*o, "instructions", ""));
  AG_TRY(out.previous_response_id, jf::OptionalString(*o, "previous_response_id", ""));
  if (out.previous_response_id && !ids::ResponseHex(*out.previous_response_id))
    return InvalidField("previous_response_id", "must be a response id (resp_...)");
  if (!stored && (out.previous_response_id || out.background)) {
    return InvalidField("store",
                        "must not be false with previous_response_id or background: those need "
                        "the stored conversation or run");
  }
  if (out.background && out.stream) {
    return InvalidField("stream",
                        "is not taken with background: true; stream the response, or read the "
                        "background one at GET /v1/responses/{id}");
  }
  AG_TRYV(ReadConversation(*o, out, stored));
  AG_TRYV(ReadInput(*o, out, stored));
  AG_TRYV(ReadTextFormat(*o, out.request));
  AG_TRYV(openai::ReadCallerTools(*o, openai::ToolShape::kResponses, out.request));
  AG_TRYV(openai::ReadMetadata(*o, out.metadata));
  out.request.stateful = stored;
  out.store = stored;
  if (const value* text = o->if_contains("text"); text != nullptr && text->is_object()) {
    const value* format = text->get_object().if_contains("format");
    if (format != nullptr && format->is_object()) out.text_format = format->get_object();
  }
  return out;
}

}  // namespace agentgate
