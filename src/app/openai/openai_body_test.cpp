#include "app/openai/openai_body.hpp"

#include <gtest/gtest.h>
#include <boost/json/parse.hpp>

namespace agentgate {
namespace {

InvokeResult Answer() {
  InvokeResult result;
  result.response = "Order 42 ships today.";
  result.usage = TokenUsage{120, 8};
  result.cost_usd = 0.25;
  result.model_calls = 1;
  result.turn_id = "turn_0abc";
  return result;
}

TEST(ChatCompletionBodies, AWholeReplyIsTheOneChoiceWithItsUsageAndTheRestUnderAgentgate) {
  const auto parsed = boost::json::parse(ChatCompletionText(Answer(), "support:eu", 1795651200));
  const auto& body = parsed.as_object();
  EXPECT_EQ(body.at("id"), "chatcmpl-turn_0abc");
  EXPECT_EQ(body.at("object"), "chat.completion");
  EXPECT_EQ(body.at("created"), 1795651200);
  EXPECT_EQ(body.at("model"), "support:eu");
  const auto& choice = body.at("choices").as_array().at(0).as_object();
  EXPECT_EQ(choice.at("index"), 0);
  EXPECT_EQ(choice.at("finish_reason"), "stop");
  EXPECT_EQ(choice.at("message").at("role"), "assistant");
  EXPECT_EQ(choice.at("message").at("content"), "Order 42 ships today.");
  const auto& usage = body.at("usage").as_object();
  EXPECT_EQ(usage.at("prompt_tokens"), 120);
  EXPECT_EQ(usage.at("completion_tokens"), 8);
  EXPECT_EQ(usage.at("total_tokens"), 128);
  const auto& ours = body.at("agentgate").as_object();
  EXPECT_FALSE(ours.contains("response"));
  EXPECT_TRUE(ours.at("terminated_reason").is_null());
  EXPECT_EQ(ours.at("blocked"), false);
  EXPECT_EQ(ours.at("usage").at("cost_usd"), 0.25);
}

TEST(ChatCompletionBodies, StopReasonsMapToFinishReasons) {
  InvokeResult result = Answer();
  EXPECT_EQ(FinishReasonOf(result), "stop");
  for (const StopReason reason :
       {StopReason::kMaxIterations, StopReason::kLoopDetected, StopReason::kLlmError,
        StopReason::kProviderError, StopReason::kTurnTimeout, StopReason::kSpendLimitReached}) {
    result.stop_reason = reason;
    EXPECT_EQ(FinishReasonOf(result), "length") << StopReasonName(reason);
  }
  result.stop_reason = StopReason::kApprovalRequired;
  result.run_id = "run_1";
  result.pending_actions = {ToolCall{"call_0", "refund", R"({"order":"A-1"})"}};
  EXPECT_EQ(FinishReasonOf(result), "stop");
  const auto paused = boost::json::parse(ChatCompletionText(result, "shop", 1));
  EXPECT_EQ(paused.at("agentgate").at("terminated_reason"), "approval_required");
  EXPECT_EQ(paused.at("agentgate").at("run_id"), "run_1");
  EXPECT_EQ(paused.at("agentgate").at("pending_actions").as_array().at(0).at("tool"), "refund");
  result.blocked = true;  // the placeholder, whatever else stopped
  EXPECT_EQ(FinishReasonOf(result), "content_filter");
}

}  // namespace
}  // namespace agentgate
