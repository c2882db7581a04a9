#pragma once
// The wire formats of the model providers, as pure functions: request bodies, replies, and the
// classification of errors into the stop rules' kinds (SPEC §5).

#include "domain/agent/model_types.hpp"

#include <optional>
#include <string>
#include <variant>

namespace agentgate::wire {

using Parsed = std::variant<ModelReply, ModelFailure>;

// OpenAI-compatible /v1/chat/completions (OpenAI, vLLM, llama.cpp server, Ollama).
// `stream` asks for the reply as server-sent events, usage included (stream_wire reads them).
std::string OpenAiRequestBody(const ModelRequest& request, bool stream = false);
Parsed OpenAiParseReply(const std::string& body);
ModelFailure OpenAiClassifyError(int status, const std::string& body,
                                 std::optional<std::string> retry_after,
                                 std::optional<std::string> retry_after_ms);

// Anthropic /v1/messages.
std::string AnthropicRequestBody(const ModelRequest& request, bool stream = false);
Parsed AnthropicParseReply(const std::string& body);
ModelFailure AnthropicClassifyError(int status, const std::string& body,
                                    std::optional<std::string> retry_after);

}  // namespace agentgate::wire
