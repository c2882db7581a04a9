#pragma once
// An HTTP message's header fields, written the way both of agentgate's HTTP adapters send them
// (the server's answers, the client's requests), as Beast's `set` would have: a default is sent
// unless the message's own list names the same field, a later field of the list replaces an
// earlier one of the same name, and the writer's framing fields (its length, `Connection`) are
// never taken from the list. Names compare without regard to case.

#include <initializer_list>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace agentgate::http_fields {

struct Field {
  std::string_view name;
  std::string_view value;
};

void Append(std::string& head, std::string_view name, std::string_view value);

// Appends `defaults` not named in `fields`, then `fields` except the framing names and those a
// later field of the same name replaces.
void AppendFields(std::string& head, std::initializer_list<Field> defaults,
                  const std::vector<std::pair<std::string, std::string>>& fields,
                  std::initializer_list<std::string_view> framing);

}  // namespace agentgate::http_fields
