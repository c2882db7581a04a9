#pragma once
// The SQL both engines share for runs (their rules are store_common/run_write's).

#include "ports/store_records.hpp"

#include <cstdint>
#include <limits>
#include <optional>
#include <string>

namespace agentgate {

// A background run on an existing conversation takes its place in the conversation's line as it
// is queued (docs/runs.md): a ticket naming the run and no server, that no expiry ends while the
// run waits. The run is claimed once no live ticket is ahead of it; its turn then holds the
// ticket, and its end, however it comes, takes the ticket away.
inline constexpr std::int64_t kQueuedPlaceExpiry = std::numeric_limits<std::int64_t>::max();
inline bool TakesPlaceAsQueued(const RunRecord& run) {
  return run.status == RunStatus::kQueued && !run.conversation_id.empty() &&
         !run.creates_conversation;
}

// An organization's runs waiting in the store, queued or paused for a decision: what
// [runs] max_queued_per_org bounds (both engines bind $1: the organization).
inline constexpr const char* kCountWaitingRuns =
    "SELECT COUNT(*) FROM runs WHERE org_id = $1 AND status IN ('queued', 'requires_action')";

// The queued runs a claim may start (docs/runs.md, "Fair shares"), as the CTE `fair` (id, nth,
// created_at_ms): organizations in turn (every organization's oldest eligible run, then every
// one's second, ...), the organizations whose oldest queued run waited longest first, none past its
// share of the background runs running across servers, none with a live ticket ahead of its place.
// Each step reads an index: the organizations with queued runs one seek each (runs_queued_by_org),
// and only the few that can start anything are read further (runs_queued_by_org_age), so a
// backlog of 100,000 costs a claim a few milliseconds. Both engines bind $1..$3 in order: the
// share (max_running_per_org), the most to claim, now.
inline constexpr const char* kFairQueuedRuns =
    "WITH RECURSIVE orgs(org) AS (SELECT (SELECT org_id FROM runs WHERE status = 'queued' ORDER "
    "BY org_id LIMIT 1) UNION ALL SELECT (SELECT org_id FROM runs WHERE status = 'queued' AND "
    "org_id > orgs.org ORDER BY org_id LIMIT 1) FROM orgs WHERE orgs.org IS NOT NULL), busy AS "
    "(SELECT org_id, COUNT(*) AS n FROM runs WHERE status = 'running' AND background = TRUE GROUP "
    "BY org_id), chosen AS (SELECT o.org, COALESCE(b.n, 0) AS running FROM orgs o LEFT JOIN busy "
    "b ON b.org_id = o.org WHERE o.org IS NOT NULL AND COALESCE(b.n, 0) < $1 ORDER BY (SELECT "
    "MIN(created_at_ms) FROM runs WHERE status = 'queued' AND org_id = o.org) LIMIT $2), eligible "
    "AS (SELECT r.id, r.org_id, r.created_at_ms, c.running FROM chosen c JOIN runs r ON r.id IN "
    "(SELECT x.id FROM runs x WHERE x.org_id = c.org AND x.status = 'queued' AND NOT EXISTS "
    "(SELECT 1 FROM conversation_turn_queue mine JOIN conversation_turn_queue q ON "
    "q.conversation_id = mine.conversation_id AND q.ticket < mine.ticket WHERE mine.run_id = x.id "
    "AND q.expires_at_ms > $3) ORDER BY x.created_at_ms, x.id LIMIT $2)), fair AS (SELECT id, "
    "nth, created_at_ms FROM (SELECT id, created_at_ms, running, ROW_NUMBER() OVER (PARTITION BY "
    "org_id ORDER BY created_at_ms, id) AS nth FROM eligible) ranked WHERE nth + running <= $1 "
    "ORDER BY nth, created_at_ms, id LIMIT $2) ";

// A paused run decided to go on in the background goes back to the queue with what it needs
// (run_state::Requeue, one conditional write: paused and not expired). Both engines bind $1..$3:
// its queued request (DecidedRunJson), the run, now.
inline constexpr const char* kRequeueDecidedRun =
    "UPDATE runs SET status = 'queued', request = $1, server_id = '' WHERE id = $2 AND status = "
    "'requires_action' AND expires_at_ms > $3";

// What a run's end adds for its webhooks, in the end's transaction (both engines bind $1..$6 in
// order: run id, event type, now, org, env, the LIKE pattern of the type): a pending delivery per
// webhook of the run's environment that wants the type, its id stable across attempts.
inline constexpr const char* kEnqueueRunWebhooks =
    "INSERT INTO webhook_deliveries(id, webhook_id, run_id, type, status, attempts, "
    "next_attempt_at_ms, held_until_ms, created_at_ms, log) SELECT 'msg_' || substr($1, 5) || '_' "
    "|| substr(id, 4), id, $1, $2, 'pending', 0, $3, 0, $3, '[]' FROM webhooks WHERE org_id = $4 "
    "AND env = $5 AND events LIKE $6 AND run_id = ''";

// What a run's pause for approval adds for its webhooks, in its turn's commit, when the run
// notifies (both engines bind $1..$6 in order: run id, the pause's expiry as text (a run may pause
// more than once: each pause's delivery has an id of its own), now, org, env, the LIKE pattern).
inline constexpr const char* kEnqueuePauseWebhooks =
    "INSERT INTO webhook_deliveries(id, webhook_id, run_id, type, status, attempts, "
    "next_attempt_at_ms, held_until_ms, created_at_ms, log) SELECT 'msg_' || substr($1, 5) || "
    "'_p' || $2 || '_' || substr(w.id, 4), w.id, $1, 'run.requires_action', 'pending', 0, $3, 0, "
    "$3, '[]' FROM webhooks w JOIN runs r ON r.id = $1 AND r.notify WHERE w.org_id = $4 AND "
    "w.env = $5 AND w.events LIKE $6 AND w.run_id = ''";

// What a run's pause or end adds for its own push configs (an A2A task's, docs/a2a.md), whether
// or not it notifies its environment; both engines bind $1..$5 in order: run id, the delivery
// id's middle ("_" for an end, "_p<expiry>_" for a pause, as above), the type, now, and one
// config's webhook id to add for it alone ("" for all). A delivery already there stays.
inline constexpr const char* kEnqueueTaskWebhooks =
    "INSERT INTO webhook_deliveries(id, webhook_id, run_id, type, status, attempts, "
    "next_attempt_at_ms, held_until_ms, created_at_ms, log) SELECT 'msg_' || substr($1, 5) || $2 "
    "|| substr(id, 4), id, $1, $3, 'pending', 0, $4, 0, $4, '[]' FROM webhooks WHERE run_id = $1 "
    "AND ($5 = '' OR id = $5) ON CONFLICT DO NOTHING";

// The delivery id's middle of a pause's delivery (kEnqueueTaskWebhooks).
inline std::string PauseDeliveryMiddle(std::int64_t expires_at_ms) {
  return "_p" + std::to_string(expires_at_ms) + "_";
}

// The delivery a push config saved on a run that already paused or ended gets at once: the same
// one (id, type) the pause or end made for the run's other configs.
struct TaskPushDelivery {
  std::string middle;
  std::string type;
};
inline std::optional<TaskPushDelivery> TaskPushCatchUp(const std::string& status,
                                                       std::int64_t expires_at_ms) {
  if (status == "requires_action")
    return TaskPushDelivery{PauseDeliveryMiddle(expires_at_ms), "run.requires_action"};
  if (status == "completed" || status == "failed" || status == "canceled")
    return TaskPushDelivery{"_", "run." + status};
  return std::nullopt;
}

// A run written once, as it ended (RunWrite::kCreateEnded), for both engines: they bind $1..$16 in
// order: id, org, env, agent, token, status, conversation, creates_conversation, created, started,
// ended, server, notify, result, error, and its folded events (run_event_log).
inline constexpr const char* kInsertEndedRun =
    "INSERT INTO runs(id, org_id, env, agent_id, token_id, status, conversation_id, "
    "creates_conversation, created_at_ms, started_at_ms, ended_at_ms, server_id, notify, result, "
    "error, events) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16)";

}  // namespace agentgate
