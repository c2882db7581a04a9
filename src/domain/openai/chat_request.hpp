#pragma once
// POST /v1/chat/completions (docs/openai.md): OpenAI's chat request read as one turn of an agent.
// `model` names the agent (`agent_id:instance_id` for a per-instance agent); the last user message
// is the turn's own and the earlier messages its history (sent to the model, stored nowhere);
// after it may come the model's calls of the caller's functions (`tools`) and their results, which
// the turn goes on from. System and developer messages add to its instructions, as
// `additional_instructions` does. Fields these clients commonly send and agentgate does not use
// are ignored; the few it cannot honour are refused. Errors are 400s naming OpenAI's own field.

#include "domain/agent/invoke_request.hpp"

#include <string>

namespace agentgate {

struct ChatCompletionRequest {
  std::string model;     // as sent: the answer names it
  std::string agent_id;  // model, up to a ':'
  InvokeRequest request;
  bool stream = false;         // chat.completion.chunk events (openai/chat_chunks)
  bool include_usage = false;  // stream_options.include_usage: a last chunk with the usage
};

Result<ChatCompletionRequest> ParseChatCompletionRequest(const boost::json::value& body);

}  // namespace agentgate
