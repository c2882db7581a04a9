#include "adapters/providers/stream_wire.hpp"

#include "domain/json_text.hpp"

#include <boost/json/parse.hpp>
#include <boost/json/value.hpp>

namespace agentgate::wire {
namespace {

namespace json = boost::json;
using Kind = ModelFailure::Kind;

const json::value* At(const json::value& v, std::string_view key) {
  return v.is_object() ? v.as_object().if_contains(key) : nullptr;
}

std::string_view StringOf(const json::value* v) {
  return v != nullptr && v->is_string() ? std::string_view(v->get_string()) : std::string_view();
}

std::optional<std::int64_t> IntOf(const json::value* v) {
  if (v != nullptr && v->is_int64()) return v->get_int64();
  if (v != nullptr && v->is_uint64()) return static_cast<std::int64_t>(v->get_uint64());
  return std::nullopt;
}

// The HTTP status an Anthropic stream's error type stands for, so it is classified like the
// same error answered before the stream began.
int AnthropicErrorStatus(std::string_view type) {
  if (type == "invalid_request_error") return 400;
  if (type == "authentication_error") return 401;
  if (type == "billing_error") return 402;
  if (type == "permission_error") return 403;
  if (type == "not_found_error") return 404;
  if (type == "rate_limit_error") return 429;
  if (type == "overloaded_error") return 529;
  return 500;  // api_error and anything new: the provider's fault, worth a retry
}

}  // namespace

void StreamedReply::Feed(std::string_view bytes, const TextSink& on_text) {
  decoder_.Each(bytes, [&](const SseEvent& event) {
    if (failure_ || ended_) return;  // nothing after an error or the end counts
    if (dialect_ == StreamDialect::kOpenAi) {
      OpenAiEvent(event, on_text);
    } else {
      AnthropicEvent(event, on_text);
    }
  });
}

void StreamedReply::Malformed() {
  failure_ =
      ModelFailure{Kind::kTransient, "malformed stream from the model provider", std::nullopt};
}

void StreamedReply::OpenAiEvent(const SseEvent& event, const TextSink& on_text) {
  if (event.data == "[DONE]") {
    ended_ = true;
    return;
  }
  if (const auto text = scanner_.Scan(event.data)) {
    if (model_.empty()) model_ = std::string(text->model);
    if (!text->finish_reason.empty()) finish_reason_ = std::string(text->finish_reason);
    if (!text->content.empty()) {
      text_.append(text->content);
      if (on_text) on_text(text->content);
    }
    return;
  }
  boost::system::error_code ec;
  const json::value chunk = json::parse(event.data, ec);
  if (ec || !chunk.is_object()) return Malformed();
  if (const auto* error = At(chunk, "error"); error != nullptr && error->is_object()) {
    failure_ = OpenAiClassifyError(500, event.data, std::nullopt, std::nullopt);
    return;
  }
  if (model_.empty()) model_ = std::string(StringOf(At(chunk, "model")));
  if (const auto* usage = At(chunk, "usage"); usage != nullptr && usage->is_object()) {
    usage_.input_tokens = IntOf(At(*usage, "prompt_tokens")).value_or(0);
    usage_.output_tokens = IntOf(At(*usage, "completion_tokens")).value_or(0);
    if (const auto* details = At(*usage, "prompt_tokens_details"); details != nullptr)
      usage_.cached_input_tokens = IntOf(At(*details, "cached_tokens")).value_or(0);
  }
  const auto* choices = At(chunk, "choices");
  if (choices == nullptr || !choices->is_array() || choices->as_array().empty()) return;
  const auto& choice = choices->as_array()[0];
  if (const auto reason = StringOf(At(choice, "finish_reason")); !reason.empty())
    finish_reason_ = std::string(reason);
  const auto* delta = At(choice, "delta");
  if (delta == nullptr) return;
  if (const auto text = StringOf(At(*delta, "content")); !text.empty()) {
    text_.append(text);
    if (on_text) on_text(text);
  }
  const auto* calls = At(*delta, "tool_calls");
  if (calls == nullptr || !calls->is_array()) return;
  for (const auto& c : calls->as_array()) {
    const auto index = IntOf(At(c, "index"));
    if (!index) return Malformed();
    PartialCall& call = calls_[*index];
    if (const auto id = StringOf(At(c, "id")); !id.empty()) call.id = std::string(id);
    if (const auto* function = At(c, "function"); function != nullptr) {
      call.name.append(StringOf(At(*function, "name")));
      call.arguments.append(StringOf(At(*function, "arguments")));
    }
  }
}

void StreamedReply::AnthropicEvent(const SseEvent& event, const TextSink& on_text) {
  boost::system::error_code ec;
  const json::value data = json::parse(event.data, ec);
  if (ec || !data.is_object()) return Malformed();
  const std::string_view type = StringOf(At(data, "type"));
  if (type == "message_start") {
    const auto* message = At(data, "message");
    if (message != nullptr) model_ = std::string(StringOf(At(*message, "model")));
    const auto* usage = message != nullptr ? At(*message, "usage") : nullptr;
    // Anthropic's parts until the end (AnthropicUsage adds them up).
    if (usage != nullptr) {
      usage_.input_tokens = IntOf(At(*usage, "input_tokens")).value_or(0);
      usage_.output_tokens = IntOf(At(*usage, "output_tokens")).value_or(0);
      usage_.cached_input_tokens = IntOf(At(*usage, "cache_read_input_tokens")).value_or(0);
      usage_.cache_write_tokens = IntOf(At(*usage, "cache_creation_input_tokens")).value_or(0);
    }
  } else if (type == "content_block_start") {
    const auto index = IntOf(At(data, "index"));
    const auto* block = At(data, "content_block");
    if (!index || block == nullptr) return Malformed();
    if (StringOf(At(*block, "type")) == "tool_use") {
      calls_[*index] = PartialCall{std::string(StringOf(At(*block, "id"))),
                                   std::string(StringOf(At(*block, "name"))), ""};
    } else if (const auto text = StringOf(At(*block, "text")); !text.empty()) {
      text_.append(text);
      if (on_text) on_text(text);
    }
  } else if (type == "content_block_delta") {
    const auto index = IntOf(At(data, "index"));
    const auto* delta = At(data, "delta");
    if (!index || delta == nullptr) return Malformed();
    const std::string_view kind = StringOf(At(*delta, "type"));
    if (kind == "text_delta") {
      const auto text = StringOf(At(*delta, "text"));
      text_.append(text);
      if (on_text && !text.empty()) on_text(text);
    } else if (kind == "input_json_delta") {
      auto call = calls_.find(*index);
      if (call == calls_.end()) return Malformed();
      call->second.arguments.append(StringOf(At(*delta, "partial_json")));
    }
  } else if (type == "message_delta") {
    if (const auto* delta = At(data, "delta"); delta != nullptr) {
      if (const auto reason = StringOf(At(*delta, "stop_reason")); !reason.empty())
        finish_reason_ = std::string(reason);
    }
    // Its usage counts are cumulative: they replace what message_start said.
    if (const auto* usage = At(data, "usage"); usage != nullptr) {
      if (const auto out = IntOf(At(*usage, "output_tokens"))) usage_.output_tokens = *out;
      if (const auto in = IntOf(At(*usage, "input_tokens"))) usage_.input_tokens = *in;
      if (const auto read = IntOf(At(*usage, "cache_read_input_tokens")))
        usage_.cached_input_tokens = *read;
      if (const auto written = IntOf(At(*usage, "cache_creation_input_tokens")))
        usage_.cache_write_tokens = *written;
    }
  } else if (type == "message_stop") {
    ended_ = true;
  } else if (type == "error") {
    const auto* error = At(data, "error");
    const std::string_view error_type = error != nullptr ? StringOf(At(*error, "type")) : "";
    failure_ = AnthropicClassifyError(AnthropicErrorStatus(error_type), event.data, std::nullopt);
  }
  // ping, content_block_stop and event types added later carry nothing a reply needs.
}

Parsed StreamedReply::Finish() {
  if (failure_) return *failure_;
  if (!ended_) {
    return ModelFailure{Kind::kTransient, "the model provider's stream ended before its reply did",
                        std::nullopt};
  }
  ModelReply reply;
  reply.text = std::move(text_);
  reply.usage = dialect_ == StreamDialect::kAnthropic
                    ? AnthropicUsage(usage_.input_tokens, usage_.cached_input_tokens,
                                     usage_.cache_write_tokens, usage_.output_tokens)
                    : usage_;
  reply.finish_reason = std::move(finish_reason_);
  reply.response_model = std::move(model_);
  for (auto& [index, call] : calls_) {
    if (call.name.empty()) {
      return ModelFailure{Kind::kTransient, "malformed stream from the model provider",
                          std::nullopt};
    }
    if (call.id.empty()) call.id = "call_" + std::to_string(reply.tool_calls.size() + 1);
    std::string arguments = std::move(call.arguments);
    if (dialect_ == StreamDialect::kAnthropic) {
      // Written the way a plain reply's input object is, so both read the same downstream.
      boost::system::error_code ec;
      const auto parsed = json::parse(arguments.empty() ? "{}" : arguments, ec);
      if (!ec) arguments = json_text::Write(parsed);
    }
    reply.tool_calls.push_back(
        ToolCall{std::move(call.id), std::move(call.name), std::move(arguments)});
  }
  return reply;
}

}  // namespace agentgate::wire
