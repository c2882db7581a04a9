#include "adapters/providers/provider_wire.hpp"

#include "domain/agent/prompt.hpp"
#include "domain/credential_redaction.hpp"
#include "domain/json_text.hpp"
#include "domain/schema/json_schema.hpp"

#include <boost/json/monotonic_resource.hpp>
#include <boost/json/parse.hpp>

#include <algorithm>
#include <cmath>
#include <cstdlib>

namespace agentgate::wire {
namespace {

namespace json = boost::json;
using Kind = ModelFailure::Kind;

std::optional<json::value> ParseJson(const std::string& body, json::storage_ptr sp = {}) {
  boost::system::error_code ec;
  auto v = json::parse(body, ec, std::move(sp));
  if (ec) return std::nullopt;
  return v;
}

std::string StringAt(const json::value& v, std::initializer_list<const char*> path) {
  const json::value* cur = &v;
  for (const char* key : path) {
    if (!cur->is_object()) return "";
    cur = cur->as_object().if_contains(key);
    if (cur == nullptr) return "";
  }
  return cur->is_string() ? std::string(cur->get_string()) : "";
}

std::int64_t IntAt(const json::value& v, const char* object, const char* key) {
  if (!v.is_object()) return 0;
  const auto* o = v.as_object().if_contains(object);
  if (o == nullptr || !o->is_object()) return 0;
  const auto* n = o->as_object().if_contains(key);
  return n != nullptr && n->is_int64() ? n->get_int64() : 0;
}

std::optional<std::chrono::milliseconds> RetryAfter(std::optional<std::string> seconds,
                                                    std::optional<std::string> ms) {
  if (ms) {
    const double v = std::strtod(ms->c_str(), nullptr);
    if (v > 0) return std::chrono::milliseconds(static_cast<std::int64_t>(v));
  }
  if (seconds) {
    const double v = std::strtod(seconds->c_str(), nullptr);
    if (v > 0) return std::chrono::milliseconds(static_cast<std::int64_t>(std::ceil(v * 1000)));
  }
  return std::nullopt;
}

std::string Describe(int status, const std::string& detail) {
  return "HTTP " + std::to_string(status) + (detail.empty() ? "" : ": " + detail.substr(0, 300));
}

json::value ArgumentsObject(const std::string& arguments) {
  auto parsed = ParseJson(arguments.empty() ? "{}" : arguments);
  return parsed && parsed->is_object() ? *parsed : json::value(json::object{});
}

}  // namespace

std::string OpenAiRequestBody(const ModelRequest& r, bool stream) {
  // Every value in one stack buffer's storage, nested by moving (a turn writes this body for each
  // model call).
  unsigned char buffer[4096];
  json::monotonic_resource resource(buffer, sizeof buffer);
  const json::storage_ptr sp(&resource);
  const auto message = [&sp](std::string_view role) {
    json::object out(sp);
    out.emplace("role", role);
    return out;
  };
  json::array messages(sp);
  if (!r.system.empty()) {
    auto out = message("system");
    out.emplace("content", r.system);
    messages.push_back(std::move(out));
  }
  for (const auto& m : r.messages) {
    switch (m.role) {
      case Role::kUser: {
        auto out = message("user");
        out.emplace("content", m.content);
        messages.push_back(std::move(out));
        break;
      }
      case Role::kAssistant: {
        auto out = message("assistant");
        if (m.content.empty() && !m.tool_calls.empty()) {
          out.emplace("content", nullptr);
        } else {
          out.emplace("content", m.content);
        }
        if (!m.tool_calls.empty()) {
          json::array calls(sp);
          for (const auto& c : m.tool_calls) {
            json::object function(sp);
            function.emplace("name", c.name);
            function.emplace("arguments", c.arguments_json);
            json::object call(sp);
            call.emplace("id", c.id);
            call.emplace("type", "function");
            call.emplace("function", std::move(function));
            calls.push_back(std::move(call));
          }
          out.emplace("tool_calls", std::move(calls));
        }
        messages.push_back(std::move(out));
        break;
      }
      case Role::kTool: {
        auto out = message("tool");
        out.emplace("tool_call_id", m.tool_call_id);
        out.emplace("content", m.content);
        messages.push_back(std::move(out));
        break;
      }
    }
  }
  json::object body(sp);
  body.emplace("model", r.model);
  body.emplace("messages", std::move(messages));
  body.emplace("max_tokens", r.max_output_tokens);
  if (r.temperature) body.emplace("temperature", *r.temperature);
  if (stream) {
    body.emplace("stream", true);
    json::object options(sp);
    options.emplace("include_usage", true);  // else a streamed reply's tokens go uncounted
    body.emplace("stream_options", std::move(options));
  }
  if (!r.tools.empty()) {
    json::array tools(sp);
    for (const auto& t : r.tools) {
      json::object function(sp);
      function.emplace("name", t.name);
      function.emplace("description", t.description);
      function.emplace("parameters", t.parameters);
      json::object tool(sp);
      tool.emplace("type", "function");
      tool.emplace("function", std::move(function));
      tools.push_back(std::move(tool));
    }
    body.emplace("tools", std::move(tools));
    if (r.required_tool && r.required_tool->empty()) {
      body.emplace("tool_choice", "required");
    } else if (r.required_tool) {
      body.emplace("tool_choice",
                   json::object{{"type", "function"},
                                {"function", json::object{{"name", *r.required_tool}}}});
    }
  }
  const auto& format = r.answer_format;
  if (format && schema::IsJsonObjectSchema(format->schema)) {
    // JSON mode, as OpenAI-compatible servers take it (some have no json_schema).
    body.emplace("response_format", json::object{{"type", "json_object"}});
  } else if (format) {
    json::object schema(sp);
    schema.emplace("name", "answer");
    schema.emplace("schema", format->strict ? *format->strict : schema::SentForm(format->schema));
    schema.emplace("strict", format->strict.has_value());
    json::object response_format(sp);
    response_format.emplace("type", "json_schema");
    response_format.emplace("json_schema", std::move(schema));
    body.emplace("response_format", std::move(response_format));
  }
  return json_text::Write(body);
}

Parsed OpenAiParseReply(const std::string& body) {
  const ModelFailure malformed{Kind::kTransient, "malformed reply from the model provider",
                               std::nullopt};
  // Read here and dropped: parsed into a stack buffer's storage, not the heap's.
  unsigned char buffer[4096];
  json::monotonic_resource resource(buffer, sizeof buffer);
  auto v = ParseJson(body, &resource);
  if (!v || !v->is_object()) return malformed;
  const auto* choices = v->as_object().if_contains("choices");
  if (choices == nullptr || !choices->is_array() || choices->as_array().empty()) return malformed;
  const auto& choice = choices->as_array()[0];
  if (!choice.is_object() || !choice.as_object().contains("message")) return malformed;
  const auto& message = choice.as_object().at("message");
  if (!message.is_object()) return malformed;
  ModelReply reply;
  if (const auto* content = message.as_object().if_contains("content");
      content != nullptr && content->is_string()) {
    reply.text = std::string(content->get_string());
  }
  if (const auto* calls = message.as_object().if_contains("tool_calls");
      calls != nullptr && calls->is_array()) {
    for (const auto& c : calls->as_array()) {
      ToolCall call{StringAt(c, {"id"}), StringAt(c, {"function", "name"}),
                    StringAt(c, {"function", "arguments"})};
      if (call.name.empty()) return malformed;
      if (call.id.empty()) call.id = "call_" + std::to_string(reply.tool_calls.size() + 1);
      reply.tool_calls.push_back(std::move(call));
    }
  }
  reply.usage =
      TokenUsage{IntAt(*v, "usage", "prompt_tokens"), IntAt(*v, "usage", "completion_tokens")};
  if (const auto* usage = v->as_object().if_contains("usage"); usage != nullptr)
    reply.usage.cached_input_tokens = IntAt(*usage, "prompt_tokens_details", "cached_tokens");
  reply.finish_reason = StringAt(choice, {"finish_reason"});
  reply.response_model = StringAt(*v, {"model"});
  return reply;
}

ModelFailure OpenAiClassifyError(int status, const std::string& body,
                                 std::optional<std::string> retry_after,
                                 std::optional<std::string> retry_after_ms) {
  const auto v = ParseJson(body).value_or(json::value());
  const std::string code = StringAt(v, {"error", "code"});
  const std::string type = StringAt(v, {"error", "type"});
  const std::string detail = StringAt(v, {"error", "message"});
  // The provider's words may quote the key, masked or not: never kept as written.
  const std::string what =
      RedactCredentials(Describe(status, code.empty() ? detail : code + ": " + detail));
  const bool billing = code == "insufficient_quota" || type == "insufficient_quota" ||
                       code.starts_with("billing") || type.starts_with("billing");
  if (status == 402 || billing) return ModelFailure{Kind::kRefused, what, std::nullopt, true};
  if (status == 401 || status == 403) return ModelFailure{Kind::kRefused, what, std::nullopt};
  if (status == 429)
    return ModelFailure{Kind::kThrottled, what,
                        RetryAfter(std::move(retry_after), std::move(retry_after_ms))};
  if (status == 408 || status == 409 || status >= 500)
    return ModelFailure{Kind::kTransient, what, std::nullopt};
  return ModelFailure{Kind::kRejected, what, std::nullopt};
}

TokenUsage AnthropicUsage(std::int64_t uncached_input, std::int64_t cache_read,
                          std::int64_t cache_write, std::int64_t output) {
  TokenUsage usage;
  usage.input_tokens = uncached_input + cache_read + cache_write;
  usage.output_tokens = output;
  usage.cached_input_tokens = cache_read;
  usage.cache_write_tokens = cache_write;
  return usage;
}

namespace {

json::object Breakpoint() {
  return json::object{{"type", "ephemeral"}};
}

// Marks the last block of a message's content as a cache breakpoint (a plain string becomes one
// text block).
void MarkEnd(json::object& message) {
  json::value& content = message["content"];
  if (content.is_string()) {
    content = json::array{json::object{{"type", "text"}, {"text", content.get_string()}}};
  }
  auto& blocks = content.as_array();
  if (!blocks.empty()) blocks.back().as_object()["cache_control"] = Breakpoint();
}

}  // namespace

AnswerWay AnthropicAnswerWay(const ModelRequest& request, bool model_has_structured_output) {
  if (!request.answer_format) return AnswerWay::kNone;
  if (model_has_structured_output && request.answer_format->strict) return AnswerWay::kNative;
  return AnswerWay::kTool;
}

void TakeAnswerToolCall(ModelReply& reply) {
  auto& calls = reply.tool_calls;
  const auto answer = std::find_if(calls.begin(), calls.end(), [](const ToolCall& c) {
    return c.name == schema::kAnswerToolName;
  });
  if (answer == calls.end()) return;
  reply.text = answer->arguments_json.empty() ? "{}" : answer->arguments_json;
  calls.erase(answer);
  if (calls.empty()) reply.finish_reason = "end_turn";
}

std::string AnthropicRequestBody(const ModelRequest& r, bool stream, AnswerWay answer) {
  const bool cached = r.prompt_caching && EstimateTokens(r) >= kMinCachedTokens;
  json::array messages;
  std::size_t history_end = 0;  // the wire message that ends the history (+1), 0 if none
  for (std::size_t i = 0; i < r.messages.size(); ++i) {
    const auto& m = r.messages[i];
    if (m.role == Role::kUser) {
      messages.push_back(json::object{{"role", "user"}, {"content", m.content}});
    } else if (m.role == Role::kAssistant) {
      json::array blocks;
      if (!m.content.empty()) blocks.push_back(json::object{{"type", "text"}, {"text", m.content}});
      for (const auto& c : m.tool_calls) {
        blocks.push_back(json::object{{"type", "tool_use"},
                                      {"id", c.id},
                                      {"name", c.name},
                                      {"input", ArgumentsObject(c.arguments_json)}});
      }
      if (blocks.empty()) blocks.push_back(json::object{{"type", "text"}, {"text", "(no reply)"}});
      messages.push_back(json::object{{"role", "assistant"}, {"content", std::move(blocks)}});
    } else {
      // Consecutive tool results travel together in one user message.
      json::array results;
      for (; i < r.messages.size() && r.messages[i].role == Role::kTool; ++i) {
        results.push_back(json::object{{"type", "tool_result"},
                                       {"tool_use_id", r.messages[i].tool_call_id},
                                       {"content", r.messages[i].content}});
      }
      --i;
      messages.push_back(json::object{{"role", "user"}, {"content", std::move(results)}});
    }
    if (i + 1 == r.history_messages) history_end = messages.size();
  }
  if (cached && !messages.empty()) {
    // The history's end is the next turn's prefix; the last message is this turn's next step's.
    if (history_end > 0 && history_end < messages.size())
      MarkEnd(messages[history_end - 1].as_object());
    MarkEnd(messages.back().as_object());
  }
  json::object body{
      {"model", r.model}, {"max_tokens", r.max_output_tokens}, {"messages", std::move(messages)}};
  if (!r.system.empty()) {
    if (cached) {
      body["system"] = json::array{
          json::object{{"type", "text"}, {"text", r.system}, {"cache_control", Breakpoint()}}};
    } else {
      body["system"] = r.system;
    }
  }
  if (r.temperature) body["temperature"] = *r.temperature;
  if (stream) body["stream"] = true;
  if (answer == AnswerWay::kNative) {
    body["output_config"] = json::object{
        {"format", json::object{{"type", "json_schema"}, {"schema", *r.answer_format->strict}}}};
  }
  if (!r.tools.empty() || answer == AnswerWay::kTool) {
    json::array tools;
    for (const auto& t : r.tools) {
      tools.push_back(json::object{
          {"name", t.name}, {"description", t.description}, {"input_schema", t.parameters}});
    }
    if (answer == AnswerWay::kTool) {
      tools.push_back(json::object{
          {"name", schema::kAnswerToolName},
          {"description",
           "Give your final answer by calling this tool once, with the answer as its input, "
           "after any other tools you need."},
          {"input_schema", schema::SentForm(r.answer_format->schema)}});
    }
    // The tools come first in Anthropic's prefix: their own breakpoint holds when a call's system
    // text differs (its per-call context).
    if (cached) tools.back().as_object()["cache_control"] = Breakpoint();
    body["tools"] = std::move(tools);
    if (r.required_tool && r.required_tool->empty()) {
      body["tool_choice"] = json::object{{"type", "any"}};
    } else if (r.required_tool) {
      body["tool_choice"] = json::object{{"type", "tool"}, {"name", *r.required_tool}};
    }
  }
  return json_text::Write(body);
}

Parsed AnthropicParseReply(const std::string& body) {
  const ModelFailure malformed{Kind::kTransient, "malformed reply from the model provider",
                               std::nullopt};
  // Read here and dropped: parsed into a stack buffer's storage, not the heap's.
  unsigned char buffer[4096];
  json::monotonic_resource resource(buffer, sizeof buffer);
  auto v = ParseJson(body, &resource);
  if (!v || !v->is_object()) return malformed;
  const auto* content = v->as_object().if_contains("content");
  if (content == nullptr || !content->is_array()) return malformed;
  ModelReply reply;
  for (const auto& block : content->as_array()) {
    const std::string type = StringAt(block, {"type"});
    if (type == "text") {
      reply.text += StringAt(block, {"text"});
    } else if (type == "tool_use") {
      const auto* input = block.as_object().if_contains("input");
      ToolCall call{StringAt(block, {"id"}), StringAt(block, {"name"}),
                    input != nullptr ? json_text::Write(*input) : std::string("{}")};
      if (call.name.empty()) return malformed;
      reply.tool_calls.push_back(std::move(call));
    }
  }
  reply.usage = AnthropicUsage(
      IntAt(*v, "usage", "input_tokens"), IntAt(*v, "usage", "cache_read_input_tokens"),
      IntAt(*v, "usage", "cache_creation_input_tokens"), IntAt(*v, "usage", "output_tokens"));
  reply.finish_reason = StringAt(*v, {"stop_reason"});
  reply.response_model = StringAt(*v, {"model"});
  return reply;
}

ModelFailure AnthropicClassifyError(int status, const std::string& body,
                                    std::optional<std::string> retry_after) {
  const auto v = ParseJson(body).value_or(json::value());
  const std::string type = StringAt(v, {"error", "type"});
  const std::string detail = StringAt(v, {"error", "message"});
  const std::string what =
      RedactCredentials(Describe(status, type.empty() ? detail : type + ": " + detail));
  const bool billing = type == "enforced_spend_limit_reached" ||
                       body.find("enforced_spend_limit_reached") != std::string::npos ||
                       detail.find("credit balance") != std::string::npos ||
                       type == "billing_error";
  if (status == 402 || billing) return ModelFailure{Kind::kRefused, what, std::nullopt, true};
  if (status == 401 || status == 403) return ModelFailure{Kind::kRefused, what, std::nullopt};
  if (status == 429)
    return ModelFailure{Kind::kThrottled, what, RetryAfter(std::move(retry_after), std::nullopt)};
  if (status == 408 || status == 409 || status >= 500)
    return ModelFailure{Kind::kTransient, what, std::nullopt};
  return ModelFailure{Kind::kRejected, what, std::nullopt};
}

}  // namespace agentgate::wire
