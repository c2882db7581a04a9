#pragma once
// A run's id and its turn's id (docs/runs.md, "Where a run is kept"): a quick stateless streamed
// run's turn takes the run's id with the turn's prefix, so a store can keep the run in its turn's
// row and find it through the turn's key.

#include <string>
#include <string_view>

namespace agentgate {

inline constexpr std::string_view kRunIdPrefix = "run_";
inline constexpr std::string_view kTurnIdPrefix = "turn_";

// "run_X" -> "turn_X"; "" for what is not a run's id.
inline std::string TurnIdOfRun(std::string_view run_id) {
  if (!run_id.starts_with(kRunIdPrefix) || run_id.size() == kRunIdPrefix.size()) return {};
  std::string id(kTurnIdPrefix);
  id += run_id.substr(kRunIdPrefix.size());
  return id;
}

// "turn_X" -> "run_X"; "" for what is not a turn's id.
inline std::string RunIdOfTurn(std::string_view turn_id) {
  if (!turn_id.starts_with(kTurnIdPrefix) || turn_id.size() == kTurnIdPrefix.size()) return {};
  std::string id(kRunIdPrefix);
  id += turn_id.substr(kTurnIdPrefix.size());
  return id;
}

// Whether `turn_id` is `run_id`'s turn's (TurnIdOfRun), with no id made for the question.
inline bool IsTurnOfRun(std::string_view turn_id, std::string_view run_id) {
  return run_id.starts_with(kRunIdPrefix) && run_id.size() > kRunIdPrefix.size() &&
         turn_id.starts_with(kTurnIdPrefix) &&
         turn_id.substr(kTurnIdPrefix.size()) == run_id.substr(kRunIdPrefix.size());
}

}  // namespace agentgate
