#include "adapters/http_common/header_fields.hpp"

#include <boost/beast/core/string.hpp>

#include <algorithm>

namespace agentgate::http_fields {

namespace {

bool NamedFrom(const std::vector<std::pair<std::string, std::string>>& fields, std::size_t from,
               std::string_view name) {
  return std::any_of(
      fields.begin() + static_cast<std::ptrdiff_t>(from), fields.end(),
      [name](const auto& field) { return boost::beast::iequals(field.first, name); });
}

}  // namespace

void Append(std::string& head, std::string_view name, std::string_view value) {
  head.append(name).append(": ").append(value).append("\r\n");
}

void AppendFields(std::string& head, std::initializer_list<Field> defaults,
                  const std::vector<std::pair<std::string, std::string>>& fields,
                  std::initializer_list<std::string_view> framing) {
  for (const Field& field : defaults) {
    if (!NamedFrom(fields, 0, field.name)) Append(head, field.name, field.value);
  }
  for (std::size_t i = 0; i < fields.size(); ++i) {
    const auto& [name, value] = fields[i];
    const bool framed = std::any_of(framing.begin(), framing.end(), [&name](std::string_view f) {
      return boost::beast::iequals(name, f);
    });
    if (!framed && !NamedFrom(fields, i + 1, name)) Append(head, name, value);
  }
}

}  // namespace agentgate::http_fields
