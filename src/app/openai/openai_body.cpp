#include "app/openai/openai_body.hpp"

#include "domain/openai/chat_chunks.hpp"
#include "domain/resource_ids.hpp"

namespace agentgate {

std::string_view FinishReasonOf(const InvokeResult& result) {
  if (!result.blocked && !result.tool_calls.empty()) return "tool_calls";
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
      .String("role", "assistant");
  if (result.tool_calls.empty() || !result.response.empty()) {
    out.String("content", result.response);
  } else {
    out.Null("content");  // as OpenAI answers a step that only calls functions
  }
  out.Null("refusal");
  if (!result.tool_calls.empty()) {
    out.Array("tool_calls");
    for (const auto& call : result.tool_calls) {
      out.Object()
          .String("id", call.id)
          .String("type", "function")
          .Object("function")
          .String("name", call.name)
          .String("arguments", call.arguments_json)
          .End()
          .End();
    }
    out.End();
  }
  out.End()
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
