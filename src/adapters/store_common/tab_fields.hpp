#pragma once
// The tab-separated texts a store's row keeps packed (a run's record and events, a quick run's
// facts): their integers written, and their fields read.

#include <charconv>
#include <string>
#include <string_view>
#include <system_error>

namespace agentgate::tab_fields {

// `value` in `base` at the end of `out`, as Integer reads it back.
template <class Int>
void AppendInteger(std::string& out, Int value, int base = 10) {
  char digits[24];  // 64 bits in decimal or hex, with a sign
  out.append(digits, std::to_chars(digits, digits + sizeof digits, value, base).ptr);
}

// The field up to the next tab, moving `rest` past it; false when there is no tab.
inline bool Next(std::string_view& rest, std::string_view& field) {
  const auto tab = rest.find('\t');
  if (tab == std::string_view::npos) return false;
  field = rest.substr(0, tab);
  rest.remove_prefix(tab + 1);
  return true;
}

// The whole of `text` as an integer in `base`; false for anything else (empty, a sign it cannot
// take, trailing characters, out of range).
template <class Int>
bool Integer(std::string_view text, Int& value, int base = 10) {
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value, base);
  return ec == std::errc() && end == text.data() + text.size() && !text.empty();
}

}  // namespace agentgate::tab_fields
