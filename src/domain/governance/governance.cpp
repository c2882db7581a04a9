#include "domain/governance/governance.hpp"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <ctime>

namespace agentgate::governance {
namespace {

std::tm UtcOf(std::int64_t epoch_ms) {
  // Floor division so instants before 1970 still land in the right second.
  const std::time_t t =
      static_cast<std::time_t>(epoch_ms >= 0 ? epoch_ms / 1000 : (epoch_ms - 999) / 1000);
  std::tm tm{};
  gmtime_r(&t, &tm);
  return tm;
}

char Digit(int d) {
  return static_cast<char>('0' + d);
}

}  // namespace

std::string MonthOf(std::int64_t epoch_ms) {
  // Calendar arithmetic, not gmtime_r and snprintf: every turn asks for its month.
  using namespace std::chrono;
  const year_month_day day{floor<days>(sys_time<milliseconds>(milliseconds(epoch_ms)))};
  const int y = static_cast<int>(day.year());
  const unsigned m = static_cast<unsigned>(day.month());
  if (y < 0 || y > 9999) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%04d-%02u", y, m);
    return buf;
  }
  std::string out = "0000-00";
  for (int i = 3, v = y; i >= 0; --i, v /= 10) out[static_cast<std::size_t>(i)] = Digit(v % 10);
  out[5] = Digit(static_cast<int>(m / 10));
  out[6] = Digit(static_cast<int>(m % 10));
  return out;
}

std::int64_t NextMonthStartMs(std::int64_t epoch_ms) {
  std::tm tm = UtcOf(epoch_ms);
  tm.tm_mday = 1;
  tm.tm_hour = tm.tm_min = tm.tm_sec = 0;
  if (++tm.tm_mon == 12) {
    tm.tm_mon = 0;
    ++tm.tm_year;
  }
  return static_cast<std::int64_t>(timegm(&tm)) * 1000;
}

std::string IsoUtc(std::int64_t epoch_ms) {
  const std::tm tm = UtcOf(epoch_ms);
  char buf[40];
  std::snprintf(buf, sizeof buf, "%04d-%02d-%02dT%02d:%02d:%02dZ", tm.tm_year + 1900, tm.tm_mon + 1,
                tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec);
  return buf;
}

int RetryAfterSeconds(std::int64_t oldest_call_ms, std::int64_t window_ms, std::int64_t now_ms) {
  const std::int64_t wait_ms = oldest_call_ms + window_ms - now_ms;
  return static_cast<int>(std::max<std::int64_t>(1, (wait_ms + 999) / 1000));
}

Result<void> ValidateIdempotencyKey(std::string_view key) {
  if (key.empty() || key.size() > 255) {
    return Error(ErrorCode::kInvalidRequest,
                 "header 'Idempotency-Key' must be 1-255 visible ASCII characters");
  }
  for (char c : key) {
    if (c < 0x21 || c > 0x7e) {
      return Error(ErrorCode::kInvalidRequest,
                   "header 'Idempotency-Key' must be 1-255 visible ASCII characters");
    }
  }
  return {};
}

double CostUsd(const Price& price, std::int64_t input_tokens, std::int64_t output_tokens) {
  return (static_cast<double>(input_tokens) * price.input_per_mtok +
          static_cast<double>(output_tokens) * price.output_per_mtok) /
         1e6;
}

double CostUsd(const Price& price, const TokenUsage& usage) {
  // A provider's counts are trusted only as far as they add up: the cached parts never exceed the
  // input they are part of.
  const std::int64_t cached = std::clamp<std::int64_t>(
      usage.cached_input_tokens, 0, std::max<std::int64_t>(usage.input_tokens, 0));
  const std::int64_t written =
      std::clamp<std::int64_t>(usage.cache_write_tokens, 0, usage.input_tokens - cached);
  const std::int64_t plain = std::max<std::int64_t>(usage.input_tokens - cached - written, 0);
  return (static_cast<double>(plain) * price.input_per_mtok +
          static_cast<double>(cached) * price.CachedInput() +
          static_cast<double>(written) * price.CacheWrite() +
          static_cast<double>(usage.output_tokens) * price.output_per_mtok) /
         1e6;
}

double WorstCaseUsd(const Price& price, std::int64_t estimated_input_tokens,
                    std::int64_t max_output_tokens) {
  const double input = std::max(price.input_per_mtok, price.CacheWrite());
  return (static_cast<double>(estimated_input_tokens) * input +
          static_cast<double>(max_output_tokens) * price.output_per_mtok) /
         1e6;
}

Error SpendLimitError(const LimitReached& reached, std::int64_t now_ms) {
  Error error(ErrorCode::kSpendLimitReached,
              "the " + reached.scope + "'s monthly spend limit is reached");
  error.With("scope", reached.scope)
      .With("limit_usd", reached.limit_usd)
      .With("spent_usd", reached.spent_usd)
      .With("resets_at", IsoUtc(NextMonthStartMs(now_ms)));
  return error;
}

std::optional<LimitReached> FirstLimitReached(std::optional<double> org_limit_usd,
                                              std::optional<double> agent_limit_usd,
                                              const std::function<double(bool whole_org)>& spent) {
  if (org_limit_usd) {
    const double org_spent = spent(true);
    if (org_spent >= *org_limit_usd) return LimitReached{"organization", *org_limit_usd, org_spent};
  }
  if (agent_limit_usd) {
    const double agent_spent = spent(false);
    if (agent_spent >= *agent_limit_usd)
      return LimitReached{"agent", *agent_limit_usd, agent_spent};
  }
  return std::nullopt;
}

SpendGrant GrantSpend(std::optional<double> org_limit_usd, std::optional<double> agent_limit_usd,
                      const std::function<double(bool whole_org)>& spent, double needed_usd,
                      double wanted_usd) {
  std::optional<double> org_spent, agent_spent;  // each scope is read once, and only if limited
  auto spent_once = [&](bool whole_org) {
    auto& slot = whole_org ? org_spent : agent_spent;
    if (!slot) slot = spent(whole_org);
    return *slot;
  };
  if (auto reached = FirstLimitReached(org_limit_usd, agent_limit_usd, spent_once))
    return SpendGrant{std::move(reached), 0};
  double amount = std::max(needed_usd, wanted_usd);
  std::optional<double> headroom;
  if (org_limit_usd) headroom = *org_limit_usd - spent_once(true);
  if (agent_limit_usd) {
    const double agent_headroom = *agent_limit_usd - spent_once(false);
    headroom = headroom ? std::min(*headroom, agent_headroom) : agent_headroom;
  }
  if (headroom) amount = std::max(needed_usd, std::min(amount, *headroom / 4));
  return SpendGrant{std::nullopt, amount};
}

}  // namespace agentgate::governance
