#include "adapters/store_common/run_in_turn.hpp"

#include "domain/runs/run_ids.hpp"

#include <gtest/gtest.h>

namespace agentgate {
namespace {

TEST(RunIds, ARunAndItsTurnShareTheirIdsTail) {
  EXPECT_EQ(TurnIdOfRun("run_0190abcd"), "turn_0190abcd");
  EXPECT_EQ(RunIdOfTurn("turn_0190abcd"), "run_0190abcd");
  EXPECT_EQ(TurnIdOfRun("turn_0190abcd"), "");  // not a run's id
  EXPECT_EQ(TurnIdOfRun("run_"), "");
  EXPECT_EQ(RunIdOfTurn("t1"), "");
  EXPECT_TRUE(IsTurnOfRun("turn_0190abcd", "run_0190abcd"));
  EXPECT_FALSE(IsTurnOfRun("turn_0190abce", "run_0190abcd"));
  EXPECT_FALSE(IsTurnOfRun("turn_0190abcd", "turn_0190abcd"));
  EXPECT_FALSE(IsTurnOfRun("turn_", "run_"));
  EXPECT_FALSE(IsTurnOfRun("run_0190abcd", "run_0190abcd"));
}

RunRecord QuickRun() {
  RunRecord run;
  run.id = "run_01ab";
  run.org_id = "acme";
  run.env = "prod";
  run.agent_id = "bot";
  run.token_id = "tok_1";
  run.status = RunStatus::kCompleted;
  run.created_at_ms = 1000;
  run.started_at_ms = 1001;
  run.ended_at_ms = 1250;
  run.server_id = "srv_a";
  run.notify = true;
  run.result_json = R"({"response":"Hi"})";
  return run;
}

TurnCommit EndingWith(const RunRecord& run) {
  TurnCommit commit;
  commit.turn.id = TurnIdOfRun(run.id);
  commit.turn.org_id = run.org_id;
  commit.turn.env = run.env;
  commit.turn.agent_id = run.agent_id;
  commit.ended_run = RunWrite{RunWrite::Kind::kCreateEnded, run, {}, 0, std::nullopt};
  return commit;
}

TEST(RunInTurn, OnlyACompletedStatelessRunNeverWrittenWithItsTurnsIdIsKeptInItsTurn) {
  const RunRecord run = QuickRun();
  const TurnCommit kept = EndingWith(run);
  EXPECT_EQ(RunKeptInTurn(kept), &*kept.ended_run);

  TurnCommit no_run = kept;
  no_run.ended_run.reset();
  EXPECT_EQ(RunKeptInTurn(no_run), nullptr);

  TurnCommit written_before = kept;
  written_before.ended_run->kind = RunWrite::Kind::kFinish;
  EXPECT_EQ(RunKeptInTurn(written_before), nullptr);

  TurnCommit stateful = kept;
  stateful.turn.conversation_id = "c1";
  EXPECT_EQ(RunKeptInTurn(stateful), nullptr);

  TurnCommit other_id = kept;
  other_id.turn.id = "turn_99";
  EXPECT_EQ(RunKeptInTurn(other_id), nullptr);

  TurnCommit other_agent = kept;
  other_agent.turn.agent_id = "other";
  EXPECT_EQ(RunKeptInTurn(other_agent), nullptr);

  TurnCommit failed = kept;
  failed.ended_run->run.status = RunStatus::kFailed;
  EXPECT_EQ(RunKeptInTurn(failed), nullptr);
}

TEST(RunInTurn, ReadsBackWhatItsTurnsRowKeeps) {
  const RunRecord run = QuickRun();
  const std::string packed = PackRunInTurn(run);
  EXPECT_EQ(packed, "completed\ttok_1\tsrv_a\t1\t1001\t1250");
  const auto back = RunInTurn("turn_01ab", "acme", "prod", "bot", 1000, packed, run.result_json);
  ASSERT_TRUE(back);
  EXPECT_EQ(back->id, "run_01ab");
  EXPECT_EQ(back->org_id, "acme");
  EXPECT_EQ(back->env, "prod");
  EXPECT_EQ(back->agent_id, "bot");
  EXPECT_EQ(back->token_id, "tok_1");
  EXPECT_EQ(back->status, RunStatus::kCompleted);
  EXPECT_EQ(back->conversation_id, "");
  EXPECT_EQ(back->created_at_ms, 1000);
  EXPECT_EQ(back->started_at_ms, 1001);
  EXPECT_EQ(back->ended_at_ms, 1250);
  EXPECT_EQ(back->server_id, "srv_a");
  EXPECT_TRUE(back->notify);
  EXPECT_EQ(back->result_json, run.result_json);
}

TEST(RunInTurn, AColumnThatDoesNotReadBackIsNoRun) {
  for (const std::string_view garbled :
       {"", "completed", "completed\ttok\tsrv\t1\t1001", "completed\ttok\tsrv\t1\t1001\t1250\tx",
        "finished\ttok\tsrv\t1\t1001\t1250", "completed\ttok\tsrv\t2\t1001\t1250",
        "completed\ttok\tsrv\t1\tsoon\t1250"}) {
    EXPECT_FALSE(RunInTurn("turn_1", "acme", "prod", "bot", 1, garbled, "{}")) << garbled;
  }
  EXPECT_FALSE(RunInTurn("t1", "acme", "prod", "bot", 1, "completed\ttok\tsrv\t1\t1\t2", "{}"));
}

}  // namespace
}  // namespace agentgate
