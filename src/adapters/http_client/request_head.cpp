#include "adapters/http_client/request_head.hpp"

#include "adapters/http_common/header_fields.hpp"

namespace agentgate::upstream {

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
  http_fields::AppendFields(head, {{"Host", start.host}, {"User-Agent", "agentgate"}}, headers,
                            {"Content-Length", "Transfer-Encoding", "Connection"});
  const bool sends_length =
      body_size > 0 || start.method == "POST" || start.method == "PUT" || start.method == "OPTIONS";
  if (sends_length) http_fields::Append(head, "Content-Length", std::to_string(body_size));
  head += "\r\n";
  return head;
}

}  // namespace agentgate::upstream
