#include "domain/openai/response_shape.hpp"

#include "domain/openai/reply_events.hpp"
#include "domain/resource_ids.hpp"

#include <boost/json/array.hpp>
#include <boost/json/parse.hpp>
#include <boost/json/serialize.hpp>

namespace agentgate::openai {

namespace json = boost::json;

namespace {

json::value OrNull(const std::optional<std::string>& text) {
  return text ? json::value(*text) : json::value(nullptr);
}

json::object Base(const ResponseHeader& header, std::string_view status) {
  return json::object{
      {"id", header.id},
      {"object", "response"},
      {"created_at", header.created_at},
      {"status", status},
      {"background", header.background},
      {"error", nullptr},
      {"incomplete_details", nullptr},
      {"instructions", OrNull(header.instructions)},
      {"max_output_tokens", nullptr},
      {"model", header.model},
      {"output", json::array()},
      {"parallel_tool_calls", false},
      {"previous_response_id", OrNull(header.previous_response_id)},
      {"store", header.store},
      {"text", json::object{{"format", header.text_format}}},
      {"tool_choice", "auto"},
      {"tools", json::array()},
      {"truncation", "disabled"},
      {"usage", nullptr},
      {"metadata", header.metadata},
      {"conversation", header.conversation ? json::value(json::object{{"id", *header.conversation}})
                                           : json::value(nullptr)}};
}

// Why an answer is incomplete, if it is.
std::optional<std::string_view> IncompleteReason(const json::object& body) {
  if (BlockedIn(body)) return "content_filter";
  const std::string_view reason = StringIn(body, "terminated_reason");
  if (reason.empty()) return std::nullopt;
  if (reason == "approval_required" || reason == "input_required") return reason;
  return "max_output_tokens";  // the reply is partial, as a chat completion's "length"
}

}  // namespace

std::optional<std::string> AskedOf(const ResponseHeader& header) {
  json::object asked;
  if (header.instructions) asked["instructions"] = *header.instructions;
  if (header.previous_response_id) asked["previous_response_id"] = *header.previous_response_id;
  if (header.conversation) asked["conversation"] = *header.conversation;
  if (header.background) asked["background"] = true;
  if (header.text_format != json::object{{"type", "text"}})
    asked["text_format"] = header.text_format;
  if (!header.metadata.empty()) asked["metadata"] = header.metadata;
  if (asked.empty()) return std::nullopt;
  return json::serialize(asked);
}

void ApplyAsked(std::string_view asked, ResponseHeader& header) {
  boost::system::error_code ec;
  const json::value parsed = json::parse(asked, ec);
  if (ec || !parsed.is_object()) return;
  const json::object& o = parsed.get_object();
  auto text = [&o](std::string_view key) -> std::optional<std::string> {
    const json::value* v = o.if_contains(key);
    if (v == nullptr || !v->is_string()) return std::nullopt;
    return std::string(v->get_string());
  };
  header.instructions = text("instructions");
  header.previous_response_id = text("previous_response_id");
  header.conversation = text("conversation");
  if (const json::value* v = o.if_contains("background"); v != nullptr && v->is_bool())
    header.background = v->get_bool();
  if (const json::value* v = o.if_contains("text_format"); v != nullptr && v->is_object())
    header.text_format = v->get_object();
  if (const json::value* v = o.if_contains("metadata"); v != nullptr && v->is_object())
    header.metadata = v->get_object();
}

std::string MessageIdOf(const ResponseHeader& header) {
  return ids::MessageOfResponse(header.id);
}

std::vector<json::object> FunctionCallsOf(const ResponseHeader& header,
                                          const json::object& invoke_body) {
  std::vector<json::object> out;
  const json::value* calls = invoke_body.if_contains("tool_calls");
  if (calls == nullptr || !calls->is_array()) return out;
  for (const auto& call : calls->get_array()) {
    if (!call.is_object()) continue;
    const json::object& c = call.get_object();
    out.push_back(json::object{{"type", "function_call"},
                               {"id", ids::FunctionCallOfResponse(header.id, out.size())},
                               {"call_id", StringIn(c, "call_id")},
                               {"name", StringIn(c, "name")},
                               {"arguments", StringIn(c, "arguments")},
                               {"status", "completed"}});
  }
  return out;
}

json::object AnsweredResponse(const ResponseHeader& header, const json::object& invoke_body,
                              const std::string* text) {
  const auto incomplete = IncompleteReason(invoke_body);
  json::object response = Base(header, incomplete ? "incomplete" : "completed");
  if (incomplete) response["incomplete_details"] = json::object{{"reason", *incomplete}};
  const std::string_view reply =
      text != nullptr ? std::string_view(*text) : StringIn(invoke_body, "response");
  json::array items;
  if (!reply.empty()) {
    json::object part{{"type", "output_text"}, {"text", reply}, {"annotations", json::array()}};
    items.push_back(json::object{{"type", "message"},
                                 {"id", MessageIdOf(header)},
                                 {"status", incomplete ? "incomplete" : "completed"},
                                 {"role", "assistant"},
                                 {"content", json::array{std::move(part)}}});
  }
  for (auto& call : FunctionCallsOf(header, invoke_body)) items.push_back(std::move(call));
  response["output"] = std::move(items);
  json::object usage;
  if (const auto* u = invoke_body.if_contains("usage"); u != nullptr && u->is_object())
    usage = u->as_object();
  const std::int64_t input = IntIn(usage, "input_tokens");
  const std::int64_t output = IntIn(usage, "output_tokens");
  response["usage"] = json::object{{"input_tokens", input},
                                   {"input_tokens_details", json::object{{"cached_tokens", 0}}},
                                   {"output_tokens", output},
                                   {"output_tokens_details", json::object{{"reasoning_tokens", 0}}},
                                   {"total_tokens", input + output}};
  json::object extension = invoke_body;
  extension.erase("response");  // the output
  extension.erase("tool_calls");
  response["agentgate"] = std::move(extension);
  return response;
}

json::object UnansweredResponse(const ResponseHeader& header, std::string_view status,
                                const json::object* error) {
  json::object response = Base(header, status);
  if (error != nullptr) response["error"] = *error;
  return response;
}

}  // namespace agentgate::openai
