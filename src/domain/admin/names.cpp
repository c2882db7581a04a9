#include "domain/admin/names.hpp"

namespace agentgate::names {
namespace {

bool IsAsciiAlnum(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
}

template <class Pred>
bool AllOf(std::string_view s, std::size_t max_len, Pred ok) {
  if (s.empty() || s.size() > max_len) return false;
  for (char c : s) {
    if (!ok(c)) return false;
  }
  return true;
}

}  // namespace

bool IsValidId(std::string_view s) {
  return AllOf(s, 64, [](char c) { return IsAsciiAlnum(c) || c == '_' || c == '-'; });
}

bool IsValidEnvironment(std::string_view s) {
  return AllOf(s, 32, [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_' || c == '-';
  });
}

bool IsValidGroupKey(std::string_view s) {
  return AllOf(s, 128, [](char c) {
    return IsAsciiAlnum(c) || c == '.' || c == '_' || c == '-' || c == '@';
  });
}

bool IsValidInstanceId(std::string_view s) {
  return IsValidGroupKey(s);
}

bool IsValidDisplayName(std::string_view s) {
  return AllOf(s, 128, [](char c) {
    const auto u = static_cast<unsigned char>(c);
    return u >= 0x20 && u != 0x7f;  // UTF-8 continuation bytes (>= 0x80) pass
  });
}

bool IsValidMonth(std::string_view s) {
  if (s.size() != 7 || s[4] != '-') return false;
  for (std::size_t i : {0u, 1u, 2u, 3u, 5u, 6u}) {
    if (s[i] < '0' || s[i] > '9') return false;
  }
  const int month = (s[5] - '0') * 10 + (s[6] - '0');
  return month >= 1 && month <= 12;
}

}  // namespace agentgate::names
