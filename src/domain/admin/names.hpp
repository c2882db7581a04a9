#pragma once
// Syntax of the identifiers the operator and callers choose: org ids, environment names, agent
// ids, instance ids, group keys. One place, so every route agrees.

#include <string_view>

namespace agentgate::names {

// [A-Za-z0-9_-]{1,64}: org ids, agent ids, token names' ids.
bool IsValidId(std::string_view s);
// [a-z0-9_-]{1,32}: environment names such as prod, dev.
bool IsValidEnvironment(std::string_view s);
// [A-Za-z0-9._@-]{1,128}: instance ids and group keys (the source's Group Key rule).
bool IsValidGroupKey(std::string_view s);
bool IsValidInstanceId(std::string_view s);
// 1-128 printable characters: display names.
bool IsValidDisplayName(std::string_view s);
// YYYY-MM.
bool IsValidMonth(std::string_view s);

}  // namespace agentgate::names
