#include "domain/agent/turn.hpp"

#include <boost/json/parse.hpp>

#include <gtest/gtest.h>

namespace agentgate {
namespace {

ModelRequest Prompt() {
  ModelRequest r;
  r.messages.push_back(ChatMessage{Role::kUser, "hi", {}, "", ""});
  return r;
}

ModelReply Text(std::string text) {
  return ModelReply{std::move(text), {}, {}};
}

ModelReply Calls(std::vector<ToolCall> calls, std::string text = "") {
  return ModelReply{std::move(text), std::move(calls), {}};
}

TurnOutcome OutcomeOf(Turn::Step step) {
  return std::get<Turn::Finish>(std::move(step)).outcome;
}

}  // namespace

TEST(Turn, APlainReplyFinishesNormally) {
  Turn turn(Prompt(), {}, 10);
  ASSERT_TRUE(std::holds_alternative<Turn::CallModel>(turn.Start()));
  auto step = turn.OnModelReply(Text("Hello!"));
  const auto outcome = OutcomeOf(step);
  EXPECT_EQ(outcome.reply_text, "Hello!");
  EXPECT_FALSE(outcome.stop_reason);
  EXPECT_EQ(turn.model_calls(), 1);
  EXPECT_EQ(turn.state(), Turn::State::kFinished);
}

TEST(Turn, ToolCallsRunThenTheModelIsCalledAgainWithTheResults) {
  Turn turn(Prompt(), {}, 10);
  turn.Start();
  auto step = turn.OnModelReply(Calls({{"c1", "lookup", R"({"q":"x"})"}}));
  ASSERT_TRUE(std::holds_alternative<Turn::RunTools>(step));
  EXPECT_EQ(std::get<Turn::RunTools>(step).calls.at(0).name, "lookup");
  step = turn.OnToolResults({{"c1", "lookup", "found it"}});
  ASSERT_TRUE(std::holds_alternative<Turn::CallModel>(step));
  const auto& messages = std::get<Turn::CallModel>(step).request->messages;
  ASSERT_EQ(messages.size(), 3u);
  EXPECT_EQ(messages[1].role, Role::kAssistant);
  EXPECT_EQ(messages[2].role, Role::kTool);
  EXPECT_EQ(messages[2].tool_call_id, "c1");
  EXPECT_EQ(messages[2].content, "found it");
  EXPECT_FALSE(OutcomeOf(turn.OnModelReply(Text("done"))).stop_reason);
  EXPECT_EQ(turn.model_calls(), 2);
}

TEST(Turn, MaxIterationsIsTheMostModelCallsAndStopsWhenToolsAreStillWanted) {
  Turn turn(Prompt(), {}, 2);
  turn.Start();
  turn.OnModelReply(Calls({{"c1", "lookup", R"({"n":1})"}}, "thinking"));
  turn.OnToolResults({{"c1", "lookup", "r"}});
  auto step = turn.OnModelReply(Calls({{"c2", "lookup", R"({"n":2})"}}, "still thinking"));
  const auto outcome = OutcomeOf(step);
  EXPECT_EQ(outcome.stop_reason, StopReason::kMaxIterations);
  EXPECT_EQ(outcome.reply_text, "still thinking");
  EXPECT_EQ(turn.model_calls(), 2);
}

TEST(Turn, OneIterationAllowsAnAnswerWithoutTools) {
  Turn turn(Prompt(), {}, 1);
  turn.Start();
  EXPECT_FALSE(OutcomeOf(turn.OnModelReply(Text("ok"))).stop_reason);
}

TEST(Turn, TheSameCallWithIdenticalArgumentsAThirdTimeIsALoop) {
  Turn turn(Prompt(), {}, 10);
  turn.Start();
  // Key order and spacing do not make arguments different.
  turn.OnModelReply(Calls({{"a", "lookup", R"({"q":"x","n":1})"}}));
  turn.OnToolResults({{"a", "lookup", "r"}});
  turn.OnModelReply(Calls({{"b", "lookup", R"({ "n": 1, "q": "x" })"}}));
  turn.OnToolResults({{"b", "lookup", "r"}});
  auto step = turn.OnModelReply(Calls({{"c", "lookup", R"({"n":1,"q":"x"})"}}));
  EXPECT_EQ(OutcomeOf(step).stop_reason, StopReason::kLoopDetected);
}

TEST(Turn, DifferentArgumentsAreNotALoop) {
  Turn turn(Prompt(), {}, 10);
  turn.Start();
  for (int i = 0; i < 4; ++i) {
    auto step = turn.OnModelReply(
        Calls({{"c" + std::to_string(i), "lookup", "{\"n\":" + std::to_string(i) + "}"}}));
    ASSERT_TRUE(std::holds_alternative<Turn::RunTools>(step));
    turn.OnToolResults({{"c" + std::to_string(i), "lookup", "r"}});
  }
}

TEST(Turn, ActionsAreRecordedAcknowledgedAndTheLoopGoesOn) {
  Turn turn(Prompt(), {"create_case"}, 10);
  turn.Start();
  auto step = turn.OnModelReply(
      Calls({{"a1", "create_case", R"({"subject":"Broken"})"}, {"t1", "lookup", "{}"}}));
  ASSERT_TRUE(std::holds_alternative<Turn::RunTools>(step));
  ASSERT_EQ(std::get<Turn::RunTools>(step).calls.size(), 1u);  // the action is not run
  step = turn.OnToolResults({{"t1", "lookup", "r"}});
  const auto& messages = std::get<Turn::CallModel>(step).request->messages;
  EXPECT_EQ(messages[2].tool_call_id, "a1");
  EXPECT_EQ(messages[2].content, Turn::kActionAcknowledgement);
  EXPECT_EQ(messages[3].tool_call_id, "t1");
  step = turn.OnModelReply(Calls({{"a2", "create_case", R"({"subject":"Second"})"}}));
  ASSERT_TRUE(
      std::holds_alternative<Turn::CallModel>(step));  // only an action: straight back to the model
  const auto outcome = OutcomeOf(turn.OnModelReply(Text("I opened two cases.")));
  ASSERT_EQ(outcome.actions.size(), 2u);
  EXPECT_EQ(
      RenderResponse(outcome),
      "I opened two "
      "cases.\n\n:::action\n{\"name\":\"create_case\",\"arguments\":{\"subject\":\"Broken\"}}\n:::"
      "\n\n:::action\n{\"name\":\"create_case\",\"arguments\":{\"subject\":\"Second\"}}\n:::");
}

TEST(Turn, ActionsCalledOnTheLastIterationAreStillRecorded) {
  Turn turn(Prompt(), {"notify"}, 1);
  turn.Start();
  const auto outcome =
      OutcomeOf(turn.OnModelReply(Calls({{"a", "notify", R"({"to":"ops"})"}}, "Telling ops.")));
  EXPECT_EQ(outcome.stop_reason, StopReason::kMaxIterations);
  EXPECT_EQ(RenderResponse(outcome),
            "Telling ops.\n\n:::action\n{\"name\":\"notify\",\"arguments\":{\"to\":\"ops\"}}\n:::");
}

TEST(Turn, FailuresAndDeadlinesStopWithWhatTheTurnHad) {
  Turn turn(Prompt(), {}, 10);
  turn.Start();
  turn.OnModelReply(Calls({{"c", "lookup", "{}"}}, "partial answer"));
  EXPECT_EQ(OutcomeOf(turn.OnSoftDeadline()).stop_reason, StopReason::kTurnTimeout);
  EXPECT_EQ(OutcomeOf(turn.OnSoftDeadline()).reply_text, "partial answer");
  Turn failing(Prompt(), {}, 10);
  failing.Start();
  const auto outcome =
      OutcomeOf(failing.OnModelFailed(StopReason::kProviderError, "401 invalid key"));
  EXPECT_EQ(outcome.stop_reason, StopReason::kProviderError);
  EXPECT_EQ(outcome.failure, "401 invalid key");
  EXPECT_EQ(outcome.reply_text, "");
}

TEST(Turn, InvalidJsonArgumentsAreKeptAsAString) {
  Turn turn(Prompt(), {"act"}, 1);
  turn.Start();
  const auto outcome = OutcomeOf(turn.OnModelReply(Calls({{"a", "act", "not json"}})));
  EXPECT_EQ(RenderResponse(outcome),
            ":::action\n{\"name\":\"act\",\"arguments\":\"not json\"}\n:::");
}

TEST(StopReasons, HaveTheContractNames) {
  EXPECT_EQ(StopReasonName(StopReason::kMaxIterations), "max_iterations");
  EXPECT_EQ(StopReasonName(StopReason::kLoopDetected), "loop_detected");
  EXPECT_EQ(StopReasonName(StopReason::kLlmError), "llm_error");
  EXPECT_EQ(StopReasonName(StopReason::kProviderError), "provider_error");
  EXPECT_EQ(StopReasonName(StopReason::kTurnTimeout), "turn_timeout");
}

}  // namespace agentgate

namespace agentgate {

TEST(TurnApprovals, APausedTurnGoesOnFromItsProgressWhereItStopped) {
  ModelRequest request;
  request.messages.push_back(ChatMessage{Role::kUser, "refund A-1", {}, "", ""});
  Turn turn(request, {"file_case"}, 5);
  turn.Start();
  ModelReply reply;
  reply.text = "Checking.";
  reply.tool_calls = {{"c1", "refund", R"({"order":"A-1"})"}, {"c2", "file_case", "{}"}};
  auto step = turn.OnModelReply(reply);
  ASSERT_TRUE(std::holds_alternative<Turn::RunTools>(step));
  step = turn.OnApprovalNeeded();
  const auto& paused = std::get<Turn::Finish>(step).outcome;
  EXPECT_EQ(paused.stop_reason, StopReason::kApprovalRequired);
  EXPECT_EQ(paused.reply_text, "Checking.");
  const TurnProgress progress = turn.Progress();
  EXPECT_EQ(progress.model_calls, 1);
  ASSERT_EQ(progress.pending.size(), 2u);  // the action too: it is answered when the turn goes on

  Turn resumed(turn.request(), {"file_case"}, 5, progress);
  step = resumed.OnToolResults({ToolResult{"c1", "refund", "denied by an operator: no"}});
  ASSERT_TRUE(std::holds_alternative<Turn::CallModel>(step));
  const auto& sent = std::get<Turn::CallModel>(step).request->messages;
  ASSERT_EQ(sent.size(), 4u);
  EXPECT_EQ(sent[2].content, "denied by an operator: no");
  EXPECT_EQ(sent[3].content, Turn::kActionAcknowledgement);
  EXPECT_EQ(resumed.model_calls(), 2);
  ModelReply done;
  done.text = "I could not refund it.";
  const auto finished = std::get<Turn::Finish>(resumed.OnModelReply(done)).outcome;
  EXPECT_FALSE(finished.stop_reason);
  ASSERT_EQ(finished.actions.size(), 1u);  // the action recorded before the pause is kept
  EXPECT_EQ(finished.actions[0].name, "file_case");
}

}  // namespace agentgate

namespace agentgate {

TEST(TurnApprovals, AStepWhoseArgumentsAreWithheldEndsTheTurnWithoutAPause) {
  ModelRequest request;
  request.messages.push_back(ChatMessage{Role::kUser, "refund my card", {}, "", ""});
  Turn turn(request, {}, 5);
  turn.Start();
  ModelReply reply;
  reply.text = "Refunding.";
  reply.tool_calls = {{"c1", "refund", R"({"card":"4111 1111 1111 1111"})"}};
  ASSERT_TRUE(std::holds_alternative<Turn::RunTools>(turn.OnModelReply(reply)));
  const auto step = turn.OnApprovalWithheld();
  ASSERT_TRUE(std::holds_alternative<Turn::Finish>(step));
  const auto& outcome = std::get<Turn::Finish>(step).outcome;
  EXPECT_TRUE(outcome.approval_withheld);
  EXPECT_EQ(outcome.stop_reason, std::nullopt);
  EXPECT_EQ(outcome.reply_text, "Refunding.");
  EXPECT_EQ(turn.state(), Turn::State::kFinished);
}

}  // namespace agentgate

namespace agentgate {
namespace {

ModelRequest HeldToASchema() {
  ModelRequest r = Prompt();
  AnswerFormat format;
  format.schema = boost::json::parse(
      R"({"type": "object", "properties": {"amount": {"type": "number", "minimum": 0}},
          "required": ["amount"]})");
  r.answer_format = std::make_shared<const AnswerFormat>(std::move(format));
  return r;
}

}  // namespace

TEST(TurnAnswerSchema, AnAnswerThatKeepsToItFinishesWithItsOutput) {
  Turn turn(HeldToASchema(), {}, 10);
  turn.Start();
  const auto outcome = OutcomeOf(turn.OnModelReply(Text(R"({"amount": 12.5})")));
  EXPECT_FALSE(outcome.stop_reason);
  ASSERT_TRUE(outcome.output);
  EXPECT_EQ(outcome.output->at("amount"), 12.5);
  EXPECT_EQ(outcome.reply_text, R"({"amount": 12.5})");
}

TEST(TurnAnswerSchema, ABadAnswerIsRepairedOnceTheModelToldWhy) {
  Turn turn(HeldToASchema(), {}, 1);  // the repair is not held to max_iterations
  turn.Start();
  auto step = turn.OnModelReply(Text(R"({"amount": -3})"));
  ASSERT_TRUE(std::holds_alternative<Turn::CallModel>(step));
  const auto& repair = std::get<Turn::CallModel>(step).request->messages.back();
  EXPECT_EQ(repair.role, Role::kUser);
  EXPECT_NE(repair.content.find("$.amount: must be at least 0"), std::string::npos)
      << repair.content;
  EXPECT_EQ(turn.model_calls(), 2);
  const auto outcome = OutcomeOf(turn.OnModelReply(Text(R"({"amount": 3})")));
  EXPECT_FALSE(outcome.stop_reason);
  EXPECT_EQ(outcome.output->at("amount"), 3);
}

TEST(TurnAnswerSchema, AnAnswerStillBadAfterItsRepairEndsTheTurnInvalid) {
  Turn turn(HeldToASchema(), {}, 10);
  turn.Start();
  auto step = turn.OnModelReply(Text("Sure! The amount is 3."));
  ASSERT_TRUE(std::holds_alternative<Turn::CallModel>(step));
  EXPECT_NE(
      std::get<Turn::CallModel>(step).request->messages.back().content.find("not a JSON value"),
      std::string::npos);
  const auto outcome = OutcomeOf(turn.OnModelReply(Text(R"({"total": 3})")));
  EXPECT_EQ(outcome.stop_reason, StopReason::kInvalidOutput);
  EXPECT_EQ(StopReasonName(StopReason::kInvalidOutput), "invalid_output");
  EXPECT_FALSE(outcome.output);
  EXPECT_EQ(outcome.reply_text, R"({"total": 3})");
  EXPECT_EQ(turn.model_calls(), 2);
}

TEST(TurnAnswerSchema, ToolsRunBeforeTheAnswerAndTheRepairIsKeptAcrossAPause) {
  Turn turn(HeldToASchema(), {}, 10);
  turn.Start();
  ASSERT_TRUE(std::holds_alternative<Turn::CallModel>(turn.OnModelReply(Text("{}"))));
  auto step = turn.OnModelReply(Calls({{"c1", "lookup", "{}"}}));
  ASSERT_TRUE(std::holds_alternative<Turn::RunTools>(step));
  Turn resumed(turn.request(), {}, 10, turn.Progress());  // as a paused turn goes on
  step = resumed.OnToolResults({{"c1", "lookup", "12"}});
  ASSERT_TRUE(std::holds_alternative<Turn::CallModel>(step));
  EXPECT_EQ(OutcomeOf(resumed.OnModelReply(Text("{}"))).stop_reason, StopReason::kInvalidOutput);
}

TEST(TurnAnswerSchema, WithoutASchemaTextIsTheAnswerAsBefore) {
  Turn turn(Prompt(), {}, 10);
  turn.Start();
  const auto outcome = OutcomeOf(turn.OnModelReply(Text("not json")));
  EXPECT_FALSE(outcome.stop_reason);
  EXPECT_FALSE(outcome.output);
}

}  // namespace agentgate

namespace agentgate {

TEST(Turn, ACallOfTheCallersFunctionEndsTheTurnWithTheStepsCallsForTheCaller) {
  ModelRequest prompt = Prompt();
  prompt.required_tool = "weather";
  Turn turn(prompt, {}, 10);
  turn.SetCallerTools({"weather"});
  auto step = turn.Start();
  EXPECT_EQ(std::get<Turn::CallModel>(step).request->required_tool, "weather");
  // The agent's own lookup in the same step does not run: the step is the caller's.
  step = turn.OnModelReply(Calls({{"c1", "lookup", "{}"},
                                  {"c2", "weather", R"({"city":"Paris"})"},
                                  {"c3", "weather", R"({"city":"Rome"})"}},
                                 "Let me check."));
  const auto outcome = OutcomeOf(step);
  ASSERT_EQ(outcome.caller_calls.size(), 2u);
  EXPECT_EQ(outcome.caller_calls[0].id, "c2");
  EXPECT_EQ(outcome.caller_calls[1].arguments_json, R"({"city":"Rome"})");
  EXPECT_EQ(outcome.reply_text, "Let me check.");
  EXPECT_FALSE(outcome.stop_reason);
  EXPECT_EQ(turn.state(), Turn::State::kFinished);
  // The transcript keeps the calls the caller was given.
  ASSERT_EQ(turn.transcript().back().tool_calls.size(), 2u);
  EXPECT_FALSE(turn.request().required_tool);
}

TEST(Turn, TheForcedToolIsAskedOfTheFirstCallOnly) {
  ModelRequest prompt = Prompt();
  prompt.required_tool = "";
  Turn turn(prompt, {}, 10);
  turn.SetCallerTools({"weather"});
  turn.Start();
  auto step = turn.OnModelReply(Calls({{"c1", "lookup", "{}"}}));
  ASSERT_TRUE(std::holds_alternative<Turn::RunTools>(step));
  step = turn.OnToolResults({{"c1", "lookup", "found"}});
  EXPECT_FALSE(std::get<Turn::CallModel>(step).request->required_tool);
}

}  // namespace agentgate
