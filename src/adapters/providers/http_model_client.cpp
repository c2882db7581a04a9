#include "adapters/providers/http_model_client.hpp"

#include "adapters/providers/provider_wire.hpp"

namespace agentgate {

namespace asio = boost::asio;

HttpModelClient::HttpModelClient(Dialect dialect, HttpCaller& http, std::string base_url,
                                 std::optional<std::string> api_key)
    : dialect_(dialect), http_(http), base_url_(std::move(base_url)), api_key_(std::move(api_key)) {
  while (!base_url_.empty() && base_url_.back() == '/') base_url_.pop_back();
}

asio::awaitable<ModelResult> HttpModelClient::Complete(const ModelRequest& request,
                                                       std::chrono::milliseconds timeout) {
  HttpClientRequest call;
  call.method = "POST";
  call.timeout = timeout;
  call.headers.emplace_back("content-type", "application/json");
  if (dialect_ == Dialect::kOpenAi) {
    call.url = base_url_ + "/chat/completions";
    call.body = wire::OpenAiRequestBody(request);
    if (api_key_) call.headers.emplace_back("authorization", "Bearer " + *api_key_);
  } else {
    call.url = base_url_ + "/v1/messages";
    call.body = wire::AnthropicRequestBody(request);
    call.headers.emplace_back("anthropic-version", "2023-06-01");
    if (api_key_) call.headers.emplace_back("x-api-key", *api_key_);
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
  if (dialect_ == Dialect::kOpenAi) {
    if (response->status != 200) {
      co_return wire::OpenAiClassifyError(response->status, response->body, header("retry-after"),
                                          header("retry-after-ms"));
    }
    co_return wire::OpenAiParseReply(response->body);
  }
  if (response->status != 200) {
    co_return wire::AnthropicClassifyError(response->status, response->body, header("retry-after"));
  }
  co_return wire::AnthropicParseReply(response->body);
}

}  // namespace agentgate
