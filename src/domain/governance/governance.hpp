#pragma once
// The arithmetic of call governance (SPEC §5), pure so it is tested at its edges: calendar months
// in UTC, the sliding call window, idempotency keys, and spend reservations.

#include "domain/error.hpp"
#include "domain/governance/price.hpp"

#include <cstdint>
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
// The most one model call can cost: its estimated input plus the maximum output.
double WorstCaseUsd(const Price& price, std::int64_t estimated_input_tokens,
                    std::int64_t max_output_tokens);

}  // namespace agentgate::governance
