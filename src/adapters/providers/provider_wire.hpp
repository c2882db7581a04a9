#pragma once
// The wire formats of the model providers, as pure functions: request bodies, replies, and the
// classification of errors into the stop rules' kinds (SPEC §5).

#include "domain/agent/model_types.hpp"

#include <cstdint>
#include <optional>
#include <string>
#include <variant>

namespace agentgate::wire {

using Parsed = std::variant<ModelReply, ModelFailure>;

// Anthropic caches no prefix shorter than 1,024 tokens (2,048 on its smallest models): a request
// estimated shorter is sent without breakpoints.
constexpr std::int64_t kMinCachedTokens = 1024;

// OpenAI-compatible /v1/chat/completions (OpenAI, vLLM, llama.cpp server, Ollama).
// `stream` asks for the reply as server-sent events, usage included (stream_wire reads them). An
// answer schema goes as response_format json_schema, strict when it has a strict form.
std::string OpenAiRequestBody(const ModelRequest& request, bool stream = false);
Parsed OpenAiParseReply(const std::string& body);
ModelFailure OpenAiClassifyError(int status, const std::string& body,
                                 std::optional<std::string> retry_after,
                                 std::optional<std::string> retry_after_ms);

// Anthropic counts a call's input in three parts: input_tokens is what was neither read from nor
// written to its prompt cache. TokenUsage's input is all of it.
TokenUsage AnthropicUsage(std::int64_t uncached_input, std::int64_t cache_read,
                          std::int64_t cache_write, std::int64_t output);

// How an Anthropic call asks for an answer held to the request's schema
// (docs/structured-output.md): natively (output_config) where the model is configured for
// structured outputs and the schema has a strict form, else through the answer tool
// (kAnswerToolName), offered unforced.
enum class AnswerWay { kNone, kNative, kTool };
AnswerWay AnthropicAnswerWay(const ModelRequest& request, bool model_has_structured_output);

// The answer tool's call, if the reply made one, becomes the reply's text (its input, as JSON);
// the reply's other calls stay.
void TakeAnswerToolCall(ModelReply& reply);

// Anthropic /v1/messages. A request with prompt_caching marks its stable prefix with
// cache_control breakpoints (at most four: the tools, the system text, the end of the history, the
// end of the turn so far), when it is long enough for Anthropic to cache (kMinCachedTokens).
std::string AnthropicRequestBody(const ModelRequest& request, bool stream = false,
                                 AnswerWay answer = AnswerWay::kNone);
Parsed AnthropicParseReply(const std::string& body);
ModelFailure AnthropicClassifyError(int status, const std::string& body,
                                    std::optional<std::string> retry_after);

}  // namespace agentgate::wire
