#include "app/turn/history_summarizer.hpp"

#include "domain/agent/history_summary.hpp"

namespace agentgate {

namespace asio = boost::asio;

asio::awaitable<Result<SummaryStep>> SummarizeHistory(MeteredModel& metered,
                                                      const AgentConfig& config,
                                                      const ConversationSummary& previous,
                                                      const std::vector<ChatMessage>& folded,
                                                      std::int64_t through_seq,
                                                      std::chrono::milliseconds time_left) {
  SummaryStep step;
  step.record.messages_folded = folded.size();
  if (time_left <= std::chrono::milliseconds(0)) {
    step.record.skipped = "no time was left before the soft deadline";
    co_return step;
  }
  const ModelRequest request = SummaryRequest(config, previous.text, folded);
  MeteredCall call;
  const ModelCallOptions plain;  // a value in this frame: never a temporary across the co_await
  AG_CO_TRYV(co_await metered.Complete(request, time_left, call, plain, nullptr));
  if (call.refused) {
    step.record.skipped = "the " + call.refused->scope + "'s monthly spend limit is reached";
    co_return step;
  }
  step.record.called = true;
  step.record.call = call.record;
  step.cost_usd = call.cost_usd;
  const auto* reply = std::get_if<ModelReply>(&call.result);
  if (reply == nullptr) {
    step.record.skipped = "the model failed: " + std::get<ModelFailure>(call.result).message;
    co_return step;
  }
  step.usage = reply->usage;
  if (reply->text.empty()) {
    step.record.skipped = "the model answered without text";
    co_return step;
  }
  step.record.text = reply->text;
  step.record.through_seq = through_seq;
  step.made = ConversationSummary{reply->text, through_seq};
  co_return step;
}

}  // namespace agentgate
