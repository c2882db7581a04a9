#pragma once
// The `summarize` history strategy's pure part: what the agent's own model is asked when turns no
// longer fit the input budget, and how large its summary may grow.

#include "domain/admin/agent_config.hpp"
#include "domain/agent/model_types.hpp"

#include <cstdint>
#include <string>
#include <vector>

namespace agentgate {

// A conversation's running summary: the gist of every message up to `through_seq` (0: none yet).
struct HistorySummary {
  std::string text;
  std::int64_t through_seq = 0;
};

// The request that folds `folded` (the oldest turns that no longer fit, oldest first) into
// `previous`: no tools, the config's model and temperature, at most SummaryMaxTokens of answer.
ModelRequest SummaryRequest(const AgentConfig& config, const std::string& previous,
                            const std::vector<ChatMessage>& folded);

// A quarter of the input budget, within [64, model.max_output_tokens]: the summary must leave
// room for the turns it precedes.
std::int64_t SummaryMaxTokens(const AgentConfig& config);

}  // namespace agentgate
