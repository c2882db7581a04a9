#pragma once
// The operator's record of one turn (GET /admin/v1/orgs/{org}/turns/{id}): the system prompt as it
// may be stored (without the call's additional instructions and host context), the messages and
// tool calls the turn added (the history it was sent is in the conversation already: only its
// length is kept, so a record does not grow with the conversation), each model call's time and
// tokens, and what failed. When the safety policy withheld the reply, every text the model wrote
// is withheld here too.

#include "domain/agent/model_types.hpp"
#include "domain/agent/turn.hpp"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace agentgate {

struct ModelCallRecord {
  double seconds = 0;
  std::int64_t input_tokens = 0;
  std::int64_t output_tokens = 0;
  std::string failure;        // empty when the model answered
  std::string provider = {};  // the model called (an agent's fallbacks may answer for it)
  std::string model = {};
  std::size_t key = 0;                   // which of the provider's keys (its place in the pool)
  std::int64_t cached_input_tokens = 0;  // part of input_tokens
  std::int64_t cache_write_tokens = 0;   // part of input_tokens
};

// Where a turn folded older history into the conversation's summary (strategy summarize), or
// tried to: the summary covers messages 1..through_seq from this turn on.
struct SummaryRecord {
  std::int64_t through_seq = 0;
  std::size_t messages_folded = 0;
  std::string text;     // the new summary; empty when none was made
  std::string skipped;  // why none was made (a spend limit, the model failed)
  bool called = false;  // the model was called (a spend limit may refuse the call first)
  ModelCallRecord call;
};

// `messages` begins with the `history_sent` messages of the conversation the model was sent.
// `notes` say what the turn went without (an MCP server that could not be reached).
std::string TranscriptJson(const std::string& system, const std::vector<ChatMessage>& messages,
                           std::size_t history_sent, const std::vector<ModelCallRecord>& calls,
                           const TurnOutcome& outcome, bool blocked,
                           const std::vector<std::string>& notes = {},
                           const std::optional<SummaryRecord>& summary = std::nullopt);

}  // namespace agentgate
