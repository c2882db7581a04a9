#include "domain/runs/webhook_rules.hpp"

#include <boost/json/value.hpp>

#include <arpa/inet.h>

#include <algorithm>
#include <cstring>

namespace agentgate::webhooks {

namespace {

bool PublicV4(const unsigned char a[4]) {
  const auto in = [&](unsigned first, unsigned second_from, unsigned second_to) {
    return a[0] == first && a[1] >= second_from && a[1] <= second_to;
  };
  if (a[0] == 0 || a[0] == 10 || a[0] == 127 || a[0] >= 224) return false;     // this, private,
  if (in(100, 64, 127) || in(169, 254, 254) || in(172, 16, 31)) return false;  // loopback, CGNAT,
  if (in(192, 168, 168)) return false;                                         // link-local,
  if (a[0] == 192 && a[1] == 0 && (a[2] == 0 || a[2] == 2)) return false;      // multicast and
  if (in(198, 18, 19)) return false;                                           // reserved,
  if (a[0] == 198 && a[1] == 51 && a[2] == 100) return false;                  // documentation
  if (a[0] == 203 && a[1] == 0 && a[2] == 113) return false;
  return true;
}

}  // namespace

bool IsPublicAddress(std::string_view ip) {
  const std::string text(ip);
  unsigned char v4[4];
  if (inet_pton(AF_INET, text.c_str(), v4) == 1) return PublicV4(v4);
  unsigned char v6[16];
  if (inet_pton(AF_INET6, text.c_str(), v6) != 1) return false;
  const auto zero = [&](int from, int to) {
    return std::all_of(v6 + from, v6 + to, [](unsigned char b) { return b == 0; });
  };
  const auto starts = [&](std::initializer_list<unsigned char> prefix) {
    return std::equal(prefix.begin(), prefix.end(), v6);
  };
  // Forms that carry an IPv4 address are judged by it: a private one reached through them is as
  // private as itself.
  if (zero(0, 10) && v6[10] == 0xff && v6[11] == 0xff) return PublicV4(v6 + 12);  // ::ffff:a.b.c.d
  if (zero(0, 12)) return zero(12, 15) ? false : PublicV4(v6 + 12);  // ::, ::1; ::a.b.c.d
  if (starts({0x00, 0x64, 0xff, 0x9b}) && zero(4, 12)) return PublicV4(v6 + 12);  // NAT64 /96
  if (starts({0x00, 0x64, 0xff, 0x9b}))
    return false;                                     // local-use NAT64 64:ff9b:1::/48 and the rest
  if (starts({0x20, 0x02})) return PublicV4(v6 + 2);  // 6to4 2002::/16
  // Otherwise only global unicast (2000::/3), which leaves out unique local, link-local,
  // site-local, multicast and discard-only (100::/64) addresses; and within it the special ranges
  // (IANA's special-purpose registry).
  if ((v6[0] & 0xe0) != 0x20) return false;
  if (v6[0] == 0x20 && v6[1] == 0x01 && v6[2] < 0x02)
    return false;  // IETF protocol assignments 2001::/23: Teredo 2001::/32, ORCHID 2001:10::/28,
                   // ...
  if (starts({0x20, 0x01, 0x0d, 0xb8})) return false;  // documentation 2001:db8::/32
  if (v6[0] == 0x3f && v6[1] == 0xff && (v6[2] & 0xf0) == 0) return false;  // doc. 3fff::/20
  return true;
}

Result<void> CheckUrl(std::string_view url, bool allow_private) {
  if (url.size() > 2048) return InvalidField("url", "must be at most 2048 characters");
  std::string_view rest;
  bool https = false;
  if (url.starts_with("https://")) {
    https = true;
    rest = url.substr(8);
  } else if (url.starts_with("http://")) {
    rest = url.substr(7);
  } else {
    return InvalidField("url", "must be an absolute https:// URL");
  }
  if (!https && !allow_private) {
    return InvalidField("url", "must be https ([webhooks] allow_private allows http)");
  }
  for (const char c : url) {
    if (static_cast<unsigned char>(c) <= 0x20 || c == 0x7f)
      return InvalidField("url", "must not contain spaces or control characters");
  }
  const std::string_view authority = rest.substr(0, rest.find_first_of("/?#"));
  if (authority.find('@') != std::string_view::npos)
    return InvalidField("url", "must not carry user info (a secret in a URL)");
  std::string_view host = authority;
  if (host.starts_with("[")) {
    const auto close = host.find(']');
    if (close == std::string_view::npos) return InvalidField("url", "has an unclosed IPv6 host");
    const std::string_view after = host.substr(close + 1);
    if (!after.empty() && !after.starts_with(":")) return InvalidField("url", "has a bad port");
    host = host.substr(1, close - 1);
  } else if (const auto colon = host.rfind(':'); colon != std::string_view::npos) {
    const std::string_view port = host.substr(colon + 1);
    if (port.empty() || port.size() > 5 ||
        !std::all_of(port.begin(), port.end(), [](char c) { return c >= '0' && c <= '9'; }))
      return InvalidField("url", "has a bad port");
    host = host.substr(0, colon);
  }
  if (host.empty()) return InvalidField("url", "has no host");
  if (allow_private) return {};
  std::string lower(host);
  std::transform(lower.begin(), lower.end(), lower.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  if (lower == "localhost" || lower.ends_with(".localhost"))
    return InvalidField("url", "must not name localhost ([webhooks] allow_private allows it)");
  unsigned char probe[16];
  const bool numeric = inet_pton(AF_INET, lower.c_str(), probe) == 1 ||
                       inet_pton(AF_INET6, lower.c_str(), probe) == 1;
  if (numeric && !IsPublicAddress(lower)) {
    return InvalidField("url",
                        "must not be a loopback, private or link-local address ([webhooks] "
                        "allow_private allows it)");
  }
  return {};
}

Result<std::vector<std::string>> ParseEvents(const boost::json::value* events) {
  std::vector<std::string> names;
  if (events == nullptr || events->is_null()) {
    for (const auto name : kRunEndEvents) names.emplace_back(name);
    return names;
  }
  const auto* array = events->if_array();
  if (array == nullptr || array->empty())
    return InvalidField("events",
                        "must be a non-empty array of run.completed, run.failed, "
                        "run.canceled, run.requires_action");
  for (const auto& item : *array) {
    const auto* name = item.if_string();
    if (name == nullptr || std::find(kRunEndEvents.begin(), kRunEndEvents.end(),
                                     std::string_view(*name)) == kRunEndEvents.end())
      return InvalidField("events",
                          "may name only run.completed, run.failed, run.canceled, "
                          "run.requires_action");
    if (std::find(names.begin(), names.end(), std::string_view(*name)) != names.end())
      return InvalidField("events", "names '" + std::string(*name) + "' twice");
    names.emplace_back(*name);
  }
  return names;
}

std::optional<std::int64_t> RetryDelayMs(int attempts, std::int64_t first_retry_ms) {
  static constexpr std::array<std::int64_t, 8> kTimesFirst = {1, 6, 24, 120, 360, 720, 1440, 2880};
  if (attempts < 1 || attempts > static_cast<int>(kTimesFirst.size())) return std::nullopt;
  return first_retry_ms * kTimesFirst[static_cast<std::size_t>(attempts - 1)];
}

}  // namespace agentgate::webhooks
