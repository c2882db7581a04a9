#pragma once
// A quick run (docs/runs.md, "Where a run is kept"): one model call, answered whole, its reply sent
// in one delta, completed with nothing blocked or left to decide. Its result and its events between
// its start and its end are made again from a few facts (the model, the tokens, the cost, the
// reply), so its row keeps those instead of them: about 80 bytes and the reply, not 600. A run is
// packed so only when what its facts make is exactly what it had, byte for byte.

#include "domain/agent/invoke_body.hpp"
#include "domain/runs/run_events.hpp"

#include <array>
#include <optional>
#include <string>
#include <string_view>

namespace agentgate {

struct QuickRun {
  std::string provider;
  std::string model;
  std::int64_t input_tokens = 0;
  std::int64_t output_tokens = 0;
  double cost_usd = 0;
  std::string response;
};

// The facts of a turn that answered `result` as a quick run does; nullopt when it did not (its
// events are still to be checked: QuickRunCheck).
std::optional<QuickRun> QuickRunOf(const InvokeResult& result);
// The answer its facts make (no turn id: the run's row has it).
InvokeResult QuickRunResult(const QuickRun& run);
// Its events between its start (1) and its end (5), numbered.
std::array<RunEvent, 3> QuickRunEvents(const QuickRun& run);

// Checks a run's events, one at a time in order, against what its facts make of them: its start's
// data as `started` (RunStartedData), then QuickRunEvents. Both are viewed: they outlive the check.
class QuickRunCheck {
 public:
  QuickRunCheck(const std::array<RunEvent, 3>& between, std::string_view started)
      : between_(between), started_(started) {}
  void Add(const RunEvent& event);
  bool Same() const { return same_ && seen_ == between_.size() + 1; }

 private:
  const std::array<RunEvent, 3>& between_;
  std::string_view started_;
  std::size_t seen_ = 0;
  bool same_ = true;
};

}  // namespace agentgate
