#include "domain/agent/user_question.hpp"

#include "domain/json_text.hpp"
#include "domain/schema/json_schema.hpp"

#include <boost/json/parse.hpp>

namespace agentgate {

namespace json = boost::json;

Result<UserQuestion> ReadUserQuestion(std::string_view arguments_json) {
  boost::system::error_code ec;
  const json::value args = json::parse(arguments_json, ec);
  if (ec || !args.is_object()) return InvalidField("arguments", "must be a JSON object");
  const json::object& o = args.get_object();
  const json::value* question = o.if_contains("question");
  if (question == nullptr || !question->is_string() || question->get_string().empty())
    return InvalidField("question", "is required: the question, as the user reads it");
  if (question->get_string().size() > kMaxQuestionBytes)
    return InvalidField("question", "must be at most 4000 bytes");
  UserQuestion out{std::string(question->get_string()), std::nullopt};
  if (const json::value* schema = o.if_contains("answer_schema");
      schema != nullptr && !schema->is_null()) {
    AG_TRY(out.answer_schema, schema::ReadAnswerSchema(*schema, "answer_schema"));
  }
  return out;
}

Result<std::string> AnswerText(const UserQuestion& question, const json::value& answer,
                               std::string_view field) {
  if (question.answer_schema) {
    const auto violations = schema::Validate(*question.answer_schema, answer, 1);
    if (!violations.empty()) {
      return InvalidField(field, "does not keep to the question's answer_schema: " +
                                     violations.front().path + " " + violations.front().message);
    }
  } else if (answer.is_string() && answer.get_string().empty()) {
    return InvalidField(field, "must not be empty");
  }
  if (answer.is_string()) return std::string(answer.get_string());
  return json_text::Write(answer);
}

}  // namespace agentgate
