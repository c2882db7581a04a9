#include "domain/json_text.hpp"

#include <boost/json/value.hpp>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <vector>

namespace agentgate::json_text {
namespace {

void AppendDouble(std::string& out, double d) {
  if (!std::isfinite(d)) {
    out += "null";
    return;
  }
  char buffer[32];
  const auto [end, ec] = std::to_chars(buffer, buffer + sizeof buffer, d);
  out.append(buffer, ec == std::errc() ? end : buffer);
}

// The length of the well-formed UTF-8 sequence at the start of `s`, or 0 (RFC 3629: no overlong
// forms, no surrogates, nothing above U+10FFFF).
std::size_t Utf8SequenceLength(std::string_view s) {
  const auto b = [&](std::size_t i) { return static_cast<unsigned char>(s[i]); };
  const auto cont = [&](std::size_t i) { return i < s.size() && (b(i) & 0xC0) == 0x80; };
  const unsigned char lead = b(0);
  if (lead < 0x80) return 1;
  if (lead >= 0xC2 && lead <= 0xDF) return cont(1) ? 2 : 0;
  if (lead >= 0xE0 && lead <= 0xEF) {
    if (!cont(1) || !cont(2)) return 0;
    if (lead == 0xE0 && b(1) < 0xA0) return 0;  // overlong
    if (lead == 0xED && b(1) > 0x9F) return 0;  // a surrogate
    return 3;
  }
  if (lead >= 0xF0 && lead <= 0xF4) {
    if (!cont(1) || !cont(2) || !cont(3)) return 0;
    if (lead == 0xF0 && b(1) < 0x90) return 0;  // overlong
    if (lead == 0xF4 && b(1) > 0x8F) return 0;  // above U+10FFFF
    return 4;
  }
  return 0;
}

// Text from outside (a platform's body, a tool's answer, a model's reply) may not be UTF-8; JSON
// must be. Each byte that starts no well-formed sequence becomes U+FFFD.
std::string ValidUtf8(std::string_view s) {
  std::string out;
  out.reserve(s.size());
  while (!s.empty()) {
    const std::size_t n = Utf8SequenceLength(s);
    if (n == 0) {
      out += "\xEF\xBF\xBD";
      s.remove_prefix(1);
    } else {
      out.append(s.substr(0, n));
      s.remove_prefix(n);
    }
  }
  return out;
}

// Eight bytes at a time (SWAR): most text is ASCII with nothing to escape, and a turn writes
// kilobytes of it (its transcript, its body, the provider's request) on an I/O thread.
constexpr std::uint64_t kOnes = 0x0101010101010101ULL;
constexpr std::uint64_t kHighBits = 0x8080808080808080ULL;

std::uint64_t Word(const char* at) {
  std::uint64_t w;
  std::memcpy(&w, at, sizeof w);
  return w;
}

// Whether one of the word's bytes is a control character, a quote or a backslash (the classic
// "has a zero byte" test, (v - 1s) & ~v & high bits, exact as a yes or no).
bool AnyToEscape(std::uint64_t w) {
  const auto has_zero = [](std::uint64_t v) { return (v - kOnes) & ~v & kHighBits; };
  const std::uint64_t below_space = (w - kOnes * 0x20) & ~w & kHighBits;
  return (below_space | has_zero(w ^ (kOnes * '"')) | has_zero(w ^ (kOnes * '\\'))) != 0;
}

bool IsValidUtf8(std::string_view s) {
  for (std::size_t i = 0; i < s.size();) {
    if (i + 8 <= s.size() && (Word(s.data() + i) & kHighBits) == 0) {  // eight ASCII bytes
      i += 8;
      continue;
    }
    if (static_cast<unsigned char>(s[i]) < 0x80) {
      ++i;
      continue;
    }
    const std::size_t n = Utf8SequenceLength(s.substr(i));
    if (n == 0) return false;
    i += n;
  }
  return true;
}

// A JSON string, escaped as Boost.JSON does (a canonical text is a stored fingerprint, so the
// bytes must not change): quote and backslash, the short forms of \b \t \n \f \r, other control
// characters as \u00xx; everything else as it is.
void AppendQuoted(std::string& out, std::string_view s) {
  static constexpr char kHex[] = "0123456789abcdef";
  out += '"';
  std::size_t run = 0;  // where the current stretch of unescaped bytes began
  for (std::size_t i = 0; i < s.size(); ++i) {
    while (i + 8 <= s.size() && !AnyToEscape(Word(s.data() + i))) i += 8;
    if (i >= s.size()) break;
    const auto c = static_cast<unsigned char>(s[i]);
    if (c >= 0x20 && c != '"' && c != '\\') continue;
    out.append(s.data() + run, i - run);
    run = i + 1;
    switch (c) {
      case '"':
        out += "\\\"";
        break;
      case '\\':
        out += "\\\\";
        break;
      case '\b':
        out += "\\b";
        break;
      case '\t':
        out += "\\t";
        break;
      case '\n':
        out += "\\n";
        break;
      case '\f':
        out += "\\f";
        break;
      case '\r':
        out += "\\r";
        break;
      default:
        out += "\\u00";
        out += kHex[c >> 4];
        out += kHex[c & 0xF];
    }
  }
  out.append(s.data() + run, s.size() - run);
  out += '"';
}

void AppendString(std::string& out, boost::json::string_view s) {
  const std::string_view text(s.data(), s.size());
  if (IsValidUtf8(text)) {
    AppendQuoted(out, text);
  } else {
    AppendQuoted(out, ValidUtf8(text));
  }
}

template <class Integer>
void AppendInteger(std::string& out, Integer n) {
  char buffer[24];
  const auto end = std::to_chars(buffer, buffer + sizeof buffer, n).ptr;
  out.append(buffer, end);
}

void Append(std::string& out, const boost::json::value& v, bool sort_keys);

void AppendMember(std::string& out, const boost::json::key_value_pair& kv, bool sort_keys) {
  AppendString(out, kv.key());
  out += ':';
  Append(out, kv.value(), sort_keys);
}

void AppendObject(std::string& out, const boost::json::object& o, bool sort_keys) {
  out += '{';
  if (sort_keys) {
    std::vector<const boost::json::key_value_pair*> items;
    items.reserve(o.size());
    for (const auto& kv : o) items.push_back(&kv);
    std::sort(items.begin(), items.end(),
              [](const auto* a, const auto* b) { return a->key() < b->key(); });
    for (std::size_t i = 0; i < items.size(); ++i) {
      if (i > 0) out += ',';
      AppendMember(out, *items[i], sort_keys);
    }
  } else {
    bool first = true;
    for (const auto& kv : o) {
      if (!first) out += ',';
      first = false;
      AppendMember(out, kv, sort_keys);
    }
  }
  out += '}';
}

void AppendArray(std::string& out, const boost::json::array& a, bool sort_keys) {
  out += '[';
  bool first = true;
  for (const auto& item : a) {
    if (!first) out += ',';
    first = false;
    Append(out, item, sort_keys);
  }
  out += ']';
}

void Append(std::string& out, const boost::json::value& v, bool sort_keys) {
  switch (v.kind()) {
    case boost::json::kind::object:
      AppendObject(out, v.get_object(), sort_keys);
      return;
    case boost::json::kind::array:
      AppendArray(out, v.get_array(), sort_keys);
      return;
    case boost::json::kind::string:
      AppendString(out, v.get_string());
      return;
    case boost::json::kind::double_:
      AppendDouble(out, v.get_double());
      return;
    case boost::json::kind::int64:
      AppendInteger(out, v.get_int64());
      return;
    case boost::json::kind::uint64:
      AppendInteger(out, v.get_uint64());
      return;
    case boost::json::kind::bool_:
      out += v.get_bool() ? "true" : "false";
      return;
    case boost::json::kind::null:
      out += "null";
      return;
  }
}

}  // namespace

std::string Write(const boost::json::value& value) {
  std::string out;
  Append(out, value, false);
  return out;
}

std::string Write(const boost::json::object& object) {
  std::string out;
  AppendObject(out, object, false);
  return out;
}

std::string Write(const boost::json::array& array) {
  std::string out;
  AppendArray(out, array, false);
  return out;
}

std::string WriteCanonical(const boost::json::value& value) {
  std::string out;
  Append(out, value, true);
  return out;
}

ObjectWriter::ObjectWriter(std::size_t reserve) {
  out_.reserve(reserve);
  out_ += '{';
}

void ObjectWriter::Separate() {
  if (!first_) out_ += ',';
  first_ = false;
}

// Keys are this program's own names, which need no escaping: written as they are.
void ObjectWriter::Key(std::string_view key) {
  Separate();
  out_ += '"';
  out_ += key;
  out_ += "\":";
}

void ObjectWriter::Open(char bracket) {
  out_ += bracket;
  if (bracket == '[' && depth_ < 64) arrays_ |= std::uint64_t{1} << depth_;
  ++depth_;
  first_ = true;
}

ObjectWriter& ObjectWriter::Object(std::string_view key) {
  Key(key);
  Open('{');
  return *this;
}

ObjectWriter& ObjectWriter::Array(std::string_view key) {
  Key(key);
  Open('[');
  return *this;
}

ObjectWriter& ObjectWriter::Object() {
  Separate();
  Open('{');
  return *this;
}

ObjectWriter& ObjectWriter::String(std::string_view value) {
  Separate();
  AppendString(out_, boost::json::string_view(value.data(), value.size()));
  return *this;
}

ObjectWriter& ObjectWriter::End() {
  if (depth_ == 0) return *this;  // nothing open but the outermost object, which Finish closes
  --depth_;
  const std::uint64_t bit = depth_ < 64 ? std::uint64_t{1} << depth_ : 0;
  out_ += (arrays_ & bit) != 0 ? ']' : '}';
  arrays_ &= ~bit;
  first_ = false;
  return *this;
}

ObjectWriter& ObjectWriter::String(std::string_view key, std::string_view value) {
  Key(key);
  AppendString(out_, boost::json::string_view(value.data(), value.size()));
  return *this;
}

ObjectWriter& ObjectWriter::Int(std::string_view key, std::int64_t value) {
  Key(key);
  AppendInteger(out_, value);
  return *this;
}

ObjectWriter& ObjectWriter::Number(std::string_view key, double value) {
  Key(key);
  AppendDouble(out_, value);
  return *this;
}

ObjectWriter& ObjectWriter::Bool(std::string_view key, bool value) {
  Key(key);
  out_ += value ? "true" : "false";
  return *this;
}

ObjectWriter& ObjectWriter::Null(std::string_view key) {
  Key(key);
  out_ += "null";
  return *this;
}

ObjectWriter& ObjectWriter::Value(std::string_view key, const boost::json::value& value) {
  Key(key);
  Append(out_, value, false);
  return *this;
}

std::string ObjectWriter::Finish() {
  out_ += '}';
  return std::move(out_);
}

}  // namespace agentgate::json_text
