// What a turn's commit costs SQLite: every b-tree page it changes is one WAL frame (a header and a
// page, two writes), so the pages a common turn touches are its commit's price on the hot path.
#include "store/store_backends.hpp"

#include <gtest/gtest.h>

#include <filesystem>

namespace agentgate::testing {
namespace {

constexpr std::uintmax_t kFrameBytes = 24 + 4096;  // WAL frame header + one default-size page

TurnCommit StatelessTurn(int n, const std::string& lease) {
  TurnCommit commit;
  commit.turn = TurnRecord{"turn_" + std::to_string(1000 + n),
                           "",
                           "acme",
                           "prod",
                           "bot",
                           1,
                           1000 + n,
                           3,
                           "",
                           false,
                           1,
                           20,
                           4,
                           0.0001,
                           "[{\"role\":\"user\"}]"};
  commit.settlements = {SpendSettlement{lease, 0.0001, 20, 4, "acme", "bot", "2026-11", 0.0001}};
  return commit;
}

// The WAL pages ten commits of `turn` write, after three that settle the file.
std::uintmax_t PagesOfTenCommits(TurnCommit (*turn)(int n, const std::string& lease)) {
  SqliteBackend backend;
  auto store = backend.Open();
  EXPECT_TRUE(store->CreateOrg(OrgRecord{"acme", "Acme", 100.0, 1}));
  EXPECT_TRUE(store->CreateEnvironment("acme", "prod"));
  const auto lease = store->ReserveSpend({"acme", "bot", "2026-11", 0.01, 100.0, 1, 1.0}).value();
  EXPECT_TRUE(lease.reserved);
  for (int n = 0; n < 3; ++n) EXPECT_TRUE(store->CommitTurn(turn(n, lease.reservation_id)));
  const std::string wal = backend.path() + "-wal";
  const auto before = std::filesystem::file_size(wal);
  for (int n = 3; n < 13; ++n) EXPECT_TRUE(store->CommitTurn(turn(n, lease.reservation_id)));
  return (std::filesystem::file_size(wal) - before) / kFrameBytes;
}

// A stateless turn that pays from its lease writes five pages: the turn's row, its id and time
// indexes, the lease, and the spend totals. An index it does not need would add one each.
TEST(SqliteTurnPages, AStatelessTurnsCommitWritesFivePages) {
  const auto frames = PagesOfTenCommits(StatelessTurn);
  EXPECT_LE(frames, 10u * 5 + 2) << "ten commits wrote " << frames << " pages";  // + a page split
  EXPECT_GE(frames, 10u * 5);
}

// A stateless streamed turn whose run ends in its commit (docs/runs.md): the run's row adds three
// pages to a plain turn's (the runs table, its id index and runs_by_env).
TurnCommit EndingItsRun(int n, const std::string& lease) {
  TurnCommit commit = StatelessTurn(n, lease);
  RunRecord run;
  run.id = "run_" + std::to_string(1000 + n);
  run.org_id = "acme";
  run.env = "prod";
  run.agent_id = "bot";
  run.token_id = "tok";
  run.status = RunStatus::kCompleted;
  run.created_at_ms = run.started_at_ms = 1000 + n;
  run.ended_at_ms = 1003 + n;
  run.server_id = "server-a";
  run.result_json = R"({"response":"All good.","blocked":false})";
  commit.ended_run = RunWrite{RunWrite::Kind::kCreateEnded,
                              run,
                              {RunEvent{1, "run.started", R"({"run_id":"x"})"},
                               RunEvent{2, "run.completed", run.result_json}},
                              0,
                              std::nullopt};
  return commit;
}

TEST(SqliteTurnPages, AStatelessTurnEndingItsStreamedRunWritesThreePagesMore) {
  const auto frames = PagesOfTenCommits(EndingItsRun);
  EXPECT_LE(frames, 10u * 8 + 2) << "ten commits wrote " << frames << " pages";
  EXPECT_GE(frames, 10u * 8);
}

}  // namespace
}  // namespace agentgate::testing
