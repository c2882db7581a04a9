#pragma once
// Periodic housekeeping: releases spend reservations of turns that died mid-call, purges expired
// idempotency keys, gateway call counts older than kGatewayCallDaysKept days, and turns (with their
// transcripts) older than [retention] turn_days. Runs until its executor stops.

#include "app/store_runner.hpp"
#include "ports/clock.hpp"

#include <chrono>

namespace agentgate {

inline constexpr std::int64_t kGatewayCallDaysKept = 400;

// Turns are deleted kTurnPurgeBatch at a time (short transactions), at most kTurnPurgeBatches
// batches a pass: a backlog (a lowered turn_days) is worked off over a few passes.
inline constexpr int kTurnPurgeBatch = 5000;
inline constexpr int kTurnPurgeBatches = 20;

boost::asio::awaitable<void> RunMaintenance(StoreRunner& store, const Clock& clock,
                                            std::chrono::milliseconds turn_cap,
                                            std::int64_t turn_days_kept,
                                            std::chrono::milliseconds every);

}  // namespace agentgate
