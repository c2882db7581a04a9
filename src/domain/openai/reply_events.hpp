#pragma once
// A run's events read as a reply for OpenAI's streams, which cannot take text back (docs/openai.md,
// "Streaming"): the text to add as the run releases it (after the safety hold-back), each step's
// text apart from the last by a blank line and its action blocks as the plain answer writes them;
// then the end, either the answer (its invoke body) or a failure. Text the run retracts (a late
// block; a model call that failed after some text, retried) is a failure here. Chat completions'
// chunks and Responses' events both write what this reads.

#include "domain/runs/run_events.hpp"

#include <boost/json/object.hpp>

#include <string>
#include <variant>

namespace agentgate::openai {

// The run answered (run.completed, or run.requires_action for a pause): its invoke body.
struct ReplyAnswered {
  boost::json::object body;
};

// The stream ends on an error in OpenAI's shape: the run failed, or its text was retracted.
struct ReplyFailed {
  std::string message;
  std::string code;
  int status = 502;
};

// What one event adds: nothing, text, or the end.
using ReplyStep = std::variant<std::monostate, std::string, ReplyAnswered, ReplyFailed>;

class ReplyReader {
 public:
  ReplyStep Read(const RunEvent& event);
  // Some text went out: an answer's own text is then not sent again.
  bool wrote_text() const { return wrote_text_; }

 private:
  std::string Text(std::string text);

  bool wrote_text_ = false;
  int last_call_ = 0;  // the model call whose text went out last
};

// The body's fields as the streams read them.
bool BlockedIn(const boost::json::object& body);
std::string_view StringIn(const boost::json::object& body, std::string_view key);
std::int64_t IntIn(const boost::json::object& body, std::string_view key);

}  // namespace agentgate::openai
