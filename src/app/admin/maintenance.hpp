#pragma once
// Periodic housekeeping: releases spend reservations of turns that died mid-call, purges expired
// idempotency keys, gateway call counts older than kGatewayCallDaysKept days, and what
// [retention] keeps by age: turns (with their transcripts), idle conversations (with everything of
// theirs) and remembered facts; ended runs with their events ([runs] retention_hours); and the
// authorization server's signing keys retired past their overlap. Runs until its executor stops.

#include "ports/clock.hpp"
#include "runtime/store_runner.hpp"

#include <chrono>

namespace agentgate {

inline constexpr std::int64_t kGatewayCallDaysKept = 400;

// How long each is kept ([retention] and [runs] retention_hours in the configuration).
struct Retention {
  std::int64_t turns = 400;               // days since the turn started
  std::int64_t idle_conversations = 400;  // days since the conversation's last turn (or creation)
  std::int64_t memories = 400;            // days since the fact was saved
  std::int64_t run_hours = 24;            // hours since the run ended (queued ones are kept)
};

// Rows are deleted a batch at a time (short transactions), at most kPurgeBatches batches of each
// kind a pass: a backlog (a lowered setting) is worked off over a few passes. A conversation's
// batch is smaller, since each takes its messages and turns with it.
inline constexpr int kTurnPurgeBatch = 5000;
inline constexpr int kMemoryPurgeBatch = 5000;
inline constexpr int kConversationPurgeBatch = 100;
inline constexpr int kRunPurgeBatch = 500;  // each takes its events with it
inline constexpr int kPurgeBatches = 20;

boost::asio::awaitable<void> RunMaintenance(StoreRunner& store, const Clock& clock,
                                            std::chrono::milliseconds turn_cap, Retention retention,
                                            std::chrono::milliseconds every);

}  // namespace agentgate
