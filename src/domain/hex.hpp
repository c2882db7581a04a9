#pragma once
// Lower-case hex of bytes, and the value of one hex digit: one implementation for tokens, keys,
// fingerprints, percent-escapes and bytea.

#include <string>
#include <string_view>

namespace agentgate {

std::string ToHex(std::string_view bytes);
// 0-15, or -1 for a character that is not a hex digit (either case).
int HexDigitValue(char c);

}  // namespace agentgate
