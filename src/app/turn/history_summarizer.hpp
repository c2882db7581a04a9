#pragma once
// The `summarize` history strategy's model call: folds the oldest turns that no longer fit into
// the conversation's running summary. It is one of the turn's model calls (reserved and settled
// against the spend limits, counted in usage, within the soft deadline, canceled with the turn);
// refused or failed, it leaves the turn to the window strategy and never fails it.

#include "app/turn/metered_model.hpp"
#include "domain/admin/agent_config.hpp"
#include "domain/agent/model_types.hpp"
#include "domain/agent/transcript.hpp"
#include "ports/store_records.hpp"

#include <boost/asio/awaitable.hpp>

#include <chrono>
#include <optional>
#include <vector>

namespace agentgate {

struct SummaryStep {
  std::optional<ConversationSummary> made;  // committed with the turn; absent when skipped
  SummaryRecord record;                     // for the turn's transcript
  TokenUsage usage;
  double cost_usd = 0;
};

// `folded` are the oldest messages that did not fit, the last of them numbered `through_seq`.
// An error only when the store failed (as MeteredModel::Complete).
boost::asio::awaitable<Result<SummaryStep>> SummarizeHistory(MeteredModel& metered,
                                                             const AgentConfig& config,
                                                             const ConversationSummary& previous,
                                                             const std::vector<ChatMessage>& folded,
                                                             std::int64_t through_seq,
                                                             std::chrono::milliseconds time_left);

}  // namespace agentgate
