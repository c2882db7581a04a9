#pragma once
// Which browser origins may call /mcp (the MCP transport's DNS-rebinding rule: a present Origin
// that is not allowed is refused with 403, whatever the credential). Pure.

#include <string>
#include <string_view>
#include <vector>

namespace agentgate::mcp {

// An Origin header is allowed when it is the origin of `public_url` ([server] public_url), a
// loopback origin (localhost, 127.0.0.0/8, [::1]: a local client or the console on this machine),
// or one of `allowed` ([server] allowed_origins); scheme and host compare without regard to case.
bool OriginAllowed(std::string_view origin, std::string_view public_url,
                   const std::vector<std::string>& allowed);

}  // namespace agentgate::mcp
