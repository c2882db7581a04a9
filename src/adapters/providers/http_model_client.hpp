#pragma once
// The OpenAI-compatible and Anthropic model clients: one HTTP exchange per call through the
// shared HttpClient, translated by provider_wire (and stream_wire for a streamed reply).

#include "adapters/http_client/http_client.hpp"
#include "ports/model_client.hpp"

#include <optional>
#include <string>
#include <vector>

namespace agentgate {

class HttpModelClient final : public ModelClient {
 public:
  enum class Dialect { kOpenAi, kAnthropic };

  // `structured_output_models`: the Anthropic models asked for an answer's schema natively (a
  // name, or a prefix ending in "*"); others give it through the answer tool.
  HttpModelClient(Dialect dialect, HttpCaller& http, std::string base_url,
                  std::optional<std::string> api_key,
                  std::vector<std::string> structured_output_models = {});

  boost::asio::awaitable<ModelResult> Complete(const ModelRequest& request,
                                               std::chrono::milliseconds timeout,
                                               const ModelCallOptions& options) override;

 private:
  // What failed is kept (transcripts, logs, spans, run events): never with the key it was sent.
  ModelResult WithoutKey(ModelResult result) const;
  bool HasStructuredOutput(const std::string& model) const;

  Dialect dialect_;
  HttpCaller& http_;
  std::string base_url_;
  std::optional<std::string> api_key_;
  std::vector<std::string> structured_output_models_;
};

}  // namespace agentgate
