#include "app/turn/invoke_body.hpp"

#include "domain/json_text.hpp"

#include <boost/json/array.hpp>
#include <boost/json/object.hpp>
#include <boost/json/parse.hpp>

#include <gtest/gtest.h>

namespace agentgate {
namespace {

InvokeResult Answered() {
  InvokeResult result;
  result.response = "Hello \"there\"\n";
  result.conversation_id = "conv_1";
  result.usage.input_tokens = 120;
  result.usage.output_tokens = 30;
  result.cost_usd = 0.0123;
  result.model_calls = 3;
  ModelUsage first{"openai", "gpt-4o", 2, 1, {}, 0.01};
  first.tokens = {100, 20, 40, 0};
  ModelUsage second{"anthropic", "claude", 1, 0, {}, 0.0023};
  second.tokens = {20, 10, 0, 5};
  result.models = {first, second};
  return result;
}

}  // namespace

// The SPEC §5 body, field for field and in its order, as Write writes the same tree.
TEST(InvokeBody, TheTextIsTheBodyInTheContractsOrder) {
  const InvokeResult result = Answered();
  boost::json::array models;
  for (const auto& m : result.models) {
    models.push_back(boost::json::object{{"provider", m.provider},
                                         {"model", m.model},
                                         {"calls", m.calls},
                                         {"failed_calls", m.failed_calls},
                                         {"input_tokens", m.tokens.input_tokens},
                                         {"cached_input_tokens", m.tokens.cached_input_tokens},
                                         {"cache_write_tokens", m.tokens.cache_write_tokens},
                                         {"output_tokens", m.tokens.output_tokens},
                                         {"cost_usd", m.cost_usd}});
  }
  boost::json::object same;
  same["response"] = result.response;
  same["blocked"] = false;
  same["conversation_id"] = "conv_1";
  same["terminated_reason"] = nullptr;
  same["usage"] = boost::json::object{{"input_tokens", 120},
                                      {"output_tokens", 30},
                                      {"cost_usd", 0.0123},
                                      {"model_calls", 3},
                                      {"models", std::move(models)}};
  same["output"] = nullptr;
  EXPECT_EQ(InvokeBodyText(result), json_text::Write(same));
  EXPECT_EQ(InvokeBody(result), same);
}

TEST(InvokeBody, AStatelessBlockedOrStoppedTurnSaysSo) {
  InvokeResult result;
  result.response = "[blocked]";
  result.blocked = true;
  result.stop_reason = StopReason::kMaxIterations;
  EXPECT_EQ(InvokeBodyText(result),
            R"({"response":"[blocked]","blocked":true,"conversation_id":null,)"
            R"("terminated_reason":"max_iterations","usage":{"input_tokens":0,"output_tokens":0,)"
            R"("cost_usd":0,"model_calls":0,"models":[]},"output":null})");
}

TEST(InvokeBody, AnAnswerHeldToASchemaCarriesItsParsedOutput) {
  InvokeResult result = Answered();
  result.response = R"({"escalate":true})";
  result.output = boost::json::parse(result.response);
  const auto body = boost::json::parse(InvokeBodyText(result)).as_object();
  EXPECT_EQ(body.at("response"), R"({"escalate":true})");
  EXPECT_EQ(body.at("output"), boost::json::parse(R"({"escalate":true})"));
}

TEST(InvokeBody, APausedTurnNamesItsRunAndTheCallsThatWait) {
  InvokeResult result = Answered();
  result.stop_reason = StopReason::kApprovalRequired;
  result.run_id = "run_1";
  result.pending_actions = {ToolCall{"call_1", "refund", R"({"amount":5})"}};
  const auto body = boost::json::parse(InvokeBodyText(result)).as_object();
  EXPECT_EQ(body.at("terminated_reason"), "approval_required");
  EXPECT_EQ(body.at("run_id"), "run_1");
  const auto& pending = body.at("pending_actions").as_array();
  ASSERT_EQ(pending.size(), 1u);
  EXPECT_EQ(pending[0].at("call_id"), "call_1");
  EXPECT_EQ(pending[0].at("tool"), "refund");
  EXPECT_EQ(pending[0].at("arguments").at("amount"), 5);
}

}  // namespace agentgate
