// The string `format`s an answer may be held to (domain/schema/json_schema.hpp): OpenAI's
// structured outputs' list, each checked as its RFC writes it.
#include "domain/schema/json_schema.hpp"

#include <re2/re2.h>

#include <arpa/inet.h>

#include <algorithm>
#include <array>
#include <cstdlib>

namespace agentgate::schema {
namespace {

struct Format {
  std::string_view name;
  std::string_view example;
};

constexpr std::array<Format, 9> kFormats{{
    {"date-time", "2026-01-01T00:00:00Z"},
    {"time", "00:00:00Z"},
    {"date", "2026-01-01"},
    {"duration", "P1D"},
    {"email", "user@example.com"},
    {"hostname", "example.com"},
    {"ipv4", "192.0.2.1"},
    {"ipv6", "2001:db8::1"},
    {"uuid", "00000000-0000-4000-8000-000000000000"},
}};

bool Matches(const re2::RE2& pattern, std::string_view text) {
  return re2::RE2::FullMatch(re2::StringPiece(text.data(), text.size()), pattern);
}

int Number(std::string_view digits) {
  int n = 0;
  for (char c : digits) n = n * 10 + (c - '0');
  return n;
}

bool IsLeap(int year) {
  return (year % 4 == 0 && year % 100 != 0) || year % 400 == 0;
}

// RFC 3339's full-date: YYYY-MM-DD, a day its month has.
bool IsDate(std::string_view s) {
  static const re2::RE2 shape(R"(\d{4}-\d{2}-\d{2})");
  if (!Matches(shape, s)) return false;
  const int year = Number(s.substr(0, 4)), month = Number(s.substr(5, 2)),
            day = Number(s.substr(8, 2));
  constexpr int kDays[] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
  if (month < 1 || month > 12 || day < 1) return false;
  return day <= kDays[month - 1] + (month == 2 && IsLeap(year) ? 1 : 0);
}

// RFC 3339's full-time: HH:MM:SS, a fraction, and Z or an offset (a leap second allowed).
bool IsTime(std::string_view s) {
  static const re2::RE2 shape(R"((\d{2}):(\d{2}):(\d{2})(\.\d+)?([Zz]|[+-](\d{2}):(\d{2})))");
  std::string hour, minute, second, fraction, zone, zone_hour, zone_minute;
  if (!re2::RE2::FullMatch(re2::StringPiece(s.data(), s.size()), shape, &hour, &minute, &second,
                           &fraction, &zone, &zone_hour, &zone_minute))
    return false;
  if (Number(hour) > 23 || Number(minute) > 59 || Number(second) > 60) return false;
  return zone_hour.empty() || (Number(zone_hour) <= 23 && Number(zone_minute) <= 59);
}

bool IsDateTime(std::string_view s) {
  const auto t = s.find_first_of("Tt");
  return t == 10 && IsDate(s.substr(0, t)) && IsTime(s.substr(t + 1));
}

// ISO 8601's duration as RFC 3339's appendix writes it: P, then dates and/or T and times, or weeks.
bool IsDuration(std::string_view s) {
  static const re2::RE2 shape(
      R"(P(?:\d+W|(?:\d+Y)?(?:\d+M)?(?:\d+D)?(?:T(?:\d+H)?(?:\d+M)?(?:\d+S)?)?))");
  if (!Matches(shape, s) || s == "P" || s.back() == 'T') return false;
  return true;
}

bool IsHostname(std::string_view s) {
  if (s.empty() || s.size() > 253) return false;
  static const re2::RE2 label(R"([A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?)");
  std::size_t start = 0;
  for (;;) {
    const auto dot = s.find('.', start);
    if (!Matches(label, s.substr(start, dot - start))) return false;
    if (dot == std::string_view::npos) return true;
    start = dot + 1;
  }
}

bool IsEmail(std::string_view s) {
  const auto at = s.rfind('@');
  if (at == std::string_view::npos || at == 0 || at > 64) return false;
  static const re2::RE2 local(R"([A-Za-z0-9!#$%&'*+/=?^_`{|}~.-]+)");
  const std::string_view name = s.substr(0, at);
  if (!Matches(local, name) || name.front() == '.' || name.back() == '.' ||
      name.find("..") != std::string_view::npos)
    return false;
  return IsHostname(s.substr(at + 1));
}

bool IsIpv4(std::string_view s) {
  static const re2::RE2 shape(R"((\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3}))");
  std::array<std::string, 4> parts;
  if (!re2::RE2::FullMatch(re2::StringPiece(s.data(), s.size()), shape, &parts[0], &parts[1],
                           &parts[2], &parts[3]))
    return false;
  return std::all_of(parts.begin(), parts.end(), [](const std::string& p) {
    return Number(p) <= 255 && (p.size() == 1 || p[0] != '0');
  });
}

bool IsIpv6(std::string_view s) {
  if (s.size() > 45) return false;
  const std::string text(s);
  unsigned char address[16];
  return inet_pton(AF_INET6, text.c_str(), address) == 1;
}

bool IsUuid(std::string_view s) {
  static const re2::RE2 shape(
      R"([0-9A-Fa-f]{8}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{12})");
  return Matches(shape, s);
}

}  // namespace

bool IsKnownFormat(std::string_view format) {
  return std::any_of(kFormats.begin(), kFormats.end(),
                     [&](const Format& f) { return f.name == format; });
}

bool MatchesFormat(std::string_view format, std::string_view text) {
  if (format == "date-time") return IsDateTime(text);
  if (format == "time") return IsTime(text);
  if (format == "date") return IsDate(text);
  if (format == "duration") return IsDuration(text);
  if (format == "email") return IsEmail(text);
  if (format == "hostname") return IsHostname(text);
  if (format == "ipv4") return IsIpv4(text);
  if (format == "ipv6") return IsIpv6(text);
  if (format == "uuid") return IsUuid(text);
  return true;  // not one checked: CheckSchema refuses it first
}

std::string_view FormatExample(std::string_view format) {
  for (const auto& f : kFormats)
    if (f.name == format) return f.example;
  return "example";
}

}  // namespace agentgate::schema
