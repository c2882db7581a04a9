#pragma once
// The arithmetic of call governance (SPEC §5), pure so it is tested at its edges: calendar months
// in UTC, the sliding call window, idempotency keys, and spend reservations.

#include "domain/agent/model_types.hpp"
#include "domain/error.hpp"
#include "domain/governance/price.hpp"

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>

namespace agentgate::governance {

constexpr std::int64_t kConversationWindowMs = 120000;
constexpr int kConversationCallLimit = 200;
constexpr std::int64_t kIdempotencyReplayMs = 24LL * 3600 * 1000;

// "YYYY-MM" of a UTC instant.
std::string MonthOf(std::int64_t epoch_ms);
// 00:00:00 UTC on the 1st of the month after `epoch_ms`, as epoch ms.
std::int64_t NextMonthStartMs(std::int64_t epoch_ms);
// ISO 8601 UTC, e.g. 2026-12-01T00:00:00Z.
std::string IsoUtc(std::int64_t epoch_ms);

// Whole seconds until the oldest call in the window leaves it (at least 1).
int RetryAfterSeconds(std::int64_t oldest_call_ms, std::int64_t window_ms, std::int64_t now_ms);

// Idempotency-Key header: 1-255 visible ASCII characters.
Result<void> ValidateIdempotencyKey(std::string_view key);

// USD for tokens at a price per million tokens.
double CostUsd(const Price& price, std::int64_t input_tokens, std::int64_t output_tokens);
// USD for a call's tokens: the cached and cache-written part of its input at their own prices, the
// rest at the input price.
double CostUsd(const Price& price, const TokenUsage& usage);
// The most one model call can cost: its estimated input (all of it written to the cache, when
// that costs more) plus the maximum output.
double WorstCaseUsd(const Price& price, std::int64_t estimated_input_tokens,
                    std::int64_t max_output_tokens);

// A monthly limit that spending has reached, so no new reservation may start against it.
struct LimitReached {
  std::string scope;  // "organization" | "agent"
  double limit_usd = 0;
  double spent_usd = 0;
};
// The first limit reached, the organization's before the agent's. A limit is reached once settled
// plus reserved spend meets it; a reservation may cross it, so concurrent turns overshoot by at
// most one reservation. spent(true) reads the organization's month, spent(false) the agent's; each
// is read only when its limit is set.
std::optional<LimitReached> FirstLimitReached(std::optional<double> org_limit_usd,
                                              std::optional<double> agent_limit_usd,
                                              const std::function<double(bool whole_org)>& spent);

// 402 spend_limit_reached: the limit reached (scope, limit_usd, spent_usd) and when it resets.
Error SpendLimitError(const LimitReached& reached, std::int64_t now_ms);

// A reservation of at least `needed_usd` (one call's worst case) and up to `wanted_usd` (a server's
// lease for several calls): refused once a limit is reached; otherwise what is wanted while a
// quarter of the headroom under the tighter limit covers it, so servers sharing a nearly spent
// budget each get a slice of it, and never less than what is needed (it may cross the limit once).
struct SpendGrant {
  std::optional<LimitReached> refused;
  double amount_usd = 0;  // when not refused
};
SpendGrant GrantSpend(std::optional<double> org_limit_usd, std::optional<double> agent_limit_usd,
                      const std::function<double(bool whole_org)>& spent, double needed_usd,
                      double wanted_usd);

}  // namespace agentgate::governance
