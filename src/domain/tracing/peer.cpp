#include "domain/tracing/peer.hpp"

#include <charconv>

namespace agentgate::tracing {

std::optional<Peer> PeerOf(std::string_view url) {
  const auto scheme_end = url.find("://");
  if (scheme_end == std::string_view::npos) return std::nullopt;
  const std::string_view scheme = url.substr(0, scheme_end);
  std::string_view authority = url.substr(scheme_end + 3);
  authority = authority.substr(0, authority.find_first_of("/?#"));
  if (const auto at = authority.rfind('@'); at != std::string_view::npos)
    authority = authority.substr(at + 1);
  Peer peer;
  std::string_view port_text;
  if (authority.starts_with('[')) {
    const auto close = authority.find(']');
    if (close == std::string_view::npos) return std::nullopt;
    peer.address = std::string(authority.substr(1, close - 1));
    const std::string_view rest = authority.substr(close + 1);
    if (!rest.empty()) {
      if (!rest.starts_with(':')) return std::nullopt;
      port_text = rest.substr(1);
    }
  } else {
    const auto colon = authority.find(':');
    peer.address = std::string(authority.substr(0, colon));
    if (colon != std::string_view::npos) port_text = authority.substr(colon + 1);
  }
  if (peer.address.empty()) return std::nullopt;
  if (port_text.empty()) {
    if (scheme == "https")
      peer.port = 443;
    else if (scheme == "http")
      peer.port = 80;
    else
      return std::nullopt;
    return peer;
  }
  const auto [end, ec] =
      std::from_chars(port_text.data(), port_text.data() + port_text.size(), peer.port);
  if (ec != std::errc() || end != port_text.data() + port_text.size() || peer.port <= 0 ||
      peer.port > 65535)
    return std::nullopt;
  return peer;
}

}  // namespace agentgate::tracing
