#include "domain/runs/quick_run.hpp"

namespace agentgate {

std::optional<QuickRun> QuickRunOf(const InvokeResult& result) {
  if (result.models.size() != 1) return std::nullopt;
  const ModelUsage& only = result.models.front();
  QuickRun run{
      only.provider,   only.model,     result.usage.input_tokens, result.usage.output_tokens,
      result.cost_usd, result.response};
  // Every field the answer has, compared: one its facts do not make is not a quick run's.
  InvokeResult made = QuickRunResult(run);
  made.turn_id = result.turn_id;
  if (!(made == result)) return std::nullopt;
  return run;
}

InvokeResult QuickRunResult(const QuickRun& run) {
  InvokeResult result;
  result.response = run.response;
  result.usage.input_tokens = run.input_tokens;
  result.usage.output_tokens = run.output_tokens;
  result.cost_usd = run.cost_usd;
  result.model_calls = 1;
  ModelUsage only{run.provider, run.model, 1, 0, result.usage, run.cost_usd};
  result.models.push_back(std::move(only));
  return result;
}

std::array<RunEvent, 3> QuickRunEvents(const QuickRun& run) {
  std::array<RunEvent, 3> events{
      run_events::ModelStarted(1, run.provider, run.model),
      run_events::ModelFinished(1, run.input_tokens, run.output_tokens, run.cost_usd),
      run_events::TextDelta(run.response, 1)};
  for (std::size_t i = 0; i < events.size(); ++i) events[i].seq = static_cast<std::int64_t>(i) + 2;
  return events;
}

void QuickRunCheck::Add(const RunEvent& event) {
  const std::size_t at = seen_++;
  if (!same_) return;
  if (at == 0) {
    same_ = event.seq == 1 && event.type == "run.started" && event.data == started_;
    return;
  }
  const RunEvent* expected = at <= between_.size() ? &between_[at - 1] : nullptr;
  same_ = expected != nullptr && event.seq == expected->seq && event.type == expected->type &&
          event.data == expected->data;
}

}  // namespace agentgate
