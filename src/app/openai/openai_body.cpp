#include "app/openai/openai_body.hpp"

#include "domain/openai/chat_chunks.hpp"
#include "domain/resource_ids.hpp"

namespace agentgate {

std::string_view FinishReasonOf(const InvokeResult& result) {
  return openai::FinishReason(result.blocked, StopReasonName(result.stop_reason));
}

std::string ChatCompletionText(const InvokeResult& result, std::string_view model,
                               std::int64_t created_s) {
  const std::int64_t prompt = result.usage.input_tokens;
  const std::int64_t completion = result.usage.output_tokens;
  json_text::ObjectWriter out(512 + result.response.size());
  out.String("id", ids::ChatCompletionOf(result.turn_id))
      .String("object", "chat.completion")
      .Int("created", created_s)
      .String("model", model)
      .Array("choices")
      .Object()
      .Int("index", 0)
      .Object("message")
      .String("role", "assistant")
      .String("content", result.response)
      .Null("refusal")
      .End()
      .String("finish_reason", FinishReasonOf(result))
      .Null("logprobs")
      .End()
      .End()
      .Object("usage")
      .Int("prompt_tokens", prompt)
      .Int("completion_tokens", completion)
      .Int("total_tokens", prompt + completion)
      .End()
      .Object("agentgate");
  WriteInvokeFields(out, result);
  out.End();
  return out.Finish();
}

}  // namespace agentgate
