#pragma once
// A run's events folded into its row (docs/runs.md, "Where a run's events are kept"), once for
// both engines: a run written once, at its end, keeps its events in one column rather than a row
// each. Each event is "<seq>\t<type>\t<length of data>\t<data>\n", so data may hold any byte.

#include "ports/store_records.hpp"

#include <string>
#include <vector>

namespace agentgate {

std::string PackRunEvents(const std::vector<RunEvent>& events);
// Those after `after_seq`, at most `limit`; a log cut short or garbled ends where it stops making
// sense (what came before is returned).
std::vector<RunEvent> UnpackRunEvents(std::string_view log, std::int64_t after_seq, int limit);

}  // namespace agentgate
