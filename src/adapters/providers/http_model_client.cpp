#include "adapters/providers/http_model_client.hpp"

#include "adapters/providers/provider_wire.hpp"
#include "adapters/providers/stream_wire.hpp"
#include "domain/credential_redaction.hpp"

#include <algorithm>
#include <memory>

namespace agentgate {

namespace asio = boost::asio;

HttpModelClient::HttpModelClient(Dialect dialect, HttpCaller& http, std::string base_url,
                                 std::optional<std::string> api_key,
                                 std::vector<std::string> structured_output_models)
    : dialect_(dialect),
      http_(http),
      base_url_(std::move(base_url)),
      api_key_(std::move(api_key)),
      structured_output_models_(std::move(structured_output_models)) {
  while (!base_url_.empty() && base_url_.back() == '/') base_url_.pop_back();
}

ModelResult HttpModelClient::WithoutKey(ModelResult result) const {
  if (auto* failure = std::get_if<ModelFailure>(&result); failure != nullptr && api_key_)
    failure->message = RedactCredentials(failure->message, {*api_key_});
  return result;
}

bool HttpModelClient::HasStructuredOutput(const std::string& model) const {
  return std::any_of(
      structured_output_models_.begin(), structured_output_models_.end(),
      [&](const std::string& name) {
        if (name.ends_with('*'))
          return model.starts_with(std::string_view(name).substr(0, name.size() - 1));
        return model == name;
      });
}

asio::awaitable<ModelResult> HttpModelClient::Complete(const ModelRequest& request,
                                                       std::chrono::milliseconds timeout,
                                                       const ModelCallOptions& options) {
  const TextSink* on_text = options.on_text;
  const bool openai = dialect_ == Dialect::kOpenAi;
  const bool stream = on_text != nullptr;
  const wire::AnswerWay answer_way =
      openai ? wire::AnswerWay::kNone
             : wire::AnthropicAnswerWay(request, HasStructuredOutput(request.model));
  HttpClientRequest call;
  call.method = "POST";
  call.timeout = timeout;
  call.headers.emplace_back("content-type", "application/json");
  if (openai) {
    call.url = base_url_ + "/chat/completions";
    call.body = wire::OpenAiRequestBody(request, stream);
    if (api_key_) call.headers.emplace_back("authorization", "Bearer " + *api_key_);
  } else {
    call.url = base_url_ + "/v1/messages";
    call.body = wire::AnthropicRequestBody(request, stream, answer_way);
    call.headers.emplace_back("anthropic-version", "2023-06-01");
    if (api_key_) call.headers.emplace_back("x-api-key", *api_key_);
  }
  if (!options.traceparent.empty()) call.headers.emplace_back("traceparent", options.traceparent);
  // Only a streamed call keeps a reader (in the heap, so a plain call's frame stays small).
  std::unique_ptr<wire::StreamedReply> streamed;
  if (stream) {
    streamed = std::make_unique<wire::StreamedReply>(openai ? wire::StreamDialect::kOpenAi
                                                            : wire::StreamDialect::kAnthropic);
    call.on_event_stream = [reader = streamed.get(), on_text](std::string_view bytes) {
      reader->Feed(bytes, *on_text);
    };
  }
  auto response = co_await http_.Send(std::move(call));
  if (!response) {
    co_return ModelFailure{ModelFailure::Kind::kTransient,
                           "model call failed: " + response.error().message, std::nullopt};
  }
  auto header = [&](std::string_view name) -> std::optional<std::string> {
    auto v = response->Header(name);
    return v ? std::optional<std::string>(std::string(*v)) : std::nullopt;
  };
  if (response->status != 200) {
    ModelFailure failure =
        openai
            ? wire::OpenAiClassifyError(response->status, response->body, header("retry-after"),
                                        header("retry-after-ms"))
            : wire::AnthropicClassifyError(response->status, response->body, header("retry-after"));
    co_return WithoutKey(std::move(failure));
  }
  // A provider that ignored `stream` answered with one JSON reply: read it as a plain call's.
  const bool event_stream = header("content-type").value_or("").starts_with("text/event-stream");
  auto reply = streamed && event_stream ? WithoutKey(streamed->Finish())
               : openai                 ? wire::OpenAiParseReply(response->body)
                                        : wire::AnthropicParseReply(response->body);
  auto* answered = std::get_if<ModelReply>(&reply);
  if (answered != nullptr && answer_way == wire::AnswerWay::kTool)
    wire::TakeAnswerToolCall(*answered);
  if (streamed && event_stream) co_return reply;
  if (const auto* text = std::get_if<ModelReply>(&reply);
      text != nullptr && stream && !text->text.empty())
    (*on_text)(text->text);
  co_return reply;
}

}  // namespace agentgate
