#pragma once
// Text an upstream wrote about a failure (a provider's error message) may quote a credential: in
// full, or masked as OpenAI's 401 does ("sk-proj-****abcd"). Such text is kept in transcripts,
// logs, spans, run events and error bodies, so it is redacted before it is kept. Pure.

#include <string>
#include <string_view>
#include <vector>

namespace agentgate {

inline constexpr std::string_view kRedacted = "[redacted]";

// `text` with each of `secrets` (the values this caller knows, such as the key it sent; values
// shorter than 8 characters are ignored) and each word shaped like a credential replaced by
// kRedacted. A credential's shape: a key prefix (sk-, sk_, rk_, pk_, sess-, AKIA, ghp_, xox?-,
// AIza), a run of masking asterisks, or 32 or more characters mixing letters and digits.
std::string RedactCredentials(std::string_view text, const std::vector<std::string>& secrets = {});

}  // namespace agentgate
