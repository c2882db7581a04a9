#pragma once
// A streamed chat completion (docs/openai.md, "Streaming"): a run's events, as they come, made into
// OpenAI's `chat.completion.chunk` stream. The first chunk gives the assistant's role; the reply's
// text follows as content deltas as the run releases it (openai/reply_events); then a chunk with
// its finish_reason and what OpenAI's shape has no place for (under "agentgate"), one with its
// usage when the request asked (stream_options.include_usage), and `data: [DONE]`. What OpenAI's
// clients cannot take back ends the stream with an error chunk instead. The run's outcome is as on
// /api either way.

#include "domain/openai/reply_events.hpp"

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace agentgate::openai {

// A turn's finish_reason: "stop" for a whole reply (and a pause for approval, whose text is whole
// as far as it goes), "content_filter" for the safety placeholder, "length" for every other stop
// reason: the reply is partial.
std::string_view FinishReason(bool blocked, std::optional<std::string_view> terminated_reason);

struct ChunkStream {
  std::string id;  // "chatcmpl-<run id>"
  std::string model;
  std::int64_t created = 0;  // Unix seconds
  bool include_usage = false;
};

class ChatChunkWriter {
 public:
  explicit ChatChunkWriter(ChunkStream stream) : stream_(std::move(stream)) {}

  // Appends the frames `event` makes (none for most); true once the stream's last frame is in.
  bool Append(std::string& out, const RunEvent& event);
  // Ends the stream with an error chunk of OpenAI's shape (a stream stopped before the run's end).
  void AppendError(std::string& out, std::string_view message, std::string_view code, int status);
  bool over() const { return over_; }

 private:
  void AppendChunk(std::string& out, std::string_view delta_json,
                   std::string_view finish_reason = {}, std::string_view extension_json = {});
  void AppendContent(std::string& out, std::string_view text);
  void AppendEnd(std::string& out, boost::json::object body);

  const ChunkStream stream_;
  ReplyReader reply_;
  bool started_ = false;  // the role's chunk went out
  bool over_ = false;
};

}  // namespace agentgate::openai
