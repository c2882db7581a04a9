#include "domain/agent/busy_rules.hpp"

#include <gtest/gtest.h>

namespace agentgate::busy {
namespace {

struct Row {
  CallKind kind;
  std::optional<IfBusy> asked;
  bool allowed;
  bool refused_at_admission;
  bool supersedes_when_queued;
  AtTurn at_turn;
};

// The table of docs/daemon.md, row by row.
const Row kTable[] = {
    {CallKind::kCall, std::nullopt, true, false, false, AtTurn::kWait},
    {CallKind::kCall, IfBusy::kWait, true, false, false, AtTurn::kWait},
    {CallKind::kCall, IfBusy::kReject, true, false, false, AtTurn::kRefuse},
    {CallKind::kCall, IfBusy::kInterrupt, true, false, false, AtTurn::kInterrupt},
    {CallKind::kCall, IfBusy::kEnqueue, false, false, false, AtTurn::kWait},
    {CallKind::kStreamedRun, std::nullopt, true, false, false, AtTurn::kWait},
    {CallKind::kStreamedRun, IfBusy::kReject, true, true, false, AtTurn::kRefuse},
    {CallKind::kStreamedRun, IfBusy::kInterrupt, true, false, false, AtTurn::kInterrupt},
    {CallKind::kStreamedRun, IfBusy::kEnqueue, false, false, false, AtTurn::kWait},
    {CallKind::kBackgroundRun, std::nullopt, true, true, false, AtTurn::kWait},
    {CallKind::kBackgroundRun, IfBusy::kReject, true, true, false, AtTurn::kWait},
    {CallKind::kBackgroundRun, IfBusy::kEnqueue, true, false, false, AtTurn::kWait},
    {CallKind::kBackgroundRun, IfBusy::kInterrupt, true, false, true, AtTurn::kWait},
    {CallKind::kBackgroundRun, IfBusy::kWait, false, false, false, AtTurn::kWait},
};

TEST(BusyRules, EachKindAndChoiceDoesWhatTheTableSays) {
  int row = 0;
  for (const Row& expected : kTable) {
    const BusyRule rule = RuleOf(expected.kind, expected.asked);
    EXPECT_EQ(rule.allowed, expected.allowed) << "row " << row;
    if (rule.allowed) {
      EXPECT_EQ(rule.refused_at_admission, expected.refused_at_admission) << "row " << row;
      EXPECT_EQ(rule.supersedes_when_queued, expected.supersedes_when_queued) << "row " << row;
      EXPECT_EQ(rule.at_turn, expected.at_turn) << "row " << row;
    }
    ++row;
  }
}

}  // namespace
}  // namespace agentgate::busy
