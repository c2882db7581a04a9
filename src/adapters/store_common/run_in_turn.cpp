#include "adapters/store_common/run_in_turn.hpp"

#include "domain/runs/quick_run.hpp"
#include "domain/runs/run_ids.hpp"
#include "domain/tab_fields.hpp"

#include <array>

namespace agentgate {

const RunWrite* RunKeptInTurn(const TurnCommit& commit) {
  if (!commit.ended_run) return nullptr;
  const RunWrite& write = *commit.ended_run;
  const RunRecord& run = write.run;
  const bool kept = write.kind == RunWrite::Kind::kCreateEnded &&
                    run.status == RunStatus::kCompleted && run.error_json.empty() &&
                    run.conversation_id.empty() && commit.turn.conversation_id.empty() &&
                    run.org_id == commit.turn.org_id && run.env == commit.turn.env &&
                    run.agent_id == commit.turn.agent_id && IsTurnOfRun(commit.turn.id, run.id);
  return kept ? &write : nullptr;
}

std::string PackRunInTurn(const RunRecord& run) {
  const std::string_view status = RunStatusName(run.status);
  std::string packed;
  // Its room at once (it is made on the commit thread): the two times take 20 digits at most.
  packed.reserve(status.size() + run.token_id.size() + run.server_id.size() + 48);
  packed += status;
  for (const std::string* text : {&run.token_id, &run.server_id}) {
    packed += '\t';
    packed += *text;
  }
  packed += run.notify ? "\t1" : "\t0";
  for (const std::int64_t ms : {run.started_at_ms, run.ended_at_ms}) {
    packed += '\t';
    tab_fields::AppendInteger(packed, ms);
  }
  return packed;
}

namespace {

constexpr std::size_t kPackedFields = 6;

}  // namespace

std::optional<RunRecord> RunInTurn(std::string_view turn_id, std::string org_id, std::string env,
                                   std::string agent_id, std::int64_t created_at_ms,
                                   std::string_view packed, std::string kept_result) {
  std::array<std::string_view, kPackedFields> fields;
  for (std::size_t i = 0; i < kPackedFields; ++i) {
    const auto tab = packed.find('\t');
    const bool last = i + 1 == kPackedFields;
    if (last != (tab == std::string_view::npos)) return std::nullopt;
    fields[i] = packed.substr(0, tab);
    if (!last) packed.remove_prefix(tab + 1);
  }
  auto result = KeptResultText(std::move(kept_result));
  if (!result) return std::nullopt;
  RunRecord run;
  run.id = RunIdOfTurn(turn_id);
  const auto status = ParseRunStatus(fields[0]);
  if (run.id.empty() || !status || (fields[3] != "0" && fields[3] != "1") ||
      !tab_fields::Integer(fields[4], run.started_at_ms) ||
      !tab_fields::Integer(fields[5], run.ended_at_ms))
    return std::nullopt;
  run.status = *status;
  run.org_id = std::move(org_id);
  run.env = std::move(env);
  run.agent_id = std::move(agent_id);
  run.token_id = std::string(fields[1]);
  run.server_id = std::string(fields[2]);
  run.notify = fields[3] == "1";
  run.created_at_ms = created_at_ms;
  run.result_json = std::move(*result);
  return run;
}

}  // namespace agentgate
