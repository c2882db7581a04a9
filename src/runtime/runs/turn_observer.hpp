#pragma once
// Whoever follows a turn as it happens (a run's recorder, docs/runs.md): the turn's phases report
// its steps to it. A plain turn has none and builds no event.

#include "domain/runs/run_events.hpp"
#include "ports/store_records.hpp"

#include <cstdint>
#include <optional>
#include <string>
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
  // False while that run is not in the store yet (a short streamed run is written at its end,
  // docs/runs.md): a pause then writes it.
  virtual bool RunStored() const { return true; }
  // A run the store does not have yet ends with its turn, in the turn's commit (one write for
  // both, docs/runs.md): the write that ends it completed with `result_json` (the invoke's 200
  // body), or none when it ends on its own afterwards. Asked only of a turn that completes (not a
  // pause) and is about to commit, and only when RunStored() is false.
  virtual std::optional<RunWrite> EndWithTurn(std::string /*result_json*/,
                                              std::int64_t /*now_ms*/) {
    return std::nullopt;
  }
  // That commit's outcome: written, the run has ended; refused or failed, the run ends on its own.
  virtual void TurnCommitted(bool /*written*/) {}
};

}  // namespace agentgate
