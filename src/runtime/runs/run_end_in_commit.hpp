#pragma once
// A run whose end may ride in its turn's commit (docs/runs.md: a short streamed run a SQLite
// server alone on its store writes once, at its end): what the turn's commit asks of it. The
// turn's command carries it beside its observer, which only hears what happened. It is asked, not
// given as a value, because whether the run can still end in the commit depends on what its
// recorder is writing at that moment.

#include "ports/store_records.hpp"

#include <cstdint>
#include <optional>
#include <string>

namespace agentgate {

class RunEndInCommit {
 public:
  virtual ~RunEndInCommit() = default;
  // False while the run is not in the store yet: a pause then writes it.
  virtual bool RunStored() const = 0;
  // The write that ends the run, not in the store yet, completed with `result_json` (the invoke's
  // 200 body) in the turn's commit, or none when it ends on its own afterwards. Asked only of a
  // turn that completes (not a pause) and is about to commit.
  virtual std::optional<RunWrite> EndWithTurn(std::string result_json, std::int64_t now_ms) = 0;
  // That commit's outcome: written, the run has ended; refused or failed, it ends on its own.
  virtual void TurnCommitted(bool written) = 0;
};

}  // namespace agentgate
