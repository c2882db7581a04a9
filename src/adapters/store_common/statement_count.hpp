#pragma once
// How many SQL statements this process has run against its store, either engine: the store's
// load as /metrics shows it (agentgate_store_statements_total), so an operator (and the followers
// bench) sees what a feature costs the database.

#include <atomic>
#include <cstdint>

namespace agentgate::store_statements {

inline std::atomic<std::int64_t>& Counter() {
  static std::atomic<std::int64_t> statements{0};
  return statements;
}

// An engine calls this for each statement it sends (transaction control included).
inline void Count() {
  Counter().fetch_add(1, std::memory_order_relaxed);
}

inline std::int64_t Run() {
  return Counter().load(std::memory_order_relaxed);
}

}  // namespace agentgate::store_statements
