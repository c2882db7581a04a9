#pragma once
// How long a match of an operator's block pattern can be, in bytes, when the pattern says so
// (docs/runs.md, "Safety on a stream"): a stream then holds back no more than that. Derived only
// for what bounds a match by itself: literals, alternations, groups, classes, `.`, escapes,
// anchors, and repeats with an upper bound (`?`, `{n}`, `{n,m}`). A pattern with `*`, `+` or
// `{n,}`, or any syntax this does not read, has no bound. Counts are upper bounds in UTF-8: a
// class or `.` may match a 4-byte character, and a letter under `(?i)` a 3-byte one (the Kelvin
// sign folds to `k`).

#include <cstddef>
#include <optional>
#include <string_view>

namespace agentgate {

inline constexpr std::size_t kMaxDerivedMatchBytes = 4096;

// The most bytes one match of `pattern` (RE2 syntax, already valid) spans, or none when the
// pattern does not bound it or the bound passes kMaxDerivedMatchBytes.
std::optional<std::size_t> MaxMatchBytes(std::string_view pattern);

}  // namespace agentgate
