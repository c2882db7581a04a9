#pragma once
// One JSON object per line on stdout. Callers pass fields explicitly; nothing secret is ever a
// field.

#include <cstdint>
#include <initializer_list>
#include <string>
#include <string_view>
#include <utility>
#include <variant>

namespace agentgate::log {

using Value = std::variant<std::string_view, std::int64_t, double, bool>;
using Field = std::pair<std::string_view, Value>;

// `more` follows `fields` (fields a caller adds only sometimes, e.g. a request's trace ids).
void Write(std::string_view level, std::string_view event, std::initializer_list<Field> fields = {},
           std::initializer_list<Field> more = {});
inline void Info(std::string_view event, std::initializer_list<Field> fields = {}) {
  Write("info", event, fields);
}
inline void Warn(std::string_view event, std::initializer_list<Field> fields = {}) {
  Write("warn", event, fields);
}
inline void Error(std::string_view event, std::initializer_list<Field> fields = {}) {
  Write("error", event, fields);
}

// One line as Write() prints it, at `epoch_ms`, with its newline.
std::string Line(std::int64_t epoch_ms, std::string_view level, std::string_view event,
                 std::initializer_list<Field> fields = {}, std::initializer_list<Field> more = {});
// A line's "ts": RFC 3339 in UTC with milliseconds, e.g. 2026-11-25T22:30:00.123Z.
std::string Timestamp(std::int64_t epoch_ms);

// Silences output (tests that start many servers in-process).
void SetEnabled(bool enabled);

// Waits until every line written so far reached stdout (before exit, and before printing to
// stdout directly so the order holds).
void Flush();

}  // namespace agentgate::log
