#pragma once
// The SQL both engines share for webhook deliveries (docs/webhooks.md, "Sharing"): which due
// deliveries a claim may take so that no webhook, and no organization, has more in flight than
// its share. A held delivery is in flight (its attempt is under way on some server, or its server
// died within the hold); the claim takes the longest due first, per webhook and per organization
// only as many as their room. Both engines bind $1..$4 in order: now, the share per webhook, the
// share per organization, the claim's limit.

namespace agentgate {

inline constexpr const char* kClaimableWebhookDeliveries =
    "WITH held AS (SELECT d.webhook_id, w.org_id FROM webhook_deliveries d JOIN webhooks w ON w.id "
    "= d.webhook_id WHERE d.status = 'pending' AND d.held_until_ms > $1), "
    "held_per_webhook AS (SELECT webhook_id, count(*) AS n FROM held GROUP BY webhook_id), "
    "held_per_org AS (SELECT org_id, count(*) AS n FROM held GROUP BY org_id), "
    "due AS (SELECT d.id, d.webhook_id, w.org_id, d.next_attempt_at_ms, row_number() OVER "
    "(PARTITION BY d.webhook_id ORDER BY d.next_attempt_at_ms, d.id) AS nth FROM "
    "webhook_deliveries d JOIN webhooks w ON w.id = d.webhook_id WHERE d.status = 'pending' AND "
    "d.next_attempt_at_ms <= $1 AND d.held_until_ms <= $1), "
    "room_in_webhook AS (SELECT due.id, due.org_id, due.next_attempt_at_ms FROM due LEFT JOIN "
    "held_per_webhook h ON h.webhook_id = due.webhook_id WHERE due.nth + coalesce(h.n, 0) <= $2), "
    "ranked_in_org AS (SELECT r.id, r.org_id, r.next_attempt_at_ms, row_number() OVER (PARTITION "
    "BY r.org_id ORDER BY r.next_attempt_at_ms, r.id) AS nth FROM room_in_webhook r) "
    "SELECT r.id FROM ranked_in_org r LEFT JOIN held_per_org o ON o.org_id = r.org_id WHERE r.nth "
    "+ coalesce(o.n, 0) <= $3 ORDER BY r.next_attempt_at_ms, r.id LIMIT $4";

}  // namespace agentgate
