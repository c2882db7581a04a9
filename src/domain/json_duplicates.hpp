#pragma once
// Duplicate keys in a JSON text. Boost.JSON keeps the last of two equal keys; another parser (a
// proxy, a WAF, the caller's own logging) may keep the first, and two readers that disagree about
// one body is how a request gets smuggled past a check. So a body with a duplicate key is refused.

#include <optional>
#include <string>
#include <string_view>

namespace agentgate {

// The path of the first key that appears twice in one object ("message", "config.tools[1].name"),
// or nullopt when there is none or the text is not JSON (the caller's parse reports that).
std::optional<std::string> FirstDuplicateKey(std::string_view json);

}  // namespace agentgate
