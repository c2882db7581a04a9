#include "domain/agent/safety.hpp"

#include "domain/agent/pattern_bound.hpp"

#include <re2/re2.h>
#include <boost/json/parse.hpp>
#include <boost/json/serialize.hpp>
#include <boost/json/value.hpp>

#include <algorithm>

namespace agentgate {
namespace {

bool LuhnValid(const std::string& digits) {
  int sum = 0;
  bool twice = false;
  for (auto it = digits.rbegin(); it != digits.rend(); ++it) {
    int d = *it - '0';
    if (twice) {
      d *= 2;
      if (d > 9) d -= 9;
    }
    sum += d;
    twice = !twice;
  }
  return sum % 10 == 0;
}

// The whole pattern is one group, so a match's place can be read.
const re2::RE2& SecretPattern() {
  static const re2::RE2 pattern(
      R"(((?:sk-(?:ant-|proj-)?[A-Za-z0-9_\-]{20,})|(?:AKIA[0-9A-Z]{16})|(?:gh[pousr]_[A-Za-z0-9]{36,})|)"
      R"((?:xox[abprs]-[A-Za-z0-9\-]{10,})|(?:AIza[0-9A-Za-z_\-]{35})|(?:-----BEGIN [A-Z ]*PRIVATE KEY-----)|)"
      R"((?:00D[A-Za-z0-9]{12,15}![A-Za-z0-9._]{20,})))");
  return pattern;
}

// Every proper prefix of a match of SecretPattern (and more: a superset is safe), ending at the
// end of the text. The forms' tails are runs of their classes, so a prefix is the form's literal
// head, cut anywhere, then any run of its class.
const re2::RE2& SecretPrefixPattern() {
  static const re2::RE2 pattern(
      R"(((?:s|sk|sk-[A-Za-z0-9_\-]*)|(?:A|AK|AKI|AKIA[0-9A-Z]{0,16})|)"
      R"((?:g|gh|gh[pousr]|gh[pousr]_[A-Za-z0-9]*)|(?:x|xo|xox|xox[abprs]|xox[abprs]-[A-Za-z0-9\-]*)|)"
      R"((?:AI|AIz|AIza[0-9A-Za-z_\-]{0,35})|(?:-{1,5}|-----B(?:E(?:G(?:I(?:N(?: [A-Z ]*-{0,4})?)?)?)?)?)|)"
      R"((?:0|00|00D[A-Za-z0-9]{0,15}|00D[A-Za-z0-9]{12,15}![A-Za-z0-9._]*))\z)");
  return pattern;
}

bool IsCardCharacter(char c) {
  return (c >= '0' && c <= '9') || c == ' ' || c == '-';
}

void AppendShown(const boost::json::value& v, std::string& out) {
  const auto line = [&out](std::string_view text) {
    if (!out.empty()) out += '\n';
    out += text;
  };
  switch (v.kind()) {
    case boost::json::kind::string:
      line(v.get_string());
      break;
    case boost::json::kind::int64:
    case boost::json::kind::uint64:
    case boost::json::kind::double_:
      line(boost::json::serialize(v));
      break;
    case boost::json::kind::array:
      for (const auto& item : v.get_array()) AppendShown(item, out);
      break;
    case boost::json::kind::object:
      for (const auto& member : v.get_object()) {
        line(member.key());
        AppendShown(member.value(), out);
      }
      break;
    default:  // null and booleans show nothing a check could match
      break;
  }
}

}  // namespace

std::string ShownArgumentsText(std::string_view arguments_json) {
  boost::system::error_code ec;
  const auto parsed = boost::json::parse(arguments_json, ec);
  if (ec) return std::string(arguments_json);
  std::string out;
  AppendShown(parsed, out);
  return out;
}

std::string ShownArguments(std::string_view arguments_json) {
  boost::system::error_code ec;
  const auto parsed = boost::json::parse(arguments_json, ec);
  return ec ? std::string(arguments_json) : boost::json::serialize(parsed);
}

bool ContainsCardNumber(std::string_view text) {
  std::string digits;
  std::size_t i = 0;
  while (i <= text.size()) {
    const char c = i < text.size() ? text[i] : '\0';
    if (c >= '0' && c <= '9') {
      digits += c;
    } else if ((c == ' ' || c == '-') && !digits.empty() && i + 1 < text.size() &&
               text[i + 1] >= '0' && text[i + 1] <= '9') {
      // a separator inside a number
    } else {
      if (digits.size() >= 13 && digits.size() <= 19 && LuhnValid(digits)) return true;
      // Longer runs may hide a card number inside; check every window.
      if (digits.size() > 19) {
        for (std::size_t len = 13; len <= 19; ++len) {
          for (std::size_t start = 0; start + len <= digits.size(); ++start) {
            if (LuhnValid(digits.substr(start, len))) return true;
          }
        }
      }
      digits.clear();
    }
    ++i;
  }
  return false;
}

bool ContainsSecret(std::string_view text) {
  return re2::RE2::PartialMatch(re2::StringPiece(text.data(), text.size()), SecretPattern());
}

std::optional<std::size_t> FirstSecretAt(std::string_view text) {
  re2::StringPiece match;
  if (!re2::RE2::PartialMatch(re2::StringPiece(text.data(), text.size()), SecretPattern(), &match))
    return std::nullopt;
  return static_cast<std::size_t>(match.data() - text.data());
}

std::size_t CardCouldStartAt(std::string_view text, std::size_t from) {
  // A card number's digits and separators run unbroken: only the trailing run can still grow
  // into one, from its first digit.
  std::size_t start = text.size();
  while (start > from && IsCardCharacter(text[start - 1])) --start;
  while (start < text.size() && (text[start] < '0' || text[start] > '9')) ++start;
  return start;
}

std::size_t SecretCouldStartAt(std::string_view text, std::size_t from) {
  // SecretPattern has no anchors or word boundaries: a match the text does not hold yet must end
  // past its end, so the text from its start is a prefix of a secret. The leftmost such start.
  const std::string_view tail = text.substr(from);
  re2::StringPiece prefix;
  if (!re2::RE2::PartialMatch(re2::StringPiece(tail.data(), tail.size()), SecretPrefixPattern(),
                              &prefix)) {
    return text.size();
  }
  return from + static_cast<std::size_t>(prefix.data() - tail.data());
}

SafetyChecker::SafetyChecker(const SafetyPolicy& policy)
    : detect_credit_card_(policy.detect_credit_card), detect_secret_(policy.detect_secret) {
  for (const auto& p : policy.block_patterns) {
    auto compiled = std::make_unique<re2::RE2>(p.pattern, re2::RE2::Quiet);
    if (!compiled->ok()) continue;  // validated at creation
    const auto bound = MaxMatchBytes(p.pattern);
    patterns_.push_back(Pattern{std::move(compiled),
                                bound.value_or(p.max_match_bytes.value_or(kDefaultPatternHold)),
                                bound.has_value()});
  }
}

std::size_t SafetyChecker::HoldFrom(std::string_view text, std::size_t from) const {
  std::size_t hold = text.size();
  // A pattern's match the text does not hold yet ends at its end or past it (a `$` or `\b` there
  // may change), so it starts within its bound of the end.
  for (const auto& p : patterns_)
    hold = std::min(hold, text.size() - std::min(text.size(), p.hold));
  if (detect_credit_card_) hold = std::min(hold, CardCouldStartAt(text, from));
  if (detect_secret_) hold = std::min(hold, SecretCouldStartAt(text, from));
  return std::max(hold, from);
}

SafetyChecker::~SafetyChecker() = default;
SafetyChecker::SafetyChecker(SafetyChecker&&) noexcept = default;

bool SafetyChecker::BlocksFrom(std::string_view text, std::size_t from) const {
  from = std::min(from, text.size());
  const re2::StringPiece piece(text.data(), text.size());
  for (const auto& p : patterns_) {
    // Matches starting at or after `start`, read with the whole text as context (`^`, `\b`).
    const std::size_t start = p.bounded ? from : 0;
    if (p.compiled->Match(piece, start, text.size(), re2::RE2::UNANCHORED, nullptr, 0)) return true;
  }
  if (detect_credit_card_) {
    // From the start of the run of digits and separators `from` is in, so each run is read as
    // the whole text has it (a run's tail alone could pass the Luhn check).
    std::size_t start = from;
    while (start > 0 && IsCardCharacter(text[start - 1])) --start;
    if (ContainsCardNumber(text.substr(start))) return true;
  }
  // SecretPattern has no anchors or word boundaries: what follows `from` holds every match
  // starting there.
  if (detect_secret_ && ContainsSecret(text.substr(from))) return true;
  return false;
}

bool SafetyChecker::BlocksArguments(std::string_view arguments_json) const {
  return Blocks(ShownArgumentsText(arguments_json)) || Blocks(ShownArguments(arguments_json));
}

}  // namespace agentgate
