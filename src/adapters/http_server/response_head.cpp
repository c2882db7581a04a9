#include "adapters/http_server/response_head.hpp"

#include "adapters/http_common/header_fields.hpp"

#include <boost/beast/http/status.hpp>

#include <array>
#include <string_view>

namespace agentgate::http {
namespace {

std::string_view ReasonFor(int status) {
  if (status == 499) return "Client Closed Request";  // nginx's, for a canceled turn
  const std::string_view reason(
      boost::beast::http::obsolete_reason(static_cast<boost::beast::http::status>(status)));
  return reason == "<unknown-status>" ? std::string_view() : reason;
}

// A 1xx, 204 or 304 answer has no body and no length (RFC 9110, 8.6).
bool MayHaveLength(int status) {
  return status >= 200 && status != 204 && status != 304;
}

}  // namespace

std::string ResponseHead(const Response& response, unsigned version, bool keep_alive,
                         std::optional<std::size_t> whole_stream) {
  // Room for it all from the start (a stream's head, with its own fields and its run's Location,
  // outgrew a fixed guess and was copied).
  std::size_t size = 192 + response.content_type.size();
  for (const auto& [name, value] : response.headers) size += name.size() + value.size() + 4;
  std::string head;
  head.reserve(size);
  head += version == 10 ? "HTTP/1.0 " : "HTTP/1.1 ";
  head += std::to_string(response.status);
  head += ' ';
  head += ReasonFor(response.status);
  head += "\r\n";
  http_fields::AppendFields(
      head, {{"Server", "agentgate"}, {"Content-Type", response.content_type}}, response.headers,
      {"Content-Length", "Connection", "Transfer-Encoding"});
  if (whole_stream) {
    http_fields::Append(head, "Content-Length", std::to_string(*whole_stream));
  } else if (response.stream) {
    // HTTP/1.0 has no chunks: the body ends with the connection (the server closes it).
    if (version != 10) http_fields::Append(head, "Transfer-Encoding", "chunked");
  }
  // A stream is live: neither cached nor held back by a proxy (nginx buffers unless told).
  if (response.stream) {
    http_fields::Append(head, "Cache-Control", "no-cache");
    http_fields::Append(head, "X-Accel-Buffering", "no");
  } else if (MayHaveLength(response.status)) {
    http_fields::Append(head, "Content-Length", std::to_string(response.body.size()));
  }
  // HTTP/1.1 keeps a connection unless told; HTTP/1.0 closes it unless told.
  if (version == 10 && keep_alive) http_fields::Append(head, "Connection", "keep-alive");
  if (version != 10 && !keep_alive) http_fields::Append(head, "Connection", "close");
  head += "\r\n";
  return head;
}

}  // namespace agentgate::http
