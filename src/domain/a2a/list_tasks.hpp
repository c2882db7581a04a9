#pragma once
// A2A's ListTasksRequest (docs/a2a.md, "Listing tasks"), read and checked, and the opaque page
// token that carries its cursor. Pure.

#include "domain/a2a/protocol.hpp"

#include <boost/json/value.hpp>

#include <cstdint>
#include <optional>
#include <string>
#include <variant>

namespace agentgate::a2a {

inline constexpr int kDefaultPageSize = 50;
inline constexpr int kMaxPageSize = 100;

struct TasksAsked {
  std::string context_id;  // "": any
  // The run outcomes the status asked for, as Store::ListAgentRuns takes them ("": any).
  std::string outcomes;
  bool none = false;  // a state no stored task has (REJECTED, AUTH_REQUIRED): an empty page
  int page_size = kDefaultPageSize;
  std::int64_t after_changed_ms = 0;  // the page token's cursor (0: from the latest)
  std::string after_id;
  std::int64_t changed_after_ms = 0;  // statusTimestampAfter (0: any)
  bool include_artifacts = false;
};

// Fields may come as JSON (JSON-RPC) or as the strings of a query (HTTP+JSON): "50", "true".
// Invalid params naming the field for anything else.
std::variant<TasksAsked, ProtocolError> ReadListTasks(const boost::json::value& params);

// The next page's token: where this page ended.
std::string PageToken(std::int64_t changed_ms, std::string_view run_id);

// An ISO 8601 UTC time ("2026-12-07T10:30:00Z", fractions of a second allowed) in ms since the
// epoch; none when it is not one.
std::optional<std::int64_t> ParseUtcTimestamp(std::string_view text);

}  // namespace agentgate::a2a
