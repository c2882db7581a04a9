#pragma once
// The OpenAI-compatible and Anthropic model clients: one HTTP exchange per call through the
// shared HttpClient, translated by provider_wire (and stream_wire for a streamed reply).

#include "adapters/http_client/http_client.hpp"
#include "ports/model_client.hpp"

#include <optional>
#include <string>

namespace agentgate {

class HttpModelClient final : public ModelClient {
 public:
  enum class Dialect { kOpenAi, kAnthropic };

  HttpModelClient(Dialect dialect, HttpCaller& http, std::string base_url,
                  std::optional<std::string> api_key);

  boost::asio::awaitable<ModelResult> Complete(const ModelRequest& request,
                                               std::chrono::milliseconds timeout,
                                               const ModelCallOptions& options) override;

 private:
  // What failed is kept (transcripts, logs, spans, run events): never with the key it was sent.
  ModelResult WithoutKey(ModelResult result) const;

  Dialect dialect_;
  HttpCaller& http_;
  std::string base_url_;
  std::optional<std::string> api_key_;
};

}  // namespace agentgate
