#include "app/openai_body.hpp"

#include "domain/openai/chat_chunks.hpp"

#include <boost/json/array.hpp>

namespace agentgate {

namespace json = boost::json;

std::string_view FinishReasonOf(const InvokeResult& result) {
  return openai::FinishReason(result.blocked, StopReasonName(result.stop_reason));
}

json::object ChatCompletionBody(const InvokeResult& result, std::string_view model,
                                std::int64_t created_s) {
  json::object message{{"role", "assistant"}, {"content", result.response}, {"refusal", nullptr}};
  json::object choice{{"index", 0},
                      {"message", std::move(message)},
                      {"finish_reason", FinishReasonOf(result)},
                      {"logprobs", nullptr}};
  const std::int64_t prompt = result.usage.input_tokens;
  const std::int64_t completion = result.usage.output_tokens;
  json::object extension = InvokeBody(result);
  extension.erase("response");  // the choice's content
  return json::object{{"id", "chatcmpl-" + result.turn_id},
                      {"object", "chat.completion"},
                      {"created", created_s},
                      {"model", model},
                      {"choices", json::array{std::move(choice)}},
                      {"usage", json::object{{"prompt_tokens", prompt},
                                             {"completion_tokens", completion},
                                             {"total_tokens", prompt + completion}}},
                      {"agentgate", std::move(extension)}};
}

}  // namespace agentgate
