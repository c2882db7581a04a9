#include "domain/agent/busy_rules.hpp"

namespace agentgate::busy {

BusyRule RuleOf(CallKind kind, std::optional<IfBusy> asked) {
  BusyRule rule;
  if (kind == CallKind::kBackgroundRun) {
    // Its choice is done as it is queued: its place taken in line then, or refused then. Its turn
    // holds the place it took, and is not kept with its choice.
    const IfBusy choice = asked.value_or(IfBusy::kReject);
    rule.allowed = choice != IfBusy::kWait;
    rule.refused_at_admission = choice == IfBusy::kReject;
    rule.supersedes_when_queued = choice == IfBusy::kInterrupt;
    return rule;
  }
  // A plain call or a streamed run waits unless told otherwise; a streamed run asking to be
  // refused is refused as it is admitted too, before its stream begins.
  const IfBusy choice = asked.value_or(IfBusy::kWait);
  rule.allowed = choice != IfBusy::kEnqueue;
  rule.refused_at_admission = kind == CallKind::kStreamedRun && choice == IfBusy::kReject;
  rule.at_turn = choice == IfBusy::kReject      ? AtTurn::kRefuse
                 : choice == IfBusy::kInterrupt ? AtTurn::kInterrupt
                                                : AtTurn::kWait;
  return rule;
}

}  // namespace agentgate::busy
