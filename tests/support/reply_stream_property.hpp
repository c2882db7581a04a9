#pragma once
// The property a stream's hold-back keeps (docs/runs.md, "Safety on a stream"; issue 75): fed a
// reply in any chunking, no byte released before the turn settles lies at or after the start of
// any match the final check finds, and a reply that passes is shown whole, once. Shared by the
// unit suite's property test and the fuzz target; match starts are found here independently of
// SafetyChecker::HoldFrom.

#include "domain/agent/safety.hpp"
#include "domain/runs/reply_stream.hpp"

#include <re2/re2.h>
#include <boost/json/parse.hpp>

#include <algorithm>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace agentgate::testing {

inline bool LuhnOk(std::string_view digits) {
  int sum = 0;
  bool twice = false;
  for (auto it = digits.rbegin(); it != digits.rend(); ++it) {
    int d = *it - '0';
    if (twice && (d *= 2) > 9) d -= 9;
    sum += d;
    twice = !twice;
  }
  return sum % 10 == 0;
}

// Where the first card number ContainsCardNumber would find starts: the same runs, by position.
inline std::optional<std::size_t> FirstCardStart(std::string_view text) {
  std::optional<std::size_t> first;
  std::string digits;
  std::vector<std::size_t> at;
  auto settle = [&] {
    const std::size_t n = digits.size();
    if (n >= 13 && n <= 19 && LuhnOk(digits)) first = std::min(first.value_or(at[0]), at[0]);
    if (n > 19) {
      for (std::size_t len = 13; len <= 19; ++len)
        for (std::size_t s = 0; s + len <= n; ++s)
          if (LuhnOk(std::string_view(digits).substr(s, len)))
            first = std::min(first.value_or(at[s]), at[s]);
    }
    digits.clear();
    at.clear();
  };
  for (std::size_t i = 0; i <= text.size(); ++i) {
    const char c = i < text.size() ? text[i] : '\0';
    if (c >= '0' && c <= '9') {
      digits += c;
      at.push_back(i);
    } else if ((c == ' ' || c == '-') && !digits.empty() && i + 1 < text.size() &&
               text[i + 1] >= '0' && text[i + 1] <= '9') {
    } else {
      settle();
    }
  }
  return first;
}

inline std::optional<std::size_t> FirstMatchStart(const SafetyPolicy& policy,
                                                  std::string_view text) {
  std::optional<std::size_t> first;
  auto take = [&first](std::optional<std::size_t> s) {
    if (s) first = std::min(first.value_or(*s), *s);
  };
  for (const auto& p : policy.block_patterns) {
    const RE2 whole("(" + p.pattern + ")", RE2::Quiet);
    re2::StringPiece match;
    if (whole.ok() && RE2::PartialMatch(re2::StringPiece(text.data(), text.size()), whole, &match))
      take(static_cast<std::size_t>(match.data() - text.data()));
  }
  if (policy.detect_credit_card) take(FirstCardStart(text));
  if (policy.detect_secret) take(FirstSecretAt(text));
  return first;
}

// Well-formed UTF-8 (RFC 3629: no overlong forms, no surrogates, nothing past U+10FFFF).
inline bool WholeCharacters(std::string_view text) {
  for (std::size_t i = 0; i < text.size();) {
    const auto lead = static_cast<unsigned char>(text[i]);
    std::size_t n = 1;
    unsigned char low = 0x80;
    unsigned char high = 0xBF;
    if (lead < 0x80) {
      ++i;
      continue;
    } else if (lead >= 0xC2 && lead <= 0xDF) {
      n = 2;
    } else if (lead >= 0xE0 && lead <= 0xEF) {
      n = 3;
      if (lead == 0xE0) low = 0xA0;
      if (lead == 0xED) high = 0x9F;
    } else if (lead >= 0xF0 && lead <= 0xF4) {
      n = 4;
      if (lead == 0xF0) low = 0x90;
      if (lead == 0xF4) high = 0x8F;
    } else {
      return false;
    }
    if (i + n > text.size()) return false;
    const auto second = static_cast<unsigned char>(text[i + 1]);
    if (second < low || second > high) return false;
    for (std::size_t k = 2; k < n; ++k)
      if ((static_cast<unsigned char>(text[i + k]) & 0xC0) != 0x80) return false;
    i += n;
  }
  return true;
}

// Streams `reply` cut at `pieces` (sizes, used in turn, repeated) through a ReplyStream of
// `policy`: "" when the property holds, else what broke it.
inline std::string CheckReplyStream(const SafetyPolicy& policy, std::string_view reply,
                                    const std::vector<std::size_t>& pieces,
                                    std::size_t text_events = 1000) {
  const SafetyChecker safety(policy);
  ReplyStream stream(safety, text_events);
  const auto text_of = [](const RunEvent& e) -> std::string {
    if (e.type != "text.delta") return "";
    return std::string(boost::json::parse(e.data).as_object().at("text").as_string());
  };
  const bool valid_text = WholeCharacters(reply);
  std::string shown;
  std::size_t events = 0;
  stream.CallStarted(1);
  for (std::size_t at = 0, k = 0; at < reply.size(); ++k) {
    const std::size_t n = std::max<std::size_t>(1, pieces.empty() ? 1 : pieces[k % pieces.size()]);
    if (auto e = stream.Piece(reply.substr(at, n))) {
      const std::string text = text_of(*e);
      if (valid_text && !WholeCharacters(text)) return "an event carries part of a character";
      shown += text;
      ++events;
    }
    at += n;
  }
  for (const auto& e : stream.CallEnded(true, false)) shown += text_of(e);
  if (!reply.starts_with(shown)) return "what was shown is not the reply's beginning";
  if (events + 1 > text_events && events > 0) return "more text events than the budget";
  const bool blocked = safety.Blocks(reply);
  const auto first = FirstMatchStart(policy, reply);
  if (blocked != first.has_value()) return "the reference and the check disagree on a match";
  const auto settled = stream.Settled(reply, blocked);
  if (blocked) {
    if (shown.size() > *first)
      return "released " + std::to_string(shown.size()) + " bytes, past a match at " +
             std::to_string(*first);
    if (!shown.empty() && (settled.size() != 1 || settled[0].type != "text.retracted"))
      return "a blocked reply's shown text was not retracted";
    return "";
  }
  for (const auto& e : settled) shown += text_of(e);
  if (shown != reply) return "a passing reply was not shown whole and once";
  return "";
}

// The checks a growing reply makes from what was released on (SafetyChecker::BlocksFrom) say what
// the whole text's checks say, at every step of the hold-back, in the given chunking (as
// CheckReplyStream's); "" when they do, else where they did not.
inline std::string CheckChecksFromReleased(const SafetyPolicy& policy, std::string_view reply,
                                           const std::vector<std::size_t>& pieces) {
  const SafetyChecker safety(policy);
  std::size_t released = 0;
  for (std::size_t end = 0, k = 0; end < reply.size(); ++k) {
    end += std::max<std::size_t>(1, pieces.empty() ? 1 : pieces[k % pieces.size()]);
    end = std::min(end, reply.size());
    const std::string_view text = reply.substr(0, end);
    const bool whole = safety.Blocks(text);
    if (safety.BlocksFrom(text, released) != whole)
      return "the checks from " + std::to_string(released) + " disagree with the whole text's at " +
             std::to_string(end);
    if (whole) return "";
    released = safety.HoldFrom(text, released);
  }
  return "";
}

}  // namespace agentgate::testing
