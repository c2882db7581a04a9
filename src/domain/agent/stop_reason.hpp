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
  kInvalidOutput,     // the final answer broke its schema, after one repair (structured-output.md)
};

std::string_view StopReasonName(StopReason reason);

inline std::optional<std::string_view> StopReasonName(const std::optional<StopReason>& reason) {
  if (!reason) return std::nullopt;
  return StopReasonName(*reason);
}

}  // namespace agentgate
