#pragma once
// Periodic housekeeping: releases spend reservations of turns that died mid-call and purges
// expired idempotency keys. Runs until its executor stops.

#include "app/store_runner.hpp"
#include "ports/clock.hpp"

#include <chrono>

namespace agentgate {

boost::asio::awaitable<void> RunMaintenance(StoreRunner& store, const Clock& clock,
                                            std::chrono::milliseconds turn_cap,
                                            std::chrono::milliseconds every);

}  // namespace agentgate
