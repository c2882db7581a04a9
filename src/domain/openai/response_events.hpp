#pragma once
// A streamed response (docs/openai.md, "Responses"): a run's events, as they come, made into the
// Responses API's typed events: response.created and response.in_progress; for the reply's message
// response.output_item.added and response.content_part.added, its text as
// response.output_text.delta as the run releases it (openai/reply_events), then
// response.output_text.done, response.content_part.done and response.output_item.done; and the
// end, response.completed or response.incomplete with the whole response, or response.failed with
// its error when the run fails. Each event carries its sequence_number. What OpenAI's clients
// cannot take back (a retraction) and a stream stopped for its credential end with an `error`
// event, which the SDKs raise.

#include "domain/openai/reply_events.hpp"
#include "domain/openai/response_shape.hpp"

#include <string>
#include <string_view>

namespace agentgate::openai {

class ResponseEventWriter {
 public:
  explicit ResponseEventWriter(ResponseHeader header) : header_(std::move(header)) {}

  // Appends the events `event` makes (none for most); true once the stream's last is in.
  bool Append(std::string& out, const RunEvent& event);
  // Ends the stream with an `error` event (a stream stopped before the run's end).
  void AppendError(std::string& out, std::string_view message, std::string_view code, int status);
  bool over() const { return over_; }

 private:
  void AppendEvent(std::string& out, std::string_view type, boost::json::object data);
  void AppendText(std::string& out, std::string_view text);
  void CloseMessage(std::string& out, std::string_view status);
  void AppendEnd(std::string& out, const boost::json::object& body);

  const ResponseHeader header_;
  ReplyReader reply_;
  std::int64_t sequence_ = 0;
  bool started_ = false;       // response.created went out
  bool message_open_ = false;  // the message's item and part were added
  std::string text_;           // what went out
  bool over_ = false;
};

}  // namespace agentgate::openai
