#include "adapters/http_server/http_types.hpp"

#include "domain/url_encoding.hpp"

namespace agentgate::http {
namespace {

// Query parameters: a malformed escape is kept as sent rather than refused.
std::string Decode(std::string_view s) {
  return PercentDecode(s, true).value_or(std::string(s));
}

}  // namespace

std::optional<std::string_view> Request::Header(std::string_view lower_name) const {
  for (const auto& [k, v] : headers) {
    if (k == lower_name) return std::string_view(v);
  }
  return std::nullopt;
}

void Request::ReleasePayload() {
  std::string().swap(body);
  std::vector<std::pair<std::string, std::string>>().swap(headers);
}

std::optional<std::string_view> Request::Cookie(std::string_view name) const {
  const auto header = Header("cookie");
  if (!header) return std::nullopt;
  std::string_view rest = *header;
  while (!rest.empty()) {
    const auto end = rest.find(';');
    std::string_view pair = rest.substr(0, end);
    rest = end == std::string_view::npos ? std::string_view{} : rest.substr(end + 1);
    while (!pair.empty() && pair.front() == ' ') pair.remove_prefix(1);
    const auto eq = pair.find('=');
    if (eq != std::string_view::npos && pair.substr(0, eq) == name) return pair.substr(eq + 1);
  }
  return std::nullopt;
}

std::optional<std::string> Request::QueryParam(std::string_view name) const {
  std::string_view rest = query;
  while (!rest.empty()) {
    const auto amp = rest.find('&');
    const std::string_view pair = rest.substr(0, amp);
    rest = amp == std::string_view::npos ? std::string_view() : rest.substr(amp + 1);
    const auto eq = pair.find('=');
    if (Decode(pair.substr(0, eq)) == name) {
      return eq == std::string_view::npos ? std::string() : Decode(pair.substr(eq + 1));
    }
  }
  return std::nullopt;
}

}  // namespace agentgate::http
