#pragma once
// A quick run (docs/runs.md, "Where a run is kept"): one model call, answered whole, completed
// with nothing blocked or left to decide. Its result, the plain call's body, is made again from a
// few facts (the model, the tokens, the cost, the reply), so its row may keep those instead: about
// 50 bytes and the reply, not 350. A result is kept so only when its facts make it exactly again.

#include "domain/agent/invoke_body.hpp"

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

// The facts of a turn that answered `result` as a quick run does: every field of the answer is
// what they make again (the turn's id aside: the row has it). nullopt when it did not.
std::optional<QuickRun> QuickRunOf(const InvokeResult& result);
// The answer its facts make (no turn id).
InvokeResult QuickRunResult(const QuickRun& run);

// As its row keeps them: "~<provider>\t<model>\t<input>\t<output>\t<cost>\t<response>", the
// cost as its bits in hex, the response last, with any byte. A result kept whole is JSON, which
// never starts with '~'.
std::string PackQuickRun(const QuickRun& run);
inline bool IsQuickRun(std::string_view kept) {
  return kept.starts_with('~');
}
// nullopt for a text that is not a quick run's facts, or does not read back.
std::optional<QuickRun> UnpackQuickRun(std::string_view kept);
// The result a row keeps, as the API shows it: its body, made from its facts for a quick run's;
// nullopt for facts that do not read back.
std::optional<std::string> KeptResultText(std::string kept);

}  // namespace agentgate
