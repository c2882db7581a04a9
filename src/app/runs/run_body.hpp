#pragma once
// A run as the API shows it (docs/runs.md): the 202 of a background invoke, and GET
// /api/runs/{run_id}'s body.

#include "ports/store_records.hpp"

#include <boost/json/object.hpp>

namespace agentgate {

// {run_id, status: "queued", conversation_id}: what a background invoke answers, and what its
// Idempotency-Key replays.
boost::json::object QueuedRunBody(const RunRecord& run);
// {run_id, agent_id, status, conversation_id, result, error, created_at, started_at, ended_at}.
boost::json::object RunBody(const RunRecord& run);

}  // namespace agentgate
