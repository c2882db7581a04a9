#include "adapters/http_server/response_head.hpp"

#include <boost/beast/http/status.hpp>

#include <strings.h>

#include <array>
#include <string_view>

namespace agentgate::http {
namespace {

bool SameName(std::string_view a, std::string_view b) {
  return a.size() == b.size() && ::strncasecmp(a.data(), b.data(), a.size()) == 0;
}

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

std::string ResponseHead(const Response& response, unsigned version, bool keep_alive) {
  std::string head;
  head.reserve(192);
  head += version == 10 ? "HTTP/1.0 " : "HTTP/1.1 ";
  head += std::to_string(response.status);
  head += ' ';
  head += ReasonFor(response.status);
  head += "\r\n";
  const auto add = [&head](std::string_view name, std::string_view value) {
    head.append(name).append(": ").append(value).append("\r\n");
  };
  const auto& extra = response.headers;
  const auto replaced_after = [&extra](std::string_view name, std::size_t from) {
    for (std::size_t i = from; i < extra.size(); ++i)
      if (SameName(extra[i].first, name)) return true;
    return false;
  };
  if (!replaced_after("Server", 0)) add("Server", "agentgate");
  if (!replaced_after("Content-Type", 0)) add("Content-Type", response.content_type);
  for (std::size_t i = 0; i < extra.size(); ++i) {
    const auto& [name, value] = extra[i];
    if (SameName(name, "Content-Length") || SameName(name, "Connection")) continue;
    if (!replaced_after(name, i + 1)) add(name, value);
  }
  if (MayHaveLength(response.status)) add("Content-Length", std::to_string(response.body.size()));
  // HTTP/1.1 keeps a connection unless told; HTTP/1.0 closes it unless told.
  if (version == 10 && keep_alive) add("Connection", "keep-alive");
  if (version != 10 && !keep_alive) add("Connection", "close");
  head += "\r\n";
  return head;
}

}  // namespace agentgate::http
