#include "domain/a2a/task_answer.hpp"

#include <boost/json/object.hpp>

namespace agentgate::a2a {

namespace json = boost::json;

namespace {

std::string_view StringAt(const json::value& v, std::string_view key) {
  const auto* found = v.is_object() ? v.get_object().if_contains(key) : nullptr;
  return found != nullptr && found->is_string() ? std::string_view(found->get_string())
                                                : std::string_view();
}

ProtocolError Invalid(const std::string& field, std::string_view problem) {
  return ProtocolError{Fault::kInvalidParams, "field '" + field + "': " + std::string(problem),
                       field};
}

}  // namespace

std::variant<ApprovalRequest, ProtocolError> ReadTaskAnswer(const json::array& parts,
                                                            const json::array& pending) {
  std::string text;
  for (std::size_t i = 0; i < parts.size(); ++i) {
    const auto* data = parts[i].is_object() ? parts[i].get_object().if_contains("data") : nullptr;
    if (data == nullptr) {
      if (const auto t = StringAt(parts[i], "text"); !t.empty()) text += std::string(t);
      continue;
    }
    const std::string field = "message.parts[" + std::to_string(i) + "].data";
    auto read = ParseApprovalRequest(*data);
    if (!read) {
      // The endpoint's "field 'decisions[0].approve': ..." as this part's field.
      const std::string inner(read.error().field().value_or(""));
      std::string problem = read.error().message;
      if (const auto at = problem.find("': "); !inner.empty() && at != std::string::npos)
        problem = problem.substr(at + 3);
      return Invalid(inner.empty() ? field : field + "." + inner, problem);
    }
    read->background = false;  // how the answer is delivered is the send's to say
    return std::move(*read);
  }
  // Text alone: the answer to the one question the task waits for, if that is all it waits for.
  std::string question;
  for (const auto& need : pending) {
    if (StringAt(need, "kind") != "question" || !question.empty()) {
      return Invalid("message.parts",
                     "this task waits for approvals or several answers: send a data part "
                     "{\"decisions\": [...], \"answers\": [...]} (text never approves a call)");
    }
    question = std::string(StringAt(need, "call_id"));
  }
  if (question.empty()) return Invalid("message.parts", "the task waits for nothing to answer");
  ApprovalRequest request;
  request.answered.emplace_back(question, json::value(text));
  return request;
}

}  // namespace agentgate::a2a
