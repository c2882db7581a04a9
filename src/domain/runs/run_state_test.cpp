#include "domain/runs/run_state.hpp"

#include <gtest/gtest.h>

#include <array>

namespace agentgate::run_state {
namespace {

constexpr std::array kEvery = {RunStatus::kQueued,    RunStatus::kRunning,
                               RunStatus::kCompleted, RunStatus::kFailed,
                               RunStatus::kCanceled,  RunStatus::kRequiresAction};

TEST(RunState, OnlyAQueuedRunStarts) {
  for (const RunStatus from : kEvery) {
    EXPECT_EQ(Start(from), from == RunStatus::kQueued ? RunStep(RunStatus::kRunning) : RunStep())
        << RunStatusName(from);
  }
}

TEST(RunState, OnlyARunningRunPausesAndNotOnceItsCancelWasAsked) {
  EXPECT_EQ(Pause(RunStatus::kRunning, false), RunStatus::kRequiresAction);
  EXPECT_FALSE(Pause(RunStatus::kRunning, true));
  for (const RunStatus from : kEvery) {
    if (from == RunStatus::kRunning) continue;
    EXPECT_FALSE(Pause(from, false)) << RunStatusName(from);
  }
}

TEST(RunState, APausedRunResumesOnlyBeforeItsExpiry) {
  EXPECT_EQ(Resume(RunStatus::kRequiresAction, 1001, 1000), RunStatus::kRunning);
  EXPECT_FALSE(Resume(RunStatus::kRequiresAction, 1000, 1000));  // expired at its expiry
  for (const RunStatus from : kEvery) {
    if (from == RunStatus::kRequiresAction) continue;
    EXPECT_FALSE(Resume(from, 5000, 1000)) << RunStatusName(from);
  }
}

TEST(RunState, APausedRunDecidedInTheBackgroundGoesBackToTheQueueBeforeItsExpiryOnly) {
  EXPECT_EQ(Requeue(RunStatus::kRequiresAction, 1001, 1000), RunStatus::kQueued);
  EXPECT_FALSE(Requeue(RunStatus::kRequiresAction, 1000, 1000));
  for (const RunStatus from : kEvery) {
    if (from == RunStatus::kRequiresAction) continue;
    EXPECT_FALSE(Requeue(from, 5000, 1000)) << RunStatusName(from);
  }
  // Queued again, it starts as any queued run does.
  EXPECT_EQ(Start(*Requeue(RunStatus::kRequiresAction, 2000, 1000)), RunStatus::kRunning);
}

TEST(RunState, ARunningRunFinishesAsItsTurnEndedAndOnlyAsAnEnd) {
  for (const RunStatus as : {RunStatus::kCompleted, RunStatus::kFailed, RunStatus::kCanceled})
    EXPECT_EQ(Finish(RunStatus::kRunning, as), as);
  EXPECT_FALSE(Finish(RunStatus::kRunning, RunStatus::kQueued));
  EXPECT_FALSE(Finish(RunStatus::kRunning, RunStatus::kRequiresAction));
  for (const RunStatus from : kEvery) {
    if (from == RunStatus::kRunning) continue;
    EXPECT_FALSE(Finish(from, RunStatus::kCompleted)) << RunStatusName(from);
  }
}

TEST(RunState, APausedRunExpiresAtItsExpiryAndNothingElseExpires) {
  EXPECT_EQ(Expire(RunStatus::kRequiresAction, 1000, 1000), RunStatus::kFailed);
  EXPECT_FALSE(Expire(RunStatus::kRequiresAction, 1001, 1000));
  for (const RunStatus from : kEvery) {
    if (from == RunStatus::kRequiresAction) continue;
    EXPECT_FALSE(Expire(from, 0, 1000)) << RunStatusName(from);
  }
}

TEST(RunState, OnlyARunningRunIsInterrupted) {
  for (const RunStatus from : kEvery) {
    EXPECT_EQ(Interrupt(from),
              from == RunStatus::kRunning ? RunStep(RunStatus::kFailed) : RunStep())
        << RunStatusName(from);
  }
}

TEST(RunState, ACancelEndsAWaitingRunAtOnceAndAsksARunningOnesServer) {
  EXPECT_EQ(DecideCancel(RunStatus::kQueued, false), CancelDecision::kEndNow);
  EXPECT_EQ(DecideCancel(RunStatus::kRequiresAction, false), CancelDecision::kEndNow);
  EXPECT_EQ(DecideCancel(RunStatus::kRunning, false), CancelDecision::kAskItsServer);
  EXPECT_EQ(DecideCancel(RunStatus::kRunning, true), CancelDecision::kAskedAlready);
  for (const RunStatus from : {RunStatus::kCompleted, RunStatus::kFailed, RunStatus::kCanceled})
    EXPECT_EQ(DecideCancel(from, false), CancelDecision::kEndedAlready) << RunStatusName(from);
}

// The races the stores serialise: each transition is one conditional write, so the second of two
// finds the run where the first left it, and is refused.
TEST(RunState, OfACancelAndAFinishTheFirstWrittenWins) {
  // Cancel first (a paused run): canceled at once; its server's finish is then refused.
  const RunStatus canceled = RunStatus::kCanceled;
  EXPECT_EQ(DecideCancel(RunStatus::kRequiresAction, false), CancelDecision::kEndNow);
  EXPECT_FALSE(Finish(canceled, RunStatus::kCompleted));
  // Finish first: the cancel finds it ended and leaves it.
  const RunStep finished = Finish(RunStatus::kRunning, RunStatus::kCompleted);
  ASSERT_TRUE(finished);
  EXPECT_EQ(DecideCancel(*finished, false), CancelDecision::kEndedAlready);
}

TEST(RunState, OfAnApprovalAndAnExpiryTheFirstWrittenWins) {
  // Approved first: running, so the expiry passes it by.
  const RunStep resumed = Resume(RunStatus::kRequiresAction, 2000, 1999);
  ASSERT_TRUE(resumed);
  EXPECT_FALSE(Expire(*resumed, 2000, 2000));
  // Expired first: failed, so the approval finds nothing to resume.
  const RunStep expired = Expire(RunStatus::kRequiresAction, 2000, 2000);
  ASSERT_TRUE(expired);
  EXPECT_FALSE(Resume(*expired, 2000, 1999));
}

TEST(RunState, AnInterruptedRunsFinishIsRefused) {
  const RunStep interrupted = Interrupt(RunStatus::kRunning);
  ASSERT_TRUE(interrupted);
  EXPECT_FALSE(Finish(*interrupted, RunStatus::kCompleted));
}

TEST(RunState, EachEndingNamesItsCause) {
  EXPECT_EQ(EndingError(RunEnding::kCanceled, RunStatus::kQueued).code, ErrorCode::kCanceled);
  EXPECT_NE(EndingError(RunEnding::kCanceled, RunStatus::kRequiresAction).message,
            EndingError(RunEnding::kCanceled, RunStatus::kQueued).message);
  EXPECT_EQ(EndingError(RunEnding::kExpired, RunStatus::kRequiresAction).code,
            ErrorCode::kApprovalExpired);
  EXPECT_EQ(EndingError(RunEnding::kInterrupted, RunStatus::kRunning).code,
            ErrorCode::kInterrupted);
  // A newer call's interrupt is named apart from the server's death and from a cancel.
  EXPECT_EQ(EndingError(RunEnding::kSuperseded, RunStatus::kQueued).code, ErrorCode::kSuperseded);
}

}  // namespace
}  // namespace agentgate::run_state
