#pragma once
// A response's status line and header fields as they go on the wire. The server writes them and
// the body in one gather write: Beast's serializer walked the same few buffers through layers of
// buffer views, about a tenth of a gateway call's CPU (docs/performance.md).

#include "adapters/http_server/http_types.hpp"

#include <cstddef>
#include <optional>
#include <string>

namespace agentgate::http {

// Ends with the blank line; the body follows as it is. A header of the response's own list
// replaces Server, Content-Type or an earlier one of the same name (as Beast's `set` did);
// Content-Length, Transfer-Encoding and Connection are the server's alone; a streamed response is
// chunked (HTTP/1.1) or ends with its connection (HTTP/1.0), unless its whole body is ready when
// its head goes out (`whole_stream`: its length): it is then sent as a plain body of that length.
std::string ResponseHead(const Response& response, unsigned version, bool keep_alive,
                         std::optional<std::size_t> whole_stream = std::nullopt);

}  // namespace agentgate::http
