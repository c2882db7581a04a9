#pragma once
// What "if_busy" does for each kind of call (docs/daemon.md, "When a conversation is busy"), as one
// table: which choices a kind may ask for, what its admission and its queueing do with a busy
// conversation, and what its turn does when it meets one.

#include "domain/agent/invoke_request.hpp"

#include <optional>

namespace agentgate::busy {

enum class CallKind { kCall, kStreamedRun, kBackgroundRun };

// What a turn does when its conversation is busy as it takes its place.
enum class AtTurn {
  kWait,       // waits in line
  kRefuse,     // 409 conversation_busy, unless its place is free at once
  kInterrupt,  // ends the turns ahead of it superseded, then runs next
};

struct BusyRule {
  bool allowed = true;                  // the kind may ask for it
  bool refused_at_admission = false;    // 409 as the run is admitted, the conversation busy then
  bool supersedes_when_queued = false;  // a queued run ends what is ahead of it as it is queued
  AtTurn at_turn = AtTurn::kWait;
};

BusyRule RuleOf(CallKind kind, std::optional<IfBusy> asked);

}  // namespace agentgate::busy
