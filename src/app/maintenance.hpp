#pragma once
// Periodic housekeeping: releases spend reservations of turns that died mid-call, purges expired
// idempotency keys and gateway call counts older than kGatewayCallDaysKept days. Runs until its
// executor stops.

#include "app/store_runner.hpp"
#include "ports/clock.hpp"

#include <chrono>

namespace agentgate {

inline constexpr std::int64_t kGatewayCallDaysKept = 400;

boost::asio::awaitable<void> RunMaintenance(StoreRunner& store, const Clock& clock,
                                            std::chrono::milliseconds turn_cap,
                                            std::chrono::milliseconds every);

}  // namespace agentgate
