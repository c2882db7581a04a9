#pragma once
// A question the model asks the user (the built-in ask_user tool, a version's "ask_user": true):
// its call pauses the run until someone answers (docs/runs.md, "What a run needs"). Pure.

#include "domain/error.hpp"

#include <boost/json/value.hpp>

#include <optional>
#include <string>
#include <string_view>

namespace agentgate {

inline constexpr std::size_t kMaxQuestionBytes = 4000;

struct UserQuestion {
  std::string question;
  std::optional<boost::json::value> answer_schema;  // checked as a structured answer's
};

// The call's arguments ({"question", "answer_schema"?}); an error is what the model is told.
Result<UserQuestion> ReadUserQuestion(std::string_view arguments_json);

// The answer as the model reads it (the call's result): a string as it is, anything else as JSON;
// under an answer schema it must keep to it (a 400 naming `field`).
Result<std::string> AnswerText(const UserQuestion& question, const boost::json::value& answer,
                               std::string_view field);

}  // namespace agentgate
