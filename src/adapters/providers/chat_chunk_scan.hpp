#pragma once
// The fields of an OpenAI chat-completion chunk that carry a streamed reply's text, read without
// building a JSON DOM: a reply streams one such chunk a token, and a DOM costs allocations for
// every key of it (bench/streams.py). Anything else a chunk may say (usage, tool calls, an error)
// is left to the DOM reader in stream_wire, which stays the one that knows the whole format.

#include <optional>
#include <string>
#include <string_view>

namespace agentgate::wire {

struct ChatChunkText {
  std::string_view model;
  std::string_view content;        // choices[0].delta.content
  std::string_view finish_reason;  // choices[0].finish_reason
};

class ChatChunkScanner {
 public:
  // The chunk's text fields, valid until the next call; nullopt when the chunk is not a JSON
  // object or holds more than text (an error, usage, tool calls): read it whole then.
  std::optional<ChatChunkText> Scan(std::string_view data);

 private:
  std::string model_;
  std::string content_;
  std::string finish_reason_;
  std::string key_;
};

}  // namespace agentgate::wire
