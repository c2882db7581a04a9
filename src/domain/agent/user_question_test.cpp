#include "domain/agent/user_question.hpp"

#include <gtest/gtest.h>
#include <boost/json/parse.hpp>

namespace agentgate {
namespace {

namespace json = boost::json;

TEST(UserQuestions, AQuestionNeedsItsTextAndAnAnswerSchemaTheCheckerTakes) {
  auto asked = ReadUserQuestion(R"({"question":"Which order?"})");
  ASSERT_TRUE(asked);
  EXPECT_EQ(asked->question, "Which order?");
  EXPECT_FALSE(asked->answer_schema);
  asked = ReadUserQuestion(
      R"({"question":"Which?","answer_schema":{"type":"object","properties":{"n":{"type":"integer"}}}})");
  ASSERT_TRUE(asked);
  ASSERT_TRUE(asked->answer_schema);
  for (const char* bad : {"not json", "[]", "{}", R"({"question":""})", R"({"question":7})",
                          R"({"question":"x","answer_schema":{"type":"string"}})",
                          R"({"question":"x","answer_schema":{"type":"object","nope":1}})"}) {
    EXPECT_FALSE(ReadUserQuestion(bad)) << bad;
  }
  EXPECT_FALSE(ReadUserQuestion(R"({"question":")" + std::string(4001, 'q') + R"("})"));
}

TEST(UserQuestions, AnAnswerKeepsToItsSchemaAndReadsAsTextOrJson) {
  const auto open = ReadUserQuestion(R"({"question":"Why?"})");
  ASSERT_TRUE(open);
  EXPECT_EQ(AnswerText(*open, json::value("Because."), "a").value(), "Because.");
  EXPECT_EQ(AnswerText(*open, json::parse(R"({"n":1})"), "a").value(), R"({"n":1})");
  EXPECT_FALSE(AnswerText(*open, json::value(""), "a"));
  const auto typed = ReadUserQuestion(
      R"({"question":"How many?","answer_schema":{"type":"object","properties":{"n":{"type":"integer"}},"required":["n"]}})");
  ASSERT_TRUE(typed);
  EXPECT_TRUE(AnswerText(*typed, json::parse(R"({"n":3})"), "answers[0].answer"));
  const auto refused = AnswerText(*typed, json::parse(R"({"n":"three"})"), "answers[0].answer");
  ASSERT_FALSE(refused);
  EXPECT_EQ(refused.error().field(), "answers[0].answer");
}

}  // namespace
}  // namespace agentgate
