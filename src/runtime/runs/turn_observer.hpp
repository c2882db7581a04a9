#pragma once
// Whoever follows a turn as it happens (a run's recorder, docs/runs.md; MCP progress): the turn's
// phases report its steps to it, and that is all it hears. A plain turn has none and builds no
// event.

#include "domain/runs/run_events.hpp"

#include <string_view>

namespace agentgate {

class TurnObserver {
 public:
  virtual ~TurnObserver() = default;
  // On the turn's event loop, as each step happens; must not block.
  virtual void Report(RunEvent event) = 0;
  // True when it shows the reply as the model writes it: the model is then asked to stream, and
  // text.delta events come as the safety hold-back releases them (domain/runs/reply_stream).
  virtual bool FollowsText() const { return false; }
  // The run the turn is, if it is one (its id goes on the turn's span).
  virtual std::string_view RunId() const { return {}; }
};

}  // namespace agentgate
