#pragma once
// A request's line and header fields as they go on the wire; the client writes them and the body
// in one gather write (as the server does its answers: http_server/response_head.hpp).

#include <cstddef>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace agentgate::upstream {

struct RequestStart {
  std::string_view method;  // a known method in its canonical spelling
  std::string_view target;  // path and query
  std::string_view host;    // with its port unless the scheme's default
};

// The Host field of an origin: an IPv6 literal in brackets, the port unless the scheme's default.
std::string HostField(std::string_view host, std::string_view port, bool default_port);

// Ends with the blank line. HTTP/1.1, kept alive. A caller's header replaces Host, User-Agent or
// an earlier one of the same name; Content-Length, Transfer-Encoding and Connection are the
// client's alone. A body's length is sent when there is one, and for POST, PUT and OPTIONS always.
std::string RequestHead(const RequestStart& start,
                        const std::vector<std::pair<std::string, std::string>>& headers,
                        std::size_t body_size);

}  // namespace agentgate::upstream
