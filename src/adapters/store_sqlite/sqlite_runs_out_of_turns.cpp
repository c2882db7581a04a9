// Migration 23 (docs/runs.md, "Where a run is kept"): a run kept in its turn's row moves to a
// `runs` row of its own, before the turn's four run columns are dropped. The forms those columns
// held are decoded here, frozen as the builds that wrote them wrote them: nothing else reads them.
#include "adapters/store_common/tab_fields.hpp"
#include "adapters/store_sqlite/sqlite_store.hpp"
#include "domain/json_text.hpp"
#include "domain/resource_ids.hpp"
#include "observability/log.hpp"

#include <array>
#include <bit>
#include <optional>

namespace agentgate {

namespace {

using tab_fields::Integer;
using tab_fields::Next;

// "~<provider>\t<model>\t<input>\t<output>\t<cost as its bits in hex>\t<response>": a quick run's
// facts, made back into the invoke's 200 body they stood for (no turn id, one model call).
std::optional<std::string> QuickRunBody(std::string_view kept) {
  kept.remove_prefix(1);
  std::string_view provider, model, input_text, output_text, cost_text;
  std::int64_t input = 0, output = 0;
  std::uint64_t cost_bits = 0;
  if (!Next(kept, provider) || !Next(kept, model) || !Next(kept, input_text) ||
      !Next(kept, output_text) || !Next(kept, cost_text) || !Integer(input_text, input) ||
      !Integer(output_text, output) || !Integer(cost_text, cost_bits, 16))
    return std::nullopt;
  const double cost = std::bit_cast<double>(cost_bits);
  json_text::ObjectWriter body(256 + kept.size());
  body.String("response", kept).Bool("blocked", false).Null("conversation_id");
  body.Null("terminated_reason")
      .Object("usage")
      .Int("input_tokens", input)
      .Int("output_tokens", output)
      .Number("cost_usd", cost)
      .Int("model_calls", 1)
      .Array("models")
      .Object()
      .String("provider", provider)
      .String("model", model)
      .Int("calls", 1)
      .Int("failed_calls", 0)
      .Int("input_tokens", input)
      .Int("cached_input_tokens", 0)
      .Int("cache_write_tokens", 0)
      .Int("output_tokens", output)
      .Number("cost_usd", cost)
      .End()
      .End()
      .End();
  return body.Finish();
}

// The run's column: "<status>\t<token_id>\t<server_id>\t<notify>\t<started_at_ms>\t<ended_at_ms>".
struct KeptRun {
  std::string_view status, token_id, server_id;
  bool notify = false;
  std::int64_t started_at_ms = 0, ended_at_ms = 0;
};

std::optional<KeptRun> KeptRunOf(std::string_view packed) {
  std::array<std::string_view, 5> fields;
  for (auto& field : fields) {
    if (!Next(packed, field)) return std::nullopt;
  }
  KeptRun run{fields[0], fields[1], fields[2], fields[3] == "1"};
  if ((fields[3] != "0" && fields[3] != "1") || !Integer(fields[4], run.started_at_ms) ||
      !Integer(packed, run.ended_at_ms))
    return std::nullopt;
  return run;
}

}  // namespace

void MoveRunsOutOfTurns(sqlite::Connection& c) {
  auto kept = c.Prepare(
      "SELECT id, org_id, env, agent_id, run_created_at_ms, run, run_result, run_events FROM "
      "turns WHERE run_created_at_ms > 0");
  static constexpr const char* kInsert =
      "INSERT INTO runs(id, org_id, env, agent_id, token_id, status, conversation_id, "
      "creates_conversation, created_at_ms, started_at_ms, ended_at_ms, server_id, notify, "
      "result, error, events) VALUES (?, ?, ?, ?, ?, ?, '', 0, ?, ?, ?, ?, ?, ?, '', ?) ON "
      "CONFLICT(id) DO NOTHING";
  std::int64_t moved = 0, unreadable = 0;
  while (kept.Step()) {
    // Such a turn took its run's id: "turn_X" kept "run_X".
    const std::string turn_id = kept.Text(0);
    const std::string packed = kept.Text(5), result_kept = kept.Text(6);
    const auto run = KeptRunOf(packed);
    const auto result = result_kept.starts_with('~') ? QuickRunBody(result_kept)
                                                     : std::optional<std::string>(result_kept);
    if (!turn_id.starts_with(ids::kTurn) || !run || !result) {
      // The builds that wrote it could not read it back either: it showed as no run.
      ++unreadable;
      continue;
    }
    c.Prepare(kInsert)
        .Bind(ids::RunOfTurn(turn_id), kept.Text(1), kept.Text(2), kept.Text(3), run->token_id,
              run->status, kept.Int(4), run->started_at_ms, run->ended_at_ms, run->server_id,
              run->notify, *result, kept.Text(7))
        .Run();
    ++moved;
  }
  log::Info("runs_moved_out_of_turns", {{"runs", moved}, {"unreadable", unreadable}});
}

}  // namespace agentgate
