#include "domain/json_text.hpp"

#include <boost/json/serialize.hpp>
#include <boost/json/value.hpp>

#include <algorithm>
#include <charconv>
#include <cmath>
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

bool IsValidUtf8(std::string_view s) {
  for (std::size_t i = 0; i < s.size();) {
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

void AppendString(std::string& out, boost::json::string_view s) {
  const std::string_view text(s.data(), s.size());
  if (IsValidUtf8(text)) {
    out += boost::json::serialize(s);
  } else {
    const std::string valid = ValidUtf8(text);
    out += boost::json::serialize(boost::json::string_view(valid));
  }
}

void Append(std::string& out, const boost::json::value& v, bool sort_keys) {
  switch (v.kind()) {
    case boost::json::kind::object: {
      const auto& o = v.get_object();
      std::vector<const boost::json::key_value_pair*> items;
      items.reserve(o.size());
      for (const auto& kv : o) items.push_back(&kv);
      if (sort_keys) {
        std::sort(items.begin(), items.end(),
                  [](const auto* a, const auto* b) { return a->key() < b->key(); });
      }
      out += '{';
      for (std::size_t i = 0; i < items.size(); ++i) {
        if (i > 0) out += ',';
        AppendString(out, items[i]->key());
        out += ':';
        Append(out, items[i]->value(), sort_keys);
      }
      out += '}';
      return;
    }
    case boost::json::kind::array: {
      out += '[';
      bool first = true;
      for (const auto& item : v.get_array()) {
        if (!first) out += ',';
        first = false;
        Append(out, item, sort_keys);
      }
      out += ']';
      return;
    }
    case boost::json::kind::string:
      AppendString(out, v.get_string());
      return;
    case boost::json::kind::double_:
      AppendDouble(out, v.get_double());
      return;
    default:  // null, bool and integers: Boost.JSON's text is already plain
      out += boost::json::serialize(v);
  }
}

}  // namespace

std::string Write(const boost::json::value& value) {
  std::string out;
  Append(out, value, false);
  return out;
}

std::string WriteCanonical(const boost::json::value& value) {
  std::string out;
  Append(out, value, true);
  return out;
}

}  // namespace agentgate::json_text
