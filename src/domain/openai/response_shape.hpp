#pragma once
// OpenAI's Response object for the Responses API (docs/openai.md, "Responses"): a turn's answer as
// `output` (one assistant message of output_text), `status` and `usage`, with what OpenAI's shape
// has no place for under "agentgate" (the invoke's 200 body but its response). A whole reply is
// `completed`; a pause for approval, the safety placeholder and a partial reply are `incomplete`,
// their `incomplete_details.reason` approval_required, content_filter and max_output_tokens. A
// response that has not answered is queued, in_progress, failed (its error) or cancelled.

#include <boost/json/object.hpp>

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace agentgate::openai {

struct ResponseHeader {
  std::string id;  // "resp_<hex>"
  std::string model;
  std::int64_t created_at = 0;  // Unix seconds
  std::optional<std::string> instructions;
  std::optional<std::string> previous_response_id;
  std::optional<std::string> conversation;  // the conversation it was asked to add to
  bool background = false;
  bool store = true;
  boost::json::object text_format{{"type", "text"}};  // the `text.format` asked, as asked
  boost::json::object metadata;                       // as asked
};

// What a stored response was asked that its turn and run do not keep (instructions,
// previous_response_id, conversation, background, text.format, metadata), as kept for its
// read-back; none when all of it is the default.
std::optional<std::string> AskedOf(const ResponseHeader& header);
// The header with what AskedOf kept; a text it cannot read leaves the header as it is.
void ApplyAsked(std::string_view asked, ResponseHeader& header);

// A turn that answered, from the invoke's 200 body; `text` replaces the body's response as the
// output's text when given (a stream's, as it went out).
boost::json::object AnsweredResponse(const ResponseHeader& header,
                                     const boost::json::object& invoke_body,
                                     const std::string* text = nullptr);
// One that has not answered: "queued", "in_progress", "failed" (with `error`: {code, message}) or
// "cancelled".
boost::json::object UnansweredResponse(const ResponseHeader& header, std::string_view status,
                                       const boost::json::object* error = nullptr);
// The output message's id ("msg_<hex>" of the response's).
std::string MessageIdOf(const ResponseHeader& header);
// The function_call output items of an answer whose model called the caller's functions (its
// invoke body's tool_calls): ids "fc_<hex>_<n>" of the response.
std::vector<boost::json::object> FunctionCallsOf(const ResponseHeader& header,
                                                 const boost::json::object& invoke_body);

}  // namespace agentgate::openai
