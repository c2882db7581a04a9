#include "domain/runs/quick_run.hpp"

#include "domain/tab_fields.hpp"

#include <bit>

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

std::string PackQuickRun(const QuickRun& run) {
  std::string kept;
  kept.reserve(run.provider.size() + run.model.size() + run.response.size() + 64);
  kept += '~';
  kept += run.provider;
  kept += '\t';
  kept += run.model;
  for (const std::int64_t tokens : {run.input_tokens, run.output_tokens}) {
    kept += '\t';
    tab_fields::AppendInteger(kept, tokens);
  }
  kept += '\t';
  // Its bits, in hex: exact, and a fifth of the work of its shortest decimal.
  tab_fields::AppendInteger(kept, std::bit_cast<std::uint64_t>(run.cost_usd), 16);
  kept += '\t';
  kept += run.response;
  return kept;
}

using tab_fields::Integer;
using tab_fields::Next;

std::optional<QuickRun> UnpackQuickRun(std::string_view kept) {
  if (!IsQuickRun(kept)) return std::nullopt;
  kept.remove_prefix(1);
  std::string_view provider, model, input, output, cost;
  QuickRun run;
  std::uint64_t cost_bits = 0;
  if (!Next(kept, provider) || !Next(kept, model) || !Next(kept, input) || !Next(kept, output) ||
      !Next(kept, cost) || !Integer(input, run.input_tokens) ||
      !Integer(output, run.output_tokens) || !Integer(cost, cost_bits, 16))
    return std::nullopt;
  run.cost_usd = std::bit_cast<double>(cost_bits);
  run.provider = std::string(provider);
  run.model = std::string(model);
  run.response = std::string(kept);
  return run;
}

std::optional<std::string> KeptResultText(std::string kept) {
  if (!IsQuickRun(kept)) return kept;
  const auto quick = UnpackQuickRun(kept);
  if (!quick) return std::nullopt;
  return InvokeBodyText(QuickRunResult(*quick));
}

}  // namespace agentgate
