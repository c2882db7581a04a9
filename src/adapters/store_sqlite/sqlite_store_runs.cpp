// Runs and their events (docs/runs.md): the queue, each decision in one write transaction.
#include "adapters/store_common/row_readers.hpp"
#include "adapters/store_common/run_event_log.hpp"
#include "adapters/store_common/run_rules.hpp"
#include "adapters/store_sqlite/sqlite_store.hpp"

#include <algorithm>
#include <array>
#include <limits>
#include <utility>
#include <vector>

namespace agentgate {

using sqlite::Connection;

namespace {

// Up to this many events go in one INSERT (a statement for each count, prepared once): a
// streamed turn writes several at its end, and a statement a row cost as much as the rows.
constexpr std::size_t kEventsPerInsert = 16;

const std::string& InsertEventsSql(std::size_t rows) {
  static const auto statements = [] {
    std::array<std::string, kEventsPerInsert + 1> sql;
    for (std::size_t n = 1; n <= kEventsPerInsert; ++n) {
      sql[n] = "INSERT INTO run_events(run_id, seq, type, data) VALUES (?, ?, ?, ?)";
      for (std::size_t i = 1; i < n; ++i) sql[n] += ", (?, ?, ?, ?)";
    }
    return sql;
  }();
  return statements[rows];
}

void InsertEvents(Connection& c, const std::string& run_id, const std::vector<RunEvent>& events) {
  for (std::size_t from = 0; from < events.size(); from += kEventsPerInsert) {
    const std::size_t rows = std::min(kEventsPerInsert, events.size() - from);
    auto insert = c.Prepare(InsertEventsSql(rows));
    for (std::size_t i = 0; i < rows; ++i) {
      const RunEvent& e = events[from + i];
      const int at = static_cast<int>(4 * i);
      insert.BindAt(at + 1, std::string_view(run_id))
          .BindAt(at + 2, e.seq)
          .BindAt(at + 3, std::string_view(e.type))
          .BindAt(at + 4, std::string_view(e.data));
    }
    insert.Run();
  }
}

std::int64_t LastEventSeq(Connection& c, const std::string& run_id) {
  auto s = c.Prepare("SELECT COALESCE(MAX(seq), 0) FROM run_events WHERE run_id = ?");
  s.Bind(run_id).Step();
  return s.Int(0);
}

// Ends a queued or running run (`run` carries its status, result or error and end); its events.
void EndRun(Connection& c, const RunRecord& run, const std::vector<RunEvent>& events) {
  c.Prepare(
       "UPDATE runs SET status = ?, result = ?, error = ?, ended_at_ms = ?, request = '', paused = "
       "'' WHERE id = ?")
      .Bind(RunStatusName(run.status), run.result_json, run.error_json, run.ended_at_ms, run.id)
      .Run();
  InsertEvents(c, run.id, events);
  EnqueueEndWebhooksIn(c, run);
}

// A run queued, or created running (RunWrite::kCreate); false when its organization's queue is
// full.
Result<bool> CreateRunIn(Connection& c, const RunWrite& write) {
  const RunRecord& run = write.run;
  const bool queued = run.status == RunStatus::kQueued;
  if (queued) {
    auto count = c.Prepare("SELECT COUNT(*) FROM runs WHERE org_id = ? AND status = 'queued'");
    count.Bind(run.org_id).Step();
    if (count.Int(0) >= write.max_queued) return false;
  }
  if (write.answer && !CompleteIdempotencyKey(c, *write.answer))
    return MakeError(ErrorCode::kConflict, "the idempotency claim was taken over");
  c.Prepare(
       "INSERT INTO runs(id, org_id, env, agent_id, token_id, status, conversation_id, "
       "creates_conversation, request, created_at_ms, started_at_ms, server_id, notify) VALUES (?, "
       "?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT(id) DO NOTHING")
      .Bind(run.id, run.org_id, run.env, run.agent_id, run.token_id, queued ? "queued" : "running",
            run.conversation_id, run.creates_conversation,
            queued ? run.request_json : std::string(), run.created_at_ms,
            queued ? std::int64_t{0} : run.started_at_ms, queued ? std::string() : run.server_id,
            run.notify)
      .Run();
  InsertEvents(c, run.id, write.events);
  return true;
}

// A running run ended (RunWrite::kFinish); false when it was not running.
Result<bool> FinishRunIn(Connection& c, const RunWrite& write) {
  auto status = c.Prepare("SELECT status FROM runs WHERE id = ?");
  if (!status.Bind(write.run.id).Step() || status.Text(0) != "running") return false;
  EndRun(c, write.run, write.events);
  return true;
}

Result<bool> WriteRun(Connection& c, const RunWrite& write) {
  switch (write.kind) {
    case RunWrite::Kind::kCreate:
      return CreateRunIn(c, write);
    case RunWrite::Kind::kAppend:
      InsertEvents(c, write.run.id, write.events);
      return true;
    case RunWrite::Kind::kFinish:
      return FinishRunIn(c, write);
    case RunWrite::Kind::kCreateEnded:
      InsertEndedRunIn(c, write);
      return true;
  }
  return true;
}

}  // namespace

std::optional<RunRecord> FindRunIn(Connection& c, const std::string& run_id) {
  static const std::string own = std::string("SELECT ") + kRunColumns + " FROM runs WHERE id = ?";
  return c.Prepare(own).Bind(run_id).One(ReadRun);
}

void EnqueueEndWebhooksIn(Connection& c, const RunRecord& run) {
  if (!run.notify) return;
  const std::string type = RunEndEvent(run.status);
  c.Prepare(kEnqueueRunWebhooks)
      .Bind(run.id, type, run.ended_at_ms, run.org_id, run.env, "%," + type + ",%")
      .Run();
}

// A run never written before, as it ended, its events in its row (RunWrite::kCreateEnded).
void InsertEndedRunIn(Connection& c, const RunWrite& write) {
  const RunRecord& run = write.run;
  c.Prepare(kInsertEndedRun)
      .Bind(run.id, run.org_id, run.env, run.agent_id, run.token_id, RunStatusName(run.status),
            run.conversation_id, run.creates_conversation, run.created_at_ms, run.started_at_ms,
            run.ended_at_ms, run.server_id, run.notify, run.result_json, run.error_json,
            FoldRunEvents(run, write.events))
      .Run();
  EnqueueEndWebhooksIn(c, run);
}

void WriteRunsIn(Connection& c, const std::vector<const RunWrite*>& writes,
                 std::vector<Result<bool>>& results) {
  for (const RunWrite* write : writes) results.push_back(WriteRun(c, *write));
}

// A store failure fails the whole batch.
std::vector<Result<bool>> SqliteStore::WriteRuns(const std::vector<const RunWrite*>& writes) {
  std::vector<Result<bool>> results;
  auto batch = sqlite::WithConnection(*pool_, [&](Connection& c) -> Result<void> {
    results.clear();
    sqlite::WriteTransaction tx(c);
    WriteRunsIn(c, writes, results);
    tx.Commit();
    return {};
  });
  if (!batch) results.assign(writes.size(), batch.error());
  return results;
}

Result<std::optional<RunRecord>> SqliteStore::GetRun(const std::string& run_id) {
  return sqlite::WithConnection(*pool_, [&](Connection& c) -> Result<std::optional<RunRecord>> {
    return FindRunIn(c, run_id);
  });
}

Result<std::vector<RunRecord>> SqliteStore::ListRuns(const std::string& org_id,
                                                     const std::string& env, int limit) {
  return sqlite::WithConnection(*pool_, [&](Connection& c) -> Result<std::vector<RunRecord>> {
    static const std::string own = std::string("SELECT ") + kRunColumns +
                                   " FROM runs WHERE org_id = ? AND env = ? ORDER BY created_at_ms "
                                   "DESC, id DESC LIMIT ?";
    return c.Prepare(own).Bind(org_id, env, limit).All(ReadRun);
  });
}

Result<std::vector<RunRecord>> SqliteStore::ClaimRuns(const std::string& server_id,
                                                      std::int64_t now_ms, int limit) {
  return sqlite::WithConnection(*pool_, [&](Connection& c) -> Result<std::vector<RunRecord>> {
    {
      // Most looks find none: a read first, so they take no write lock.
      auto any = c.Prepare("SELECT 1 FROM runs WHERE status = 'queued' LIMIT 1");
      if (!any.Step()) return std::vector<RunRecord>{};
    }
    sqlite::WriteTransaction tx(c);
    static const std::string sql =
        std::string("SELECT ") + kRunColumns +
        " FROM runs WHERE status = 'queued' ORDER BY created_at_ms, id LIMIT ?";
    auto claimed = c.Prepare(sql).Bind(limit).All(ReadRun);
    for (auto& run : claimed) {
      c.Prepare(
           "UPDATE runs SET status = 'running', server_id = ?, started_at_ms = ?, request = '' "
           "WHERE id = ?")
          .Bind(server_id, now_ms, run.id)
          .Run();
      run.status = RunStatus::kRunning;
      run.server_id = server_id;
      run.started_at_ms = now_ms;
    }
    tx.Commit();
    return claimed;
  });
}

Result<std::vector<RunEvent>> SqliteStore::ListRunEvents(const std::string& run_id,
                                                         std::int64_t after_seq, int limit) {
  return sqlite::WithConnection(*pool_, [&](Connection& c) -> Result<std::vector<RunEvent>> {
    // A run written once, at its end, has them in its row; any other in rows of their own.
    auto folded =
        c.Prepare("SELECT events, result, error, conversation_id, agent_id FROM runs WHERE id = ?");
    if (folded.Bind(run_id).Step()) {
      const std::string log = folded.Text(0);
      if (!log.empty()) {
        const std::string result = folded.Text(1), error = folded.Text(2);
        return UnpackRunEvents(log, after_seq, limit, RunOutcome(result, error),
                               RunStartedData(run_id, folded.Text(3), folded.Text(4)));
      }
    }
    static const std::string sql = std::string("SELECT ") + kRunEventColumns +
                                   " FROM run_events WHERE run_id = ? AND seq > ? ORDER BY seq "
                                   "LIMIT ?";
    return c.Prepare(sql).Bind(run_id, after_seq, limit).All(ReadRunEvent);
  });
}

Result<std::optional<RunRecord>> SqliteStore::CancelRun(const std::string& run_id,
                                                        std::int64_t now_ms,
                                                        const RunEvent& canceled) {
  return sqlite::WithConnection(*pool_, [&](Connection& c) -> Result<std::optional<RunRecord>> {
    sqlite::WriteTransaction tx(c);
    auto run = FindRunIn(c, run_id);
    if (!run) return run;
    if (run->status == RunStatus::kQueued || run->status == RunStatus::kRequiresAction) {
      CancelQueued(*run, now_ms, canceled);
      RunEvent terminal = canceled;
      terminal.seq = LastEventSeq(c, run_id) + 1;
      EndRun(c, *run, {terminal});
    } else if (run->status == RunStatus::kRunning && !run->cancel_requested) {
      c.Prepare("UPDATE runs SET cancel_requested = 1 WHERE id = ?").Bind(run_id).Run();
      run->cancel_requested = true;
    }
    tx.Commit();
    return run;
  });
}

Result<std::optional<RunRecord>> SqliteStore::ClaimPausedRun(const std::string& run_id,
                                                             const std::string& server_id,
                                                             std::int64_t now_ms) {
  return sqlite::WithConnection(*pool_, [&](Connection& c) -> Result<std::optional<RunRecord>> {
    sqlite::WriteTransaction tx(c);
    c.Prepare(
         "UPDATE runs SET status = 'running', server_id = ? WHERE id = ? AND status = "
         "'requires_action' AND expires_at_ms > ?")
        .Bind(server_id, run_id, now_ms)
        .Run();
    if (c.Changes() != 1) return std::optional<RunRecord>();
    static const std::string read =
        std::string("SELECT ") + kRunColumns + " FROM runs WHERE id = ?";
    auto run = c.Prepare(read).Bind(run_id).One(ReadRun);
    tx.Commit();
    return run;
  });
}

Result<std::int64_t> SqliteStore::ExpirePausedRuns(std::int64_t now_ms, int limit,
                                                   const RunEvent& expired) {
  return sqlite::WithConnection(*pool_, [&](Connection& c) -> Result<std::int64_t> {
    {
      // Most passes find none: a read first, so they take no write lock.
      auto any = c.Prepare(
          "SELECT 1 FROM runs WHERE status = 'requires_action' AND expires_at_ms <= ? LIMIT 1");
      if (!any.Bind(now_ms).Step()) return std::int64_t{0};
    }
    sqlite::WriteTransaction tx(c);
    static const std::string read = std::string("SELECT ") + kRunColumns +
                                    " FROM runs WHERE status = 'requires_action' AND "
                                    "expires_at_ms <= ? ORDER BY expires_at_ms LIMIT ?";
    auto runs = c.Prepare(read).Bind(now_ms, limit).All(ReadRun);
    for (auto& run : runs) {
      ExpirePaused(run, now_ms, expired);
      RunEvent terminal = expired;
      terminal.seq = LastEventSeq(c, run.id) + 1;
      EndRun(c, run, {terminal});
    }
    tx.Commit();
    return static_cast<std::int64_t>(runs.size());
  });
}

Result<std::vector<std::string>> SqliteStore::RunsToCancel(const std::string& server_id) {
  return sqlite::WithConnection(*pool_, [&](Connection& c) -> Result<std::vector<std::string>> {
    return c
        .Prepare(
            "SELECT id FROM runs WHERE server_id = ? AND status = 'running' AND cancel_requested "
            "= 1")
        .Bind(server_id)
        .All([](const RowView& row) { return row.Text(0); });
  });
}

Result<bool> SqliteStore::ConversationBusy(const std::string& conversation_id,
                                           std::int64_t now_ms) {
  return sqlite::WithConnection(*pool_, [&](Connection& c) -> Result<bool> {
    auto s = c.Prepare(
        "SELECT EXISTS (SELECT 1 FROM runs WHERE conversation_id = ?1 AND status IN ('queued', "
        "'running')) OR EXISTS (SELECT 1 FROM conversation_turn_queue WHERE conversation_id = ?1 "
        "AND expires_at_ms > ?2)");
    s.Bind(conversation_id, now_ms).Step();
    return s.Int(0) != 0;
  });
}

namespace {

// No index on ended_at_ms serves this (one cost each quick streamed run's commit 10,000-17,000
// instructions, docs/performance.md): runs are walked in rowid order, the order they were written,
// from the oldest, and the walk stops at the first run created at or after the cutoff, since no
// later one can have ended before it. Runs it must keep (paused, or ended lately) are passed, and
// passed again next time. A run written late (a streamed run, at its end) may outlive its
// retention by as long as it ran.
std::vector<std::pair<std::int64_t, std::string>> EndedRunsBefore(Connection& c,
                                                                  std::int64_t ended_before_ms,
                                                                  int limit) {
  constexpr int kPage = 256;
  std::vector<std::pair<std::int64_t, std::string>> ended;
  std::int64_t after = std::numeric_limits<std::int64_t>::min();
  for (bool more = true; more && std::ssize(ended) < limit;) {
    auto page = c.Prepare(
        "SELECT rowid, id, created_at_ms, ended_at_ms FROM runs WHERE rowid > ? ORDER BY rowid "
        "LIMIT ?");
    page.Bind(after, kPage);
    int rows = 0;
    while (page.Step()) {
      ++rows;
      after = page.Int(0);
      if (page.Int(2) >= ended_before_ms) {
        more = false;
        break;
      }
      const std::int64_t ended_at = page.Int(3);
      if (ended_at > 0 && ended_at < ended_before_ms) {
        ended.emplace_back(after, page.Text(1));
        if (std::ssize(ended) == limit) break;
      }
    }
    if (rows < kPage) more = false;
  }
  return ended;
}

}  // namespace

Result<std::int64_t> SqliteStore::PurgeRuns(std::int64_t ended_before_ms, int limit) {
  return sqlite::WithConnection(*pool_, [&](Connection& c) -> Result<std::int64_t> {
    sqlite::WriteTransaction tx(c);
    const auto ended = EndedRunsBefore(c, ended_before_ms, limit);
    for (const auto& [rowid, id] : ended) {
      c.Prepare("DELETE FROM run_events WHERE run_id = ?").Bind(id).Run();
      c.Prepare("DELETE FROM runs WHERE rowid = ?").Bind(rowid).Run();
    }
    c.Prepare(
         "DELETE FROM webhook_deliveries WHERE id IN (SELECT id FROM webhook_deliveries WHERE "
         "status <> 'pending' AND created_at_ms < ? ORDER BY created_at_ms LIMIT ?)")
        .Bind(ended_before_ms, limit)
        .Run();
    tx.Commit();
    return static_cast<std::int64_t>(ended.size());
  });
}

void InterruptRunsOfLapsedServers(Connection& c, std::int64_t lapsed_before_ms,
                                  std::int64_t now_ms) {
  static const std::string sql =
      std::string("SELECT ") + kRunColumns +
      " FROM runs WHERE status = 'running' AND server_id IN (SELECT id FROM servers WHERE "
      "lease_until_ms < ?)";
  for (auto& run : c.Prepare(sql).Bind(lapsed_before_ms).All(ReadRun)) {
    RunEvent terminal = Interrupt(run, now_ms);
    terminal.seq = LastEventSeq(c, run.id) + 1;
    EndRun(c, run, {terminal});
  }
}

}  // namespace agentgate
