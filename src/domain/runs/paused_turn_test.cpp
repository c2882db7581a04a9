#include "domain/runs/paused_turn.hpp"

#include <gtest/gtest.h>
#include <boost/json/parse.hpp>

namespace agentgate {
namespace {

namespace json = boost::json;

PausedTurn Sample() {
  PausedTurn p;
  p.request.model = "gpt";
  p.request.system = "Be careful.";
  p.request.temperature = 0.25;
  p.request.max_output_tokens = 300;
  p.request.prompt_caching = true;
  p.request.history_messages = 2;
  p.request.tools.push_back(ToolSpec{"refund", "Refund", json::object{{"type", "object"}}});
  p.request.messages.push_back(ChatMessage{Role::kUser, "before", {}, "", ""});
  p.request.messages.push_back(ChatMessage{Role::kAssistant, "ok", {}, "", ""});
  p.request.messages.push_back(ChatMessage{Role::kUser, "refund A-1", {}, "", ""});
  p.request.messages.push_back(ChatMessage{Role::kAssistant,
                                           "",
                                           {{"c1", "refund", R"({"order":"A-1"})"},
                                            {"c2", "look", "not json"},
                                            {"c3", "file_case", "{}"}},
                                           "",
                                           ""});
  p.progress.model_calls = 2;
  p.progress.reply_text = "Let me check.";
  p.progress.actions.push_back(RecordedAction{"file_case", json::object{}});
  p.progress.call_counts["refund\n{\"order\":\"A-1\"}"] = 1;
  p.progress.pending = p.request.messages.back().tool_calls;
  p.to_run = {p.progress.pending[0], p.progress.pending[1]};
  p.needs_approval = {"c1"};
  p.recorded_system = "Be careful.";
  p.history_sent = 2;
  p.usage.input_tokens = 120;
  p.usage.output_tokens = 30;
  p.usage.cached_input_tokens = 64;
  p.cost_usd = 0.0125;
  p.model_calls = 2;
  p.models.push_back(ModelUsage{"openai", "gpt", 2, 1, p.usage, 0.0125});
  p.invoke =
      json::object{{"message", "refund A-1"}, {"stateful", true}, {"conversation_id", "c_1"}};
  p.agent_version = 3;
  p.caller_tools = {"weather"};
  return p;
}

TEST(PausedTurn, ItsStateReadsBackAsItWasWritten) {
  const PausedTurn p = Sample();
  auto back = ParsePausedTurn(PausedTurnJson(p));
  ASSERT_TRUE(back) << back.error().message;
  EXPECT_EQ(back->request.model, "gpt");
  EXPECT_EQ(back->request.system, "Be careful.");
  EXPECT_EQ(back->request.temperature, 0.25);
  EXPECT_EQ(back->request.max_output_tokens, 300);
  EXPECT_TRUE(back->request.prompt_caching);
  EXPECT_EQ(back->request.history_messages, 2u);
  ASSERT_EQ(back->request.messages.size(), 4u);
  EXPECT_EQ(back->request.messages[3].role, Role::kAssistant);
  ASSERT_EQ(back->request.messages[3].tool_calls.size(), 3u);
  EXPECT_EQ(back->request.messages[3].tool_calls[1].arguments_json, "not json");
  EXPECT_EQ(back->request.tools.at(0).parameters, (json::object{{"type", "object"}}));
  EXPECT_EQ(back->progress.model_calls, 2);
  EXPECT_EQ(back->progress.reply_text, "Let me check.");
  EXPECT_EQ(back->progress.actions.at(0).name, "file_case");
  EXPECT_EQ(back->progress.call_counts, p.progress.call_counts);
  EXPECT_EQ(back->progress.pending.size(), 3u);
  EXPECT_EQ(back->to_run.size(), 2u);
  EXPECT_EQ(back->needs_approval, std::vector<std::string>{"c1"});
  EXPECT_EQ(back->history_sent, 2u);
  EXPECT_EQ(back->usage.cached_input_tokens, 64);
  EXPECT_DOUBLE_EQ(back->cost_usd, 0.0125);
  EXPECT_EQ(back->models.at(0).failed_calls, 1);
  EXPECT_EQ(back->models.at(0).tokens.input_tokens, 120);
  EXPECT_EQ(back->invoke.at("conversation_id"), "c_1");
  EXPECT_EQ(back->agent_version, 3);
  EXPECT_EQ(back->caller_tools, std::vector<std::string>{"weather"});
  EXPECT_FALSE(ParsePausedTurn("{}"));
  EXPECT_FALSE(ParsePausedTurn("not json"));
}

TEST(PausedTurn, PendingActionsAreTheCallsThatWaitWithTheirArguments) {
  const auto pending = PendingActionsJson(Sample());
  ASSERT_EQ(pending.size(), 1u);
  EXPECT_EQ(pending[0].at("call_id"), "c1");
  EXPECT_EQ(pending[0].at("tool"), "refund");
  EXPECT_EQ(pending[0].at("kind"), "approval");
  EXPECT_EQ(pending[0].at("arguments").at("order"), "A-1");
}

TEST(ApprovalRequests, QuestionsAreAnsweredEachOnceWithinTheirSchema) {
  PausedTurn paused = Sample();
  paused.to_run.push_back(ToolCall{"q1", "ask_user", R"({"question":"Which order?"})"});
  paused.needs_answer = {"q1"};
  const auto pending = PendingActionsJson(paused);
  ASSERT_EQ(pending.size(), 2u);
  EXPECT_EQ(pending[1].at("kind"), "question");
  EXPECT_EQ(pending[1].at("question"), "Which order?");
  EXPECT_TRUE(pending[1].at("answer_schema").is_null());
  auto request = ParseApprovalRequest(json::parse(
      R"({"decisions":[{"call_id":"c1","approve":true}],"answers":[{"call_id":"q1","answer":"A-7"}]})"));
  ASSERT_TRUE(request) << request.error().message;
  EXPECT_TRUE(request->Approves());
  ASSERT_TRUE(CheckDecisions(*request, paused.needs_approval));
  ASSERT_TRUE(CheckAnswers(*request, paused));
  ASSERT_EQ(request->decisions.size(), 2u);
  EXPECT_EQ(request->decisions[1].answer, "A-7");
  // Answers alone need no decisions; a stray, a repeated or a missing answer is a 400.
  request = ParseApprovalRequest(json::parse(R"({"answers":[{"call_id":"q1","answer":"x"}]})"));
  ASSERT_TRUE(request);
  EXPECT_FALSE(request->Approves());
  for (const char* bad :
       {R"({"answers":[{"call_id":"c1","answer":"x"}]})",
        R"({"answers":[{"call_id":"q1","answer":"x"},{"call_id":"q1","answer":"y"}]})"}) {
    auto parsed = ParseApprovalRequest(json::parse(bad));
    ASSERT_TRUE(parsed);
    EXPECT_FALSE(CheckAnswers(*parsed, paused)) << bad;
  }
  auto none =
      ParseApprovalRequest(json::parse(R"({"decisions":[{"call_id":"c1","approve":true}]})"));
  ASSERT_TRUE(none);
  const auto missing = CheckAnswers(*none, paused);
  ASSERT_FALSE(missing);
  EXPECT_EQ(missing.error().field(), "answers");
  EXPECT_FALSE(ParseApprovalRequest(json::parse(R"({"answers":[{"call_id":"q1"}]})")));
  // A decided run keeps its answers as the model reads them.
  const DecidedRun decided{{ApprovalDecision{"q1", true, "", std::nullopt, "A-7"}}, 4};
  const auto back = ParseDecidedRun(DecidedRunJson(decided));
  ASSERT_TRUE(back) << back.error().message;
  EXPECT_EQ(back->decisions[0].answer, "A-7");
}

// A step paused after it ran for what a tool's MCP server asks (docs/mcp.md): the question is
// the server's, its answer an object within the server's form, and a decline is kept as one.
TEST(ApprovalRequests, AnMcpServersQuestionIsAnsweredWithinItsFormOrDeclined) {
  PausedTurn paused = Sample();
  paused.to_run = {ToolCall{"m1", "docs__refund", R"({"order_id":"A-1"})"},
                   ToolCall{"m2", "docs__lookup", "{}"}};
  paused.needs_approval.clear();
  paused.needs_answer = {"m1"};
  paused.asks["m1"] = ToolAsk{"confirm", R"(state "1")", "Refund order A-1?",
                              json::parse(R"({"type":"object","properties":{
                                  "confirm":{"type":"boolean"}},"required":["confirm"]})")};
  paused.ran = {ToolResult{"m2", "docs__lookup", "found it"}};
  auto back = ParsePausedTurn(PausedTurnJson(paused));
  ASSERT_TRUE(back) << back.error().message;
  EXPECT_EQ(back->asks, paused.asks);
  ASSERT_EQ(back->ran.size(), 1u);
  EXPECT_EQ(back->ran[0].content, "found it");

  const auto pending = PendingActionsJson(paused);
  ASSERT_EQ(pending.size(), 1u);
  EXPECT_EQ(pending[0].at("kind"), "question");
  EXPECT_EQ(pending[0].at("tool"), "docs__refund");
  EXPECT_EQ(pending[0].at("question"), "Refund order A-1?");
  EXPECT_EQ(pending[0].at("answer_schema"), paused.asks["m1"].answer_schema);

  const auto field = [&](std::string_view body) {
    auto request = ParseApprovalRequest(json::parse(body));
    EXPECT_TRUE(request);
    auto checked = CheckAnswers(*request, paused);
    return checked ? std::string("ok") : std::string(checked.error().field().value_or(""));
  };
  EXPECT_EQ(field(R"({"answers":[{"call_id":"m1","answer":{"confirm":true}}]})"), "ok");
  EXPECT_EQ(field(R"({"answers":[{"call_id":"m1","answer":{"confirm":"yes"}}]})"),
            "answers[0].answer");
  EXPECT_EQ(field(R"({"answers":[{"call_id":"m1","answer":"yes"}]})"), "answers[0].answer");

  ApprovalRequest declined;
  declined.declined.emplace_back("m1", "The user declined to answer.");
  ASSERT_TRUE(CheckAnswers(declined, paused));
  ASSERT_EQ(declined.decisions.size(), 1u);
  EXPECT_TRUE(declined.decisions[0].declined);
  const auto kept = ParseDecidedRun(DecidedRunJson(DecidedRun{declined.decisions, 3}));
  ASSERT_TRUE(kept);
  EXPECT_TRUE(kept->decisions[0].declined);
}

TEST(ApprovalRequests, AnApprovalMayEditTheArgumentsWithinTheToolsParameters) {
  PausedTurn paused = Sample();
  paused.request.tools[0].parameters = json::parse(
      R"({"type":"object","properties":{"order":{"type":"string"}},"required":["order"],
          "additionalProperties":false})");
  auto request = ParseApprovalRequest(json::parse(
      R"({"decisions":[{"call_id":"c1","approve":true,"arguments":{"order":"A-2"}}]})"));
  ASSERT_TRUE(request) << request.error().message;
  EXPECT_EQ(request->decisions[0].arguments, R"({"order":"A-2"})");
  EXPECT_TRUE(CheckEditedArguments(*request, paused));
  request = ParseApprovalRequest(
      json::parse(R"({"decisions":[{"call_id":"c1","approve":true,"arguments":{"amount":5}}]})"));
  ASSERT_TRUE(request);
  const auto refused = CheckEditedArguments(*request, paused);
  ASSERT_FALSE(refused);
  EXPECT_EQ(refused.error().field(), "decisions[0].arguments");
  for (const char* bad :
       {R"({"decisions":[{"call_id":"c1","approve":true,"arguments":"{}"}]})",
        R"({"decisions":[{"call_id":"c1","approve":false,"arguments":{"order":"A-2"}}]})"}) {
    const auto parsed = ParseApprovalRequest(json::parse(bad));
    ASSERT_FALSE(parsed) << bad;
    EXPECT_EQ(parsed.error().field(), "decisions[0].arguments");
  }
  // Kept with a decided run that waits in the queue.
  const DecidedRun decided{{ApprovalDecision{"c1", true, "", R"({"order":"A-2"})"}}, 3};
  const auto back = ParseDecidedRun(DecidedRunJson(decided));
  ASSERT_TRUE(back);
  EXPECT_EQ(back->decisions[0].arguments, R"({"order":"A-2"})");
  EXPECT_NE(EditedResult(R"({"order":"A-2"})", "error: down").find("error: "), std::string::npos);
  EXPECT_TRUE(EditedResult("{}", "error: down").starts_with("error: "));
}

TEST(ApprovalRequests, ShapeErrorsNameTheField) {
  auto error_of = [](std::string_view body) {
    auto parsed = ParseApprovalRequest(json::parse(body));
    return parsed ? std::string("(parsed)") : parsed.error().message;
  };
  EXPECT_NE(error_of("[]").find("body"), std::string::npos);
  EXPECT_NE(error_of("{}").find("'decisions'"), std::string::npos);
  EXPECT_NE(error_of(R"({"decisions": []})").find("'decisions'"), std::string::npos);
  EXPECT_NE(error_of(R"({"decisions": [{"call_id": "c1"}]})").find("'decisions[0].approve'"),
            std::string::npos);
  EXPECT_NE(error_of(R"({"decisions": [{"approve": true}]})").find("'decisions[0].call_id'"),
            std::string::npos);
  EXPECT_NE(error_of(R"({"decisions": [{"call_id": "c1", "approve": "yes"}]})")
                .find("'decisions[0].approve'"),
            std::string::npos);
  EXPECT_NE(error_of(R"({"decisions": [{"call_id": "c1", "approve": true, "x": 1}]})")
                .find("'decisions[0].x'"),
            std::string::npos);
  EXPECT_NE(error_of(R"({"decisions": [{"call_id": "c1", "approve": true}], "later": true})")
                .find("'later'"),
            std::string::npos);
  auto ok = ParseApprovalRequest(json::parse(
      R"({"decisions": [{"call_id": "c1", "approve": false, "reason": "not today"}],
          "background": true})"));
  ASSERT_TRUE(ok);
  EXPECT_TRUE(ok->background);
  EXPECT_FALSE(ok->decisions[0].approve);
  EXPECT_EQ(DeniedResult(ok->decisions[0]), "denied by an operator: not today");
  EXPECT_EQ(DeniedResult(ApprovalDecision{"c1", false, ""}), "denied by an operator");
}

TEST(ApprovalRequests, EveryPendingCallIsDecidedOnceAndNothingElse) {
  const std::vector<std::string> pending{"c1", "c2"};
  auto check = [&](std::string_view body) {
    auto parsed = ParseApprovalRequest(json::parse(body));
    EXPECT_TRUE(parsed);
    auto checked = CheckDecisions(*parsed, pending);
    return checked ? std::string("(ok)") : checked.error().message;
  };
  EXPECT_EQ(check(R"({"decisions": [{"call_id": "c2", "approve": true},
                                    {"call_id": "c1", "approve": false}]})"),
            "(ok)");
  EXPECT_NE(check(R"({"decisions": [{"call_id": "c1", "approve": true}]})").find("'c2' is missing"),
            std::string::npos);
  EXPECT_NE(check(R"({"decisions": [{"call_id": "c9", "approve": true}]})")
                .find("'decisions[0].call_id'"),
            std::string::npos);
  EXPECT_NE(check(R"({"decisions": [{"call_id": "c1", "approve": true},
                                    {"call_id": "c1", "approve": false}]})")
                .find("'decisions[1].call_id'"),
            std::string::npos);
}

// A decided run waiting in the queue keeps its decisions and where its events go on.
TEST(DecidedRuns, ReadBackAsTheyWereWrittenAndAnUnreadableOneIsAnError) {
  const DecidedRun decided{
      {ApprovalDecision{"call_0", true, ""}, ApprovalDecision{"call_1", false, "not this one"}}, 7};
  const auto back = ParseDecidedRun(DecidedRunJson(decided));
  ASSERT_TRUE(back) << back.error().message;
  EXPECT_EQ(back->after_seq, 7);
  ASSERT_EQ(back->decisions.size(), 2u);
  EXPECT_EQ(back->decisions[0].call_id, "call_0");
  EXPECT_TRUE(back->decisions[0].approve);
  EXPECT_FALSE(back->decisions[1].approve);
  EXPECT_EQ(back->decisions[1].reason, "not this one");
  for (const char* bad : {"", "{}", R"({"message":"hi"})", R"({"decided":{},"after_seq":1})"})
    EXPECT_FALSE(ParseDecidedRun(bad)) << bad;
}

}  // namespace
}  // namespace agentgate
