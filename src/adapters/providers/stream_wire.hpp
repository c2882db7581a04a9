#pragma once
// The providers' streamed replies as pure parsing: server-sent events in, the reply's text out as
// it is written, and at the end the same ModelReply (text, tool calls, usage) a plain call gives,
// or the failure a stream that ended early or reported an error means (a cut stream is transient,
// so the turn retries it like any other llm_error).

#include "adapters/providers/chat_chunk_scan.hpp"
#include "adapters/providers/provider_wire.hpp"
#include "domain/sse.hpp"

#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <string_view>
#include <vector>

namespace agentgate::wire {

enum class StreamDialect { kOpenAi, kAnthropic };

class StreamedReply {
 public:
  using TextSink = std::function<void(std::string_view)>;
  explicit StreamedReply(StreamDialect dialect) : dialect_(dialect) {}

  // Feeds the body's next bytes; the text they add goes to `on_text` as it is decoded.
  void Feed(std::string_view bytes, const TextSink& on_text);
  // The whole reply once the stream has ended.
  Parsed Finish();

 private:
  struct PartialCall {
    std::string id;
    std::string name;
    std::string arguments;
  };
  void OpenAiEvent(const SseEvent& event, const TextSink& on_text);
  void AnthropicEvent(const SseEvent& event, const TextSink& on_text);
  void Malformed();

  StreamDialect dialect_;
  SseDecoder decoder_;
  ChatChunkScanner scanner_;  // OpenAI's text chunks, before the DOM
  std::string text_;
  std::map<std::int64_t, PartialCall> calls_;  // by the stream's index, in order
  TokenUsage usage_;
  std::string finish_reason_;
  std::string model_;   // the model the stream says answered
  bool ended_ = false;  // the provider's end event arrived
  std::optional<ModelFailure> failure_;
};

}  // namespace agentgate::wire
