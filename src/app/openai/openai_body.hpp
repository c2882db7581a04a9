#pragma once
// A turn's answer in OpenAI's chat.completion shape (docs/openai.md): the reply as the one choice's
// message, its stop reason as finish_reason, its tokens as usage, and what OpenAI's shape has no
// place for (the stop reason itself, blocked, the conversation, cost, a pause's run and pending
// calls) under "agentgate": the invoke's 200 body but for its response.

#include "app/turn/invoke_body.hpp"

#include <cstdint>
#include <string>
#include <string_view>

namespace agentgate {

// The answer's finish_reason (openai::FinishReason).
std::string_view FinishReasonOf(const InvokeResult& result);

// `model` as the request named it; `created_s` the answer's time (Unix seconds). Written straight
// to text, as the invoke's body is.
std::string ChatCompletionText(const InvokeResult& result, std::string_view model,
                               std::int64_t created_s);

}  // namespace agentgate
