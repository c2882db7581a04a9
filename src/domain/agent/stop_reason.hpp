#pragma once
// Why a turn ended early (SPEC §5). A normal finish has no reason.

#include <optional>
#include <string_view>

namespace agentgate {

enum class StopReason {
  kMaxIterations,
  kLoopDetected,
  kLlmError,
  kProviderError,
  kTurnTimeout,
  kSpendLimitReached,
  kApprovalRequired,  // paused before calls that need a person's approval (docs/daemon.md)
  kInputRequired,     // paused as above, and the model asked the user a question (docs/runs.md)
  kInvalidOutput,     // the final answer broke its schema, after one repair (structured-output.md)
};

std::string_view StopReasonName(StopReason reason);

// The run waits for someone: approvals, answers, or both.
inline bool Pauses(std::optional<StopReason> reason) {
  return reason == StopReason::kApprovalRequired || reason == StopReason::kInputRequired;
}

inline std::optional<std::string_view> StopReasonName(const std::optional<StopReason>& reason) {
  if (!reason) return std::nullopt;
  return StopReasonName(*reason);
}

}  // namespace agentgate
