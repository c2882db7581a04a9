// Runs and their events (docs/runs.md): the queue, each decision in one write transaction.
#include "adapters/store_common/row_readers.hpp"
#include "adapters/store_common/run_rules.hpp"
#include "adapters/store_common/run_write.hpp"
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

// The runs' rows on SQLite (adapters/store_common/run_write decides what they change). SQLite
// locks the whole database for a write transaction, so a row read in one is locked already.
class SqliteRunRows final : public RunRowWriter {
 public:
  explicit SqliteRunRows(Connection& c) : c_(c) {}

  std::int64_t WaitingRunsOf(const std::string& org_id) override {
    auto count = c_.Prepare(kCountWaitingRuns);
    count.Bind(org_id).Step();
    return count.Int(0);
  }
  bool CompleteIdempotencyKey(const IdempotencyCompletion& done) override {
    return agentgate::CompleteIdempotencyKey(c_, done);
  }
  void InsertRun(const RunRecord& run) override {
    c_.Prepare(
          "INSERT INTO runs(id, org_id, env, agent_id, token_id, status, conversation_id, "
          "creates_conversation, request, created_at_ms, started_at_ms, server_id, notify) VALUES "
          "(?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT(id) DO NOTHING")
        .Bind(run.id, run.org_id, run.env, run.agent_id, run.token_id, RunStatusName(run.status),
              run.conversation_id, run.creates_conversation, run.request_json, run.created_at_ms,
              run.started_at_ms, run.server_id, run.notify)
        .Run();
    if (TakesPlaceAsQueued(run) && c_.Changes() == 1) {
      c_.Prepare(
            "INSERT INTO conversation_turn_queue(conversation_id, expires_at_ms, server_id, "
            "run_id) VALUES (?, ?, '', ?)")
          .Bind(run.conversation_id, kQueuedPlaceExpiry, run.id)
          .Run();
    }
  }
  void InsertEndedRun(const RunRecord& run, const std::string& folded_events) override {
    c_.Prepare(kInsertEndedRun)
        .Bind(run.id, run.org_id, run.env, run.agent_id, run.token_id, RunStatusName(run.status),
              run.conversation_id, run.creates_conversation, run.created_at_ms, run.started_at_ms,
              run.ended_at_ms, run.server_id, run.notify, run.result_json, run.error_json,
              folded_events)
        .Run();
  }
  void InsertEvents(const std::string& run_id, const std::vector<RunEvent>& events) override {
    agentgate::InsertEvents(c_, run_id, events);
  }
  std::optional<RunStatus> StatusForUpdate(const std::string& run_id) override {
    auto status = c_.Prepare("SELECT status FROM runs WHERE id = ?");
    if (!status.Bind(run_id).Step()) return std::nullopt;
    return ParseRunStatus(status.Text(0));
  }
  std::int64_t LastEventSeq(const std::string& run_id) override {
    auto s = c_.Prepare("SELECT COALESCE(MAX(seq), 0) FROM run_events WHERE run_id = ?");
    s.Bind(run_id).Step();
    return s.Int(0);
  }
  void UpdateEnd(const RunRecord& run, const std::string& folded_events) override {
    c_.Prepare(
          "UPDATE runs SET status = ?, result = ?, error = ?, ended_at_ms = ?, request = '', "
          "paused = '', events = ? WHERE id = ?")
        .Bind(RunStatusName(run.status), run.result_json, run.error_json, run.ended_at_ms,
              folded_events, run.id)
        .Run();
    c_.Prepare("DELETE FROM conversation_turn_queue WHERE run_id = ?").Bind(run.id).Run();
  }
  void AskCancel(const std::string& run_id) override {
    c_.Prepare("UPDATE runs SET cancel_requested = 1 WHERE id = ?").Bind(run_id).Run();
  }
  void EnqueueEndWebhooks(const RunRecord& run, const std::string& type) override {
    if (run.notify) {
      c_.Prepare(kEnqueueRunWebhooks)
          .Bind(run.id, type, run.ended_at_ms, run.org_id, run.env, "%," + type + ",%")
          .Run();
    }
    if (!run.conversation_id.empty()) {
      c_.Prepare(kEnqueueTaskWebhooks)
          .Bind(run.id, std::string("_"), type, run.ended_at_ms, std::string())
          .Run();
    }
  }

 private:
  Connection& c_;
};

}  // namespace

std::optional<RunRecord> FindRunIn(Connection& c, const std::string& run_id) {
  static const std::string own = std::string("SELECT ") + kRunColumns + " FROM runs WHERE id = ?";
  return c.Prepare(own).Bind(run_id).One(ReadRun);
}

void InsertEndedRunIn(Connection& c, const RunWrite& write) {
  SqliteRunRows rows(c);
  InsertEndedRun(rows, write);
}

void WriteRunsIn(Connection& c, const std::vector<const RunWrite*>& writes,
                 std::vector<Result<bool>>& results) {
  SqliteRunRows rows(c);
  for (const RunWrite* write : writes) results.push_back(WriteRun(rows, *write));
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

Result<std::int64_t> SqliteStore::CountWaitingRuns(const std::string& org_id) {
  return sqlite::WithConnection(*pool_, [&](Connection& c) -> Result<std::int64_t> {
    return SqliteRunRows(c).WaitingRunsOf(org_id);
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

Result<std::vector<RunRecord>> SqliteStore::ListAgentRuns(const AgentRunsQuery& q) {
  return sqlite::WithConnection(*pool_, [&](Connection& c) -> Result<std::vector<RunRecord>> {
    static const std::string sql = AgentRunsSql('?', false);
    return c.Prepare(sql)
        .Bind(q.org_id, q.env, q.agent_id, q.conversation_id, q.outcomes, q.changed_after_ms,
              q.before_changed_ms, q.before_id, q.limit)
        .All(ReadRun);
  });
}

Result<std::int64_t> SqliteStore::CountAgentRuns(const AgentRunsQuery& q) {
  return sqlite::WithConnection(*pool_, [&](Connection& c) -> Result<std::int64_t> {
    static const std::string sql = AgentRunsSql('?', true);
    auto s = c.Prepare(sql);
    s.Bind(q.org_id, q.env, q.agent_id, q.conversation_id, q.outcomes, q.changed_after_ms);
    s.Step();
    return s.Int(0);
  });
}

// run_state::Start for each claimed run, as one conditional write (status = 'queued').
Result<std::vector<RunRecord>> SqliteStore::ClaimRuns(const std::string& server_id,
                                                      std::int64_t now_ms, int limit,
                                                      int max_running_per_org) {
  return sqlite::WithConnection(*pool_, [&](Connection& c) -> Result<std::vector<RunRecord>> {
    {
      // Most looks find none: a read first, so they take no write lock.
      auto any = c.Prepare("SELECT 1 FROM runs WHERE status = 'queued' LIMIT 1");
      if (!any.Step()) return std::vector<RunRecord>{};
    }
    sqlite::WriteTransaction tx(c);
    static const std::string sql =
        std::string(kFairQueuedRuns) + "SELECT " + kRunColumns +
        " FROM runs WHERE id IN (SELECT id FROM fair) ORDER BY (SELECT nth FROM fair WHERE "
        "fair.id = runs.id), created_at_ms, id";
    auto claimed = c.Prepare(sql).Bind(max_running_per_org, limit, now_ms).All(ReadRun);
    for (auto& run : claimed) {
      // A paused run decided in the background keeps the start it had.
      if (run.started_at_ms == 0) run.started_at_ms = now_ms;
      c.Prepare(
           "UPDATE runs SET status = 'running', server_id = ?, started_at_ms = ?, request = '', "
           "background = 1 WHERE id = ?")
          .Bind(server_id, run.started_at_ms, run.id)
          .Run();
      run.status = RunStatus::kRunning;
      run.server_id = server_id;
    }
    tx.Commit();
    return claimed;
  });
}

Result<std::vector<RunEvent>> SqliteStore::ListRunEvents(const std::string& run_id,
                                                         std::int64_t after_seq, int limit) {
  return sqlite::WithConnection(*pool_, [&](Connection& c) -> Result<std::vector<RunEvent>> {
    auto row =
        c.Prepare("SELECT events, result, error, conversation_id, agent_id FROM runs WHERE id = ?")
            .Bind(run_id)
            .One([](const RowView& r) {
              return FoldedEventsRow{r.Text(0), r.Text(1), r.Text(2), r.Text(3), r.Text(4)};
            });
    static const std::string sql = std::string("SELECT ") + kRunEventColumns +
                                   " FROM run_events WHERE run_id = ? AND seq > ? ORDER BY seq "
                                   "LIMIT ?";
    return ReadRunEvents(run_id, row, after_seq, limit, [&](std::int64_t after, int most) {
      return c.Prepare(sql).Bind(run_id, after, most).All(ReadRunEvent);
    });
  });
}

Result<std::optional<RunRecord>> SqliteStore::CancelRun(const std::string& run_id,
                                                        std::int64_t now_ms,
                                                        const RunEvent& canceled) {
  return sqlite::WithConnection(*pool_, [&](Connection& c) -> Result<std::optional<RunRecord>> {
    sqlite::WriteTransaction tx(c);
    auto run = FindRunIn(c, run_id);
    if (!run) return run;
    SqliteRunRows rows(c);
    CancelLockedRun(rows, *run, now_ms, canceled);
    tx.Commit();
    return run;
  });
}

// run_state::Resume as one conditional write (paused, and not expired at now_ms).
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

Result<std::optional<RunRecord>> SqliteStore::QueueDecidedRun(const std::string& run_id,
                                                              const std::string& request_json,
                                                              std::int64_t now_ms) {
  return sqlite::WithConnection(*pool_, [&](Connection& c) -> Result<std::optional<RunRecord>> {
    sqlite::WriteTransaction tx(c);
    c.Prepare(kRequeueDecidedRun).Bind(request_json, run_id, now_ms).Run();
    if (c.Changes() != 1) return std::optional<RunRecord>();
    auto run = FindRunIn(c, run_id);
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
    SqliteRunRows rows(c);
    const std::int64_t ended = ExpireLockedRuns(rows, runs, now_ms, expired);
    tx.Commit();
    return ended;
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

// No index on ended_at_ms serves this (every run's commit would pay for an index the maintenance
// loop reads once a minute, docs/decisions.md): runs are walked in rowid order, the order they were
// written, from the oldest, and the walk stops at the first run created at or after the cutoff,
// since no later one can have ended before it. Runs it must keep (paused, or ended lately) are
// passed, and passed again next time. A run written late (a streamed run, at its end) may outlive
// its retention by as long as it ran.
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
      // Its push configs, and what they still had to send.
      c.Prepare(
           "DELETE FROM webhook_deliveries WHERE webhook_id IN (SELECT id FROM webhooks WHERE "
           "run_id = ?)")
          .Bind(id)
          .Run();
      c.Prepare("DELETE FROM webhooks WHERE run_id = ?").Bind(id).Run();
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
  auto runs = c.Prepare(sql).Bind(lapsed_before_ms).All(ReadRun);
  SqliteRunRows rows(c);
  InterruptLockedRuns(rows, runs, now_ms);
}

}  // namespace agentgate
