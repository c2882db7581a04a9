#include "domain/runs/quick_run.hpp"

#include <gtest/gtest.h>

#include <functional>
#include <vector>

namespace agentgate {
namespace {

// A one-call turn's answer, as the turn makes it.
InvokeResult OneCall(std::string response = "All good.") {
  InvokeResult result;
  result.response = std::move(response);
  result.usage.input_tokens = 20;
  result.usage.output_tokens = 4;
  result.cost_usd = 0.1 + 0.2;  // no short decimal: its text must still read back the same
  result.model_calls = 1;
  result.models.push_back(ModelUsage{"bench", "gpt-bench", 1, 0, result.usage, result.cost_usd});
  result.turn_id = "turn_1";
  return result;
}

}  // namespace

TEST(QuickRun, AOneCallAnswerIsOneAndItsFactsMakeTheSameBody) {
  const InvokeResult result = OneCall("a \"quoted\"\treply\nwith lines ~");
  const auto quick = QuickRunOf(result);
  ASSERT_TRUE(quick);
  EXPECT_EQ(quick->provider, "bench");
  EXPECT_EQ(quick->model, "gpt-bench");
  EXPECT_EQ(InvokeBodyText(QuickRunResult(*quick)), InvokeBodyText(result));

  // Kept, read back and made again: the same body, byte for byte.
  const std::string kept = PackQuickRun(*quick);
  ASSERT_TRUE(IsQuickRun(kept));
  const auto back = UnpackQuickRun(kept);
  ASSERT_TRUE(back);
  EXPECT_EQ(back->cost_usd, result.cost_usd);  // exactly: the shortest text that reads back
  EXPECT_EQ(back->response, result.response);
  EXPECT_EQ(KeptResultText(kept), InvokeBodyText(result));
  // A result kept whole reads as it is.
  EXPECT_EQ(KeptResultText(R"({"response":"Hi"})"), R"({"response":"Hi"})");
}

// Each field its facts do not make, changed alone, makes its result one kept whole.
TEST(QuickRun, AnAnswerItsFactsDoNotMakeIsNotOne) {
  const std::vector<std::function<void(InvokeResult&)>> changes = {
      [](InvokeResult& r) { r.blocked = true; },
      [](InvokeResult& r) { r.conversation_id = "conv_1"; },
      [](InvokeResult& r) { r.stop_reason = StopReason::kMaxIterations; },
      [](InvokeResult& r) { r.model_calls = 2; },
      [](InvokeResult& r) { r.models.push_back(r.models.front()); },
      [](InvokeResult& r) { r.models.clear(); },
      [](InvokeResult& r) { r.models.front().failed_calls = 1; },
      [](InvokeResult& r) { r.models.front().calls = 2; },
      [](InvokeResult& r) { r.models.front().tokens.cached_input_tokens = 5; },
      [](InvokeResult& r) { r.usage.cache_write_tokens = 5; },
      [](InvokeResult& r) { r.models.front().cost_usd = 1; },
      [](InvokeResult& r) { r.models.front().tokens.input_tokens = 19; },
      [](InvokeResult& r) { r.run_id = "run_1"; },
      [](InvokeResult& r) {
        r.pending_actions.push_back(ToolCall{"c1", "lookup", "{}"});
      },
  };
  for (std::size_t i = 0; i < changes.size(); ++i) {
    InvokeResult result = OneCall();
    changes[i](result);
    EXPECT_FALSE(QuickRunOf(result)) << "change " << i;
  }
}

TEST(QuickRun, GarbledFactsReadAsNothing) {
  const std::string kept = PackQuickRun(*QuickRunOf(OneCall()));
  for (const std::string& garbled :
       {std::string("~bench\tgpt-bench\t20\t4"), std::string("~bench\tgpt-bench\tx\t4\t0.3\tok"),
        std::string("~bench\tgpt-bench\t20\t4\t0.3z\tok"), kept.substr(1)}) {
    EXPECT_FALSE(UnpackQuickRun(garbled)) << garbled;
  }
  EXPECT_FALSE(KeptResultText("~bench\tgpt-bench"));
}

}  // namespace agentgate
