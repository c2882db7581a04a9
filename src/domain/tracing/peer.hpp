#pragma once
// The `server.address` and `server.port` of a client span, read from the URL it calls. Pure.

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace agentgate::tracing {

struct Peer {
  std::string address;  // host name or IP literal (an IPv6 literal without its brackets)
  std::int64_t port = 0;
};

// "scheme://[userinfo@]host[:port][/...]"; the scheme's port when none is written (http 80, https
// 443). None when the URL has no host or an unreadable port.
std::optional<Peer> PeerOf(std::string_view url);

}  // namespace agentgate::tracing
