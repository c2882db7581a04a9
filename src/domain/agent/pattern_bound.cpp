#include "domain/agent/pattern_bound.hpp"

#include <string>

namespace agentgate {
namespace {

constexpr std::size_t kAnyCharacter = 4;  // the longest UTF-8 character
constexpr std::size_t kFoldedLetter = 3;  // an ASCII letter's longest case fold (K, U+212A)

bool IsAsciiLetter(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}

// A recursive-descent reading of the bounded subset of RE2's syntax; `nullopt` anywhere means no
// bound. Flags are scoped as RE2 scopes them: `(?i)` to the rest of its group, `(?i:...)` to the
// group it opens.
class BoundReader {
 public:
  explicit BoundReader(std::string_view pattern) : p_(pattern) {}

  std::optional<std::size_t> Whole() {
    bool fold = false;
    auto bound = Alternation(fold);
    if (!bound || at_ != p_.size()) return std::nullopt;
    return bound;
  }

 private:
  bool More() const { return at_ < p_.size(); }
  char Peek() const { return p_[at_]; }

  static std::optional<std::size_t> Capped(std::size_t n) {
    if (n > kMaxDerivedMatchBytes) return std::nullopt;
    return n;
  }

  std::optional<std::size_t> Alternation(bool& fold) {
    std::size_t widest = 0;
    while (true) {
      auto branch = Concatenation(fold);
      if (!branch) return std::nullopt;
      widest = std::max(widest, *branch);
      if (!More() || Peek() != '|') return widest;
      ++at_;
    }
  }

  std::optional<std::size_t> Concatenation(bool& fold) {
    std::size_t total = 0;
    while (More() && Peek() != '|' && Peek() != ')') {
      auto atom = Atom(fold);
      if (!atom) return std::nullopt;
      auto repeated = Repeat(*atom);
      if (!repeated) return std::nullopt;
      auto sum = Capped(total + *repeated);
      if (!sum) return std::nullopt;
      total = *sum;
    }
    return total;
  }

  // The repeat after an atom of `bound` bytes, if any.
  std::optional<std::size_t> Repeat(std::size_t bound) {
    if (!More()) return bound;
    const char c = Peek();
    if (c == '*' || c == '+') return std::nullopt;
    std::size_t times = 1;
    if (c == '?') {
      ++at_;
    } else if (c == '{') {
      const auto most = BracedRepeat();
      if (!most) return std::nullopt;
      if (*most < 0) return bound;  // not a repeat: a literal '{' (read by the next atom)
      times = static_cast<std::size_t>(*most);
    } else {
      return bound;
    }
    if (More() && Peek() == '?') ++at_;  // non-greedy: the same bound
    if (More() && (Peek() == '*' || Peek() == '+' || Peek() == '{')) return std::nullopt;
    return Capped(bound * times);
  }

  // `{n}`, `{n,m}`: the most repeats; -1 when the brace starts no repeat; none for `{n,}`.
  std::optional<long> BracedRepeat() {
    std::size_t i = at_ + 1;
    auto number = [&](long& out) {
      const std::size_t start = i;
      out = 0;
      while (i < p_.size() && p_[i] >= '0' && p_[i] <= '9' && out <= 100000)
        out = out * 10 + (p_[i++] - '0');
      return i > start;
    };
    long least = 0;
    long most = 0;
    if (!number(least)) return -1L;
    if (i < p_.size() && p_[i] == '}') {
      at_ = i + 1;
      return least;
    }
    if (i >= p_.size() || p_[i] != ',') return -1L;
    ++i;
    if (i < p_.size() && p_[i] == '}') return std::nullopt;  // {n,}: unbounded
    if (!number(most) || i >= p_.size() || p_[i] != '}') return -1L;
    at_ = i + 1;
    return most;
  }

  std::optional<std::size_t> Atom(bool& fold) {
    const char c = Peek();
    switch (c) {
      case '(':
        return Group(fold);
      case '[':
        return Class(fold);
      case '.':
        ++at_;
        return kAnyCharacter;
      case '^':
      case '$':
        ++at_;
        return 0;
      case '\\':
        return Escape(fold);
      case '*':
      case '+':
      case '?':
        return std::nullopt;  // a repeat of nothing: not read here
      default:
        return Literal(fold);
    }
  }

  // One literal character: its UTF-8 bytes, a letter under (?i) as its longest fold.
  std::optional<std::size_t> Literal(bool fold) {
    const auto lead = static_cast<unsigned char>(p_[at_]);
    std::size_t length = 1;
    if (lead >= 0xF0) {
      length = 4;
    } else if (lead >= 0xE0) {
      length = 3;
    } else if (lead >= 0xC0) {
      length = 2;
    }
    if (at_ + length > p_.size()) return std::nullopt;
    const bool letter = length == 1 && IsAsciiLetter(p_[at_]);
    at_ += length;
    if (length > 1) return fold ? kAnyCharacter : length;
    return fold && letter ? kFoldedLetter : 1;
  }

  std::optional<std::size_t> Group(bool& fold) {
    ++at_;  // '('
    bool inner = fold;
    if (More() && Peek() == '?') {
      ++at_;
      if (More() && (Peek() == 'P' || Peek() == '<')) {  // a named group: skip its name
        while (More() && Peek() != '>') ++at_;
        if (!More()) return std::nullopt;
        ++at_;
      } else {
        bool on = true;
        bool sets_fold = false;
        bool fold_value = inner;
        while (More() && Peek() != ':' && Peek() != ')') {
          const char flag = p_[at_++];
          if (flag == '-') {
            on = false;
          } else if (flag == 'i') {
            sets_fold = true;
            fold_value = on;
          } else if (flag != 'm' && flag != 's' && flag != 'U') {
            return std::nullopt;
          }
        }
        if (!More()) return std::nullopt;
        if (sets_fold) inner = fold_value;
        if (Peek() == ')') {  // (?flags): for the rest of the enclosing group
          ++at_;
          fold = inner;
          return 0;
        }
        ++at_;  // ':'
      }
    }
    auto bound = Alternation(inner);
    if (!bound || !More() || Peek() != ')') return std::nullopt;
    ++at_;
    return bound;
  }

  // A bracketed class: one character, 1 byte when it can only be ASCII (and no fold applies).
  std::optional<std::size_t> Class(bool fold) {
    ++at_;  // '['
    bool ascii = true;
    if (More() && Peek() == '^') {
      ascii = false;  // a negated class matches non-ASCII characters
      ++at_;
    }
    bool first = true;
    bool letters = false;
    while (More() && (Peek() != ']' || first)) {
      const char c = p_[at_];
      first = false;
      if (c == '[' && at_ + 1 < p_.size() && p_[at_ + 1] == ':') {  // [:alpha:]
        const auto close = p_.find(":]", at_ + 2);
        if (close == std::string_view::npos) return std::nullopt;
        letters = true;
        at_ = close + 2;
        continue;
      }
      if (c == '\\') {
        if (at_ + 1 >= p_.size()) return std::nullopt;
        const char e = p_[at_ + 1];
        if (e == 'p' || e == 'P' || e == 'x' || e == 'D' || e == 'S' || e == 'W') ascii = false;
        if (e == 'w' || IsAsciiLetter(e)) letters = true;
        at_ += 2;
        continue;
      }
      if (static_cast<unsigned char>(c) >= 0x80) ascii = false;
      if (IsAsciiLetter(c)) letters = true;
      ++at_;
    }
    if (!More()) return std::nullopt;
    ++at_;  // ']'
    if (!ascii) return kAnyCharacter;
    return fold && letters ? kFoldedLetter : 1;
  }

  std::optional<std::size_t> Escape(bool fold) {
    if (at_ + 1 >= p_.size()) return std::nullopt;
    const char e = p_[at_ + 1];
    at_ += 2;
    switch (e) {
      case 'b':
      case 'B':
      case 'A':
      case 'z':
        return 0;
      case 'd':
      case 's':
        return 1;
      case 'w':
        return fold ? kFoldedLetter : 1;
      case 'D':
      case 'S':
      case 'W':
      case 'p':
      case 'P':
      case 'x':
        return SkipEscapeBody(e);
      case 'C':
        return 1;
      case 'Q': {
        const auto end = p_.find("\\E", at_);
        const std::size_t stop = end == std::string_view::npos ? p_.size() : end;
        std::size_t bytes = 0;
        while (at_ < stop) {
          auto one = Literal(fold);
          if (!one) return std::nullopt;
          bytes += *one;
        }
        at_ = end == std::string_view::npos ? p_.size() : end + 2;
        return Capped(bytes);
      }
      default:
        if (e >= '0' && e <= '7') {
          while (More() && Peek() >= '0' && Peek() <= '7') ++at_;
          return 2;  // at most \377: two bytes in UTF-8
        }
        return fold && IsAsciiLetter(e) ? kFoldedLetter : 1;  // \n, \t, \., ...
    }
  }

  // `\pL`, `\p{Greek}`, `\x41`, `\x{10FFFF}`: one character of any length.
  std::optional<std::size_t> SkipEscapeBody(char e) {
    if (e == 'D' || e == 'S' || e == 'W') return kAnyCharacter;
    if (More() && Peek() == '{') {
      const auto close = p_.find('}', at_);
      if (close == std::string_view::npos) return std::nullopt;
      at_ = close + 1;
    } else if (e == 'x') {
      at_ = std::min(p_.size(), at_ + 2);
    } else if (More()) {
      ++at_;
    }
    return kAnyCharacter;
  }

  std::string_view p_;
  std::size_t at_ = 0;
};

}  // namespace

std::optional<std::size_t> MaxMatchBytes(std::string_view pattern) {
  return BoundReader(pattern).Whole();
}

}  // namespace agentgate
