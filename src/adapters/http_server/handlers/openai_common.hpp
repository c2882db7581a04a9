#pragma once
// What the OpenAI-compatible routes share (docs/openai.md): errors in OpenAI's shape, the time
// its objects carry, and the model as a request named it.

#include "adapters/http_server/handlers/invoke_common.hpp"
#include "adapters/http_server/handlers/run_stream.hpp"
#include "adapters/http_server/handlers/streamed_call.hpp"
#include "app/openai/conversations.hpp"
#include "domain/openai/error_shape.hpp"

#include <cstdint>
#include <string>

namespace agentgate::http {

// OpenAI's error shape with agentgate's status. The SDKs retry 408, 409, 429 and 5xx on their own;
// a spend limit, a key already running and the turn cap say not to, or one call could pay for
// three turns.
// `param` in chat completions' names; ResponsesError in the Responses API's.
Response OpenAiError(const Error& error);
Response ResponsesError(const Error& error);

std::int64_t NowSeconds();

// A run's events in one of OpenAI's stream shapes: `Writer` is openai::ChatChunkWriter or
// openai::ResponseEventWriter (Append, AppendError, over). A stream stopped for its credential ends
// with the shape's own error.
template <typename Writer>
class OpenAiStreamFrames final : public StreamFormat {
 public:
  explicit OpenAiStreamFrames(Writer writer) : writer_(std::move(writer)) {}
  void Frame(std::string& out, const RunEvent& event) override { writer_.Append(out, event); }
  void Stopped(std::string& out, const StreamTicket& ticket) override {
    writer_.AppendError(out, ticket.message(), ticket.reason(), 403);
  }
  bool Over() const override { return writer_.over(); }

 private:
  Writer writer_;
};

// A streamed call's answer for its Idempotency-Key: the whole stream its run's end makes in
// `format_of(result)`, stored by the turn's commit, replayed as a stream (an SDK that asked for a
// stream reads one).
using StreamFormatOf = std::function<std::shared_ptr<StreamFormat>(const InvokeResult&)>;
AnswerRenderer WholeStreamAnswer(StreamFormatOf format_of);
Response ReplayedStream(StoredResponse& replay);
// The run a streamed call's result is the answer of (its answering turn took the run's id).
std::string RunIdOf(const InvokeResult& result);

// A streamed OpenAI call's shape: refusals as `refuse` writes them, a replay as the stream stored,
// the run's events in `format_of`'s frames.
StreamShape OpenAiStreamShape(
    Response (*refuse)(const Error&),
    std::function<std::shared_ptr<StreamFormat>(const std::string& run_id)> format_of);

// A list's page as its query asks (`limit` 1-100, default 20; `after`; `order` asc or desc,
// newest first by default), for the item lists of conversations and responses.
Result<ItemListQuery> ListQueryOf(const Request& r);

// The model as the request named it: the agent, and its instance.
std::string ModelOf(const InvokeInput& call);

}  // namespace agentgate::http
