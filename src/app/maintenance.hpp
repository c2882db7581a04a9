#pragma once
// Periodic housekeeping: releases spend reservations of turns that died mid-call, purges expired
// idempotency keys, gateway call counts older than kGatewayCallDaysKept days, and what
// [retention] keeps by age: turns (with their transcripts), idle conversations (with everything of
// theirs) and remembered facts. Runs until its executor stops.

#include "ports/clock.hpp"
#include "runtime/store_runner.hpp"

#include <chrono>

namespace agentgate {

inline constexpr std::int64_t kGatewayCallDaysKept = 400;

// Days each is kept ([retention] in the configuration).
struct RetentionDays {
  std::int64_t turns = 400;               // since the turn started
  std::int64_t idle_conversations = 400;  // since the conversation's last turn (or its creation)
  std::int64_t memories = 400;            // since the fact was saved
};

// Rows are deleted a batch at a time (short transactions), at most kPurgeBatches batches of each
// kind a pass: a backlog (a lowered setting) is worked off over a few passes. A conversation's
// batch is smaller, since each takes its messages and turns with it.
inline constexpr int kTurnPurgeBatch = 5000;
inline constexpr int kMemoryPurgeBatch = 5000;
inline constexpr int kConversationPurgeBatch = 100;
inline constexpr int kPurgeBatches = 20;

boost::asio::awaitable<void> RunMaintenance(StoreRunner& store, const Clock& clock,
                                            std::chrono::milliseconds turn_cap,
                                            RetentionDays retention,
                                            std::chrono::milliseconds every);

}  // namespace agentgate
