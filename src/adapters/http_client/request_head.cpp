#include "adapters/http_client/request_head.hpp"

#include <strings.h>

namespace agentgate::upstream {
namespace {

bool SameName(std::string_view a, std::string_view b) {
  return a.size() == b.size() && ::strncasecmp(a.data(), b.data(), a.size()) == 0;
}

}  // namespace

std::string HostField(std::string_view host, std::string_view port, bool default_port) {
  const bool v6 = host.find(':') != std::string_view::npos;
  std::string field;
  field.append(v6 ? "[" : "").append(host).append(v6 ? "]" : "");
  if (!default_port) field.append(":").append(port);
  return field;
}

std::string RequestHead(const RequestStart& start,
                        const std::vector<std::pair<std::string, std::string>>& headers,
                        std::size_t body_size) {
  std::string head;
  head.reserve(256);
  head.append(start.method).append(" ").append(start.target).append(" HTTP/1.1\r\n");
  const auto add = [&head](std::string_view name, std::string_view value) {
    head.append(name).append(": ").append(value).append("\r\n");
  };
  const auto replaced_after = [&headers](std::string_view name, std::size_t from) {
    for (std::size_t i = from; i < headers.size(); ++i)
      if (SameName(headers[i].first, name)) return true;
    return false;
  };
  if (!replaced_after("Host", 0)) add("Host", start.host);
  if (!replaced_after("User-Agent", 0)) add("User-Agent", "agentgate");
  for (std::size_t i = 0; i < headers.size(); ++i) {
    const auto& [name, value] = headers[i];
    if (SameName(name, "Content-Length") || SameName(name, "Transfer-Encoding") ||
        SameName(name, "Connection"))
      continue;
    if (!replaced_after(name, i + 1)) add(name, value);
  }
  const bool sends_length =
      body_size > 0 || start.method == "POST" || start.method == "PUT" || start.method == "OPTIONS";
  if (sends_length) add("Content-Length", std::to_string(body_size));
  head += "\r\n";
  return head;
}

}  // namespace agentgate::upstream
