#pragma once
// How many facts hold a lexeme, estimated from the statistics ANALYZE keeps for memories.fact_tsv
// (pg_stats lists the most common lexemes with their share of rows). Reading pg_stats costs a few
// milliseconds, so the list is kept here and read again at most once a minute; it holds at most
// the statistics target's count of lexemes (1,000 by default) and is replaced, never grown.

#include "adapters/store_postgres/pg_db.hpp"
#include "domain/agent/memory_recall.hpp"

#include <chrono>
#include <mutex>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

namespace agentgate {

class LexemeStats {
 public:
  // A lexeme pg_stats does not list is rarer than every listed one: it is estimated at half the
  // rarest listed share, as PostgreSQL's planner does; with no statistics yet, every lexeme
  // counts as held by one fact.
  std::vector<TermFrequency> Estimate(pg::Connection& c, const std::vector<std::string>& lexemes);

 private:
  static constexpr auto kRefreshEvery = std::chrono::seconds(60);

  void Reload(pg::Connection& c);

  std::mutex mutex_;
  std::optional<std::chrono::steady_clock::time_point> loaded_at_;
  std::unordered_map<std::string, double> share_;  // lexeme -> share of rows holding it
  double rows_ = 0;
  double unlisted_share_ = 0;
};

}  // namespace agentgate
