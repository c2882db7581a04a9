#pragma once
// A quick run kept in its turn's row (docs/runs.md, "Where a run is kept"): a stateless streamed
// run that ended in its turn's commit, never written before, completed, its turn's id its own
// (domain/runs/run_ids). The SQLite store keeps it there rather than in a row of its own: a
// second row, its indexes and its pages were a tenth of such a turn's cost (docs/performance.md).
// The turn's row has its organization, environment, agent and id; this is the rest.

#include "ports/store_records.hpp"

#include <optional>
#include <string>
#include <string_view>

namespace agentgate {

// The run `commit` ends, when its turn's row can keep it: else nullptr (it gets a row of its own).
const RunWrite* RunKeptInTurn(const TurnCommit& commit);

// What the turn's row keeps of the run beside its result and events, in one column:
// "<status>\t<token_id>\t<server_id>\t<notify>\t<started_at_ms>\t<ended_at_ms>".
std::string PackRunInTurn(const RunRecord& run);

// The run back from its turn's row: the turn's id, organization, environment and agent, the run's
// creation, the packed column and its result as kept (ResultKeptInTurn). nullopt for a column
// that does not read back.
std::optional<RunRecord> RunInTurn(std::string_view turn_id, std::string org_id, std::string env,
                                   std::string agent_id, std::int64_t created_at_ms,
                                   std::string_view packed, std::string kept_result);

// What the turn's row keeps as the run's result: a quick run's facts, else the result itself.
inline std::string_view ResultKeptInTurn(const RunWrite& run) {
  return run.quick_result.empty() ? run.run.result_json : run.quick_result;
}

}  // namespace agentgate
