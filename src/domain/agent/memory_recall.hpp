#pragma once
// What a turn asks long-term memory: the terms of its message that can tell facts apart. The
// store's full-text engine (SQLite FTS5, PostgreSQL tsvector) ranks the facts holding any of them.

#include <cstdint>
#include <string>
#include <vector>

namespace agentgate {

// The message's distinct words (lower-cased letters and digits; UTF-8 beyond ASCII counts as
// letters) without common English stop words and one-letter words, at most `max_terms`, in order.
std::vector<std::string> RecallTerms(const std::string& message, std::size_t max_terms = 16);

// How many facts hold a term, as the store's engine counts or estimates it (0: none).
struct TermFrequency {
  std::string term;
  std::int64_t facts = 0;
};

// What a recall asks the engine. Ranking is paid per matching fact, so only the rarest terms
// whose matches together stay within the budget are searched: they are the ones that tell facts
// apart (a word most facts hold weighs next to nothing in bm25 or ts_rank). When even the rarest
// term is held by more facts than the budget, its newest holders are recalled unranked.
struct RecallPlan {
  std::vector<std::string> terms;  // empty: no fact can match
  bool ranked = true;
};

inline constexpr std::int64_t kRecallCandidateBudget = 1000;

RecallPlan PlanRecall(std::vector<TermFrequency> frequencies,
                      std::int64_t budget = kRecallCandidateBudget);

}  // namespace agentgate
