#pragma once
// The output safety policy of an agent version: block patterns (RE2, linear time on any input)
// and detectors for payment card numbers (Luhn-checked) and secrets (common API-key shapes).

#include "domain/admin/agent_config.hpp"

#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace re2 {
class RE2;
}

namespace agentgate {

class SafetyChecker {
 public:
  explicit SafetyChecker(const SafetyPolicy& policy);
  ~SafetyChecker();
  SafetyChecker(SafetyChecker&&) noexcept;

  // True when `text` must be withheld.
  bool Blocks(std::string_view text) const { return BlocksFrom(text, 0); }
  // The same, for a text no match can start before `from` in (HoldFrom's promise for the text it
  // was asked about, and for every text that grows from it): a check whose matches' length is
  // known reads from `from` on (with what comes before as context), so a growing reply's checks
  // read what is new rather than the whole of it again. One whose length is not known (a block
  // pattern without a bound, or with an operator's `max_match_bytes`) reads the whole text.
  bool BlocksFrom(std::string_view text, std::size_t from) const;
  // True when a tool call's arguments must be withheld: checked as they are shown (decoded, see
  // ShownArgumentsText) and as their JSON text, so no escape hides a match.
  bool BlocksArguments(std::string_view arguments_json) const;

  // For a text that Blocks passes and that may still grow: the first offset (at or after `from`,
  // an offset no match can start before) at which a match could start once more text follows.
  // What lies before it can be shown (docs/runs.md, "Safety on a stream"): a card number grows
  // only from a trailing run of digits and separators, a secret only from a trailing run that is
  // still a prefix of one of its forms, and a block pattern's match only within its bound of the
  // end (kDefaultPatternHold bytes for one without a bound). `text.size()` when nothing could.
  std::size_t HoldFrom(std::string_view text, std::size_t from) const;

  static constexpr std::size_t kDefaultPatternHold = 64;

 private:
  struct Pattern {
    std::unique_ptr<re2::RE2> compiled;
    std::size_t hold = kDefaultPatternHold;  // its longest match, in bytes
    bool bounded = false;                    // `hold` is derived from the pattern itself
  };
  std::vector<Pattern> patterns_;
  bool detect_credit_card_;
  bool detect_secret_;
};

// A run of 13-19 digits (spaces or dashes between them allowed) that passes the Luhn check.
bool ContainsCardNumber(std::string_view text);
// Shapes of well-known credentials: OpenAI/Anthropic keys, AWS access keys, GitHub and Slack
// tokens, Google API keys, PEM private keys, Salesforce session ids.
bool ContainsSecret(std::string_view text);
// Where the first secret ContainsSecret finds starts.
std::optional<std::size_t> FirstSecretAt(std::string_view text);
// Where, at or after `from`, a card number or a secret could start in `text` once more follows
// it (SafetyChecker::HoldFrom's parts); `text.size()` when nowhere.
std::size_t CardCouldStartAt(std::string_view text, std::size_t from);
std::size_t SecretCouldStartAt(std::string_view text, std::size_t from);

// What a person reads of a tool call's arguments: every string value and key of the JSON decoded,
// and every number as it is shown, one a line (so `(?m)^` patterns see what a reader sees).
// Arguments that are not JSON read as written.
std::string ShownArgumentsText(std::string_view arguments_json);
// The arguments as a paused call stores and shows them: the JSON written again (escapes decoded),
// so the text checked and the text shown are one; arguments that are not JSON stay as written.
std::string ShownArguments(std::string_view arguments_json);

}  // namespace agentgate
