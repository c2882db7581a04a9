#pragma once
// Percent-encoding (RFC 3986 unreserved characters pass) and decoding, one implementation for
// query strings, form bodies and gateway paths.

#include <optional>
#include <string>
#include <string_view>

namespace agentgate {

std::string PercentEncode(std::string_view s);
// nullopt on a malformed escape; `plus_is_space` for query strings and forms.
std::optional<std::string> PercentDecode(std::string_view s, bool plus_is_space);

}  // namespace agentgate
