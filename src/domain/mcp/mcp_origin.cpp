#include "domain/mcp/mcp_origin.hpp"

#include <algorithm>
#include <cctype>

namespace agentgate::mcp {
namespace {

std::string Lower(std::string_view text) {
  std::string out(text);
  std::transform(out.begin(), out.end(), out.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return out;
}

// "scheme://host[:port]" of a URL, lowercased: what an Origin header holds.
std::string OriginOf(std::string_view url) {
  const auto scheme_end = url.find("://");
  if (scheme_end == std::string_view::npos) return Lower(url);
  const auto path = url.find_first_of("/?#", scheme_end + 3);
  return Lower(url.substr(0, path));
}

bool IsLoopbackHost(std::string_view host) {
  if (host == "localhost" || host == "[::1]") return true;
  if (!host.starts_with("127.")) return false;
  return std::all_of(host.begin(), host.end(),
                     [](char c) { return c == '.' || (c >= '0' && c <= '9'); });
}

// The host of an origin, without its port.
std::string_view HostOf(std::string_view origin) {
  const auto scheme_end = origin.find("://");
  if (scheme_end == std::string_view::npos) return {};
  std::string_view host = origin.substr(scheme_end + 3);
  if (host.starts_with("[")) return host.substr(0, host.find(']') + 1);
  return host.substr(0, host.find(':'));
}

}  // namespace

bool OriginAllowed(std::string_view origin, std::string_view public_url,
                   const std::vector<std::string>& allowed) {
  const std::string asked = Lower(origin);
  if (!public_url.empty() && asked == OriginOf(public_url)) return true;
  if ((asked.starts_with("http://") || asked.starts_with("https://")) &&
      IsLoopbackHost(HostOf(asked)))
    return true;
  return std::any_of(allowed.begin(), allowed.end(),
                     [&](const std::string& a) { return OriginOf(a) == asked; });
}

}  // namespace agentgate::mcp
