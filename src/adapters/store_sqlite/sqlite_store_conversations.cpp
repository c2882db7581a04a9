#include "adapters/store_common/recent_messages.hpp"
#include "adapters/store_common/row_readers.hpp"
#include "adapters/store_common/run_rules.hpp"
#include "adapters/store_common/turn_write.hpp"
#include "adapters/store_sqlite/sqlite_store.hpp"
#include "domain/agent/memory_recall.hpp"
#include "ports/clock.hpp"

#include <algorithm>

namespace agentgate {

using sqlite::Connection;

namespace {

// The one way each is written, on its own or inside a turn's commit.
void InsertConversation(Connection& c, const ConversationRecord& r) {
  c.Prepare(
       "INSERT INTO conversations(id, org_id, env, agent_id, instance_id, created_at_ms, "
       "active_day, metadata) VALUES (?, ?, ?, ?, ?, ?, ?, ?)")
      .Bind(r.id, r.org_id, r.env, r.agent_id, r.instance_id, r.created_at_ms,
            r.created_at_ms / kMsPerDay, r.metadata_json)
      .Run();
}

void InsertFact(Connection& c, const RememberedFact& f) {
  c.Prepare(
       "INSERT INTO memories(org_id, env, agent_id, group_key, fact, created_at_ms) VALUES (?, "
       "?, ?, ?, ?, ?)")
      .Bind(f.scope.org_id, f.scope.env, f.scope.agent_id, f.scope.group_key, f.fact,
            f.created_at_ms)
      .Run();
}

}  // namespace

Result<void> SqliteStore::CreateConversation(const ConversationRecord& r) {
  return sqlite::WithConnection(*pool_, [&](Connection& c) -> Result<void> {
    InsertConversation(c, r);
    return {};
  });
}

Result<std::optional<ConversationRecord>> SqliteStore::GetConversation(const std::string& id) {
  return sqlite::WithConnection(
      *pool_, [&](Connection& c) -> Result<std::optional<ConversationRecord>> {
        static const std::string sql =
            std::string("SELECT ") + kConversationColumns + " FROM conversations WHERE id = ?";
        return c.Prepare(sql).Bind(id).One(ReadConversation);
      });
}

Result<std::vector<MessageRecord>> SqliteStore::LoadMessages(const std::string& conversation_id) {
  return sqlite::WithConnection(*pool_, [&](Connection& c) -> Result<std::vector<MessageRecord>> {
    static const std::string sql = std::string("SELECT ") + kMessageColumns +
                                   " FROM messages WHERE conversation_id = ? ORDER BY seq";
    return c.Prepare(sql).Bind(conversation_id).All(ReadMessage);
  });
}

Result<std::vector<MessageRecord>> SqliteStore::LoadRecentMessages(
    const std::string& conversation_id, std::size_t max_bytes, std::size_t max_messages) {
  return sqlite::WithConnection(*pool_, [&](Connection& c) -> Result<std::vector<MessageRecord>> {
    // Walks the primary key backwards and stops stepping once the budget is spent.
    static const std::string sql = std::string("SELECT ") + kMessageColumns +
                                   " FROM messages WHERE conversation_id = ? ORDER BY seq DESC";
    auto s = c.Prepare(sql);
    s.Bind(conversation_id);
    RecentMessages recent(max_bytes, max_messages);
    while (recent.WantsMore() && s.Step()) recent.Add(ReadMessage(s));
    return std::move(recent).OldestFirst();
  });
}

Result<ConversationSummary> SqliteStore::LoadConversationSummary(
    const std::string& conversation_id) {
  return sqlite::WithConnection(*pool_, [&](Connection& c) -> Result<ConversationSummary> {
    auto s = c.Prepare("SELECT summary, summary_through_seq FROM conversations WHERE id = ?");
    s.Bind(conversation_id);
    if (!s.Step()) return ConversationSummary{};
    return ConversationSummary{s.Text(0), s.Int(1)};
  });
}

Result<std::vector<MessageRecord>> SqliteStore::TurnMessages(const std::string& conversation_id,
                                                             const std::string& turn_id) {
  return sqlite::WithConnection(*pool_, [&](Connection& c) -> Result<std::vector<MessageRecord>> {
    static const std::string sql =
        std::string("SELECT ") + kMessageColumns +
        " FROM messages WHERE conversation_id = ? AND turn_id = ? ORDER BY seq";
    auto s = c.Prepare(sql);
    s.Bind(conversation_id, turn_id);
    std::vector<MessageRecord> out;
    while (s.Step()) out.push_back(ReadMessage(s));
    return out;
  });
}

Result<std::string> SqliteStore::LastMessageTurn(const std::string& conversation_id) {
  return sqlite::WithConnection(*pool_, [&](Connection& c) -> Result<std::string> {
    auto s = c.Prepare(
        "SELECT turn_id FROM messages WHERE conversation_id = ? ORDER BY seq DESC LIMIT 1");
    s.Bind(conversation_id);
    if (!s.Step()) return std::string();
    return s.Text(0);
  });
}

Result<std::int64_t> SqliteStore::EnqueueTurn(const std::string& conversation_id,
                                              std::int64_t expires_at_ms,
                                              const std::string& server_id) {
  return sqlite::WithConnection(*pool_, [&](Connection& c) -> Result<std::int64_t> {
    return *c.Prepare(
                 "INSERT INTO conversation_turn_queue(conversation_id, expires_at_ms, "
                 "server_id) VALUES (?, ?, ?) RETURNING ticket")
                .Bind(conversation_id, expires_at_ms, server_id)
                .Returning([](const RowView& row) { return row.Int(0); });
  });
}

Result<bool> SqliteStore::IsTurnAtHead(const std::string& conversation_id, std::int64_t ticket,
                                       std::int64_t now_ms, const std::string& server_id) {
  return sqlite::WithConnection(*pool_, [&](Connection& c) -> Result<bool> {
    auto s = c.Prepare(
        "SELECT NOT EXISTS (SELECT 1 FROM conversation_turn_queue WHERE conversation_id = ? AND "
        "ticket < ? AND expires_at_ms > ? AND (server_id <> ? OR run_id <> ''))");
    s.Bind(conversation_id, ticket, now_ms, server_id).Step();
    return s.Int(0) != 0;
  });
}

Result<void> SqliteStore::DequeueTurn(std::int64_t ticket) {
  return sqlite::WithConnection(*pool_, [&](Connection& c) -> Result<void> {
    c.Prepare("DELETE FROM conversation_turn_queue WHERE ticket = ?").Bind(ticket).Run();
    return {};
  });
}

Result<std::vector<SupersededTicket>> SqliteStore::SupersedeTurns(
    const std::string& conversation_id, std::int64_t ticket, std::int64_t now_ms) {
  return sqlite::WithConnection(
      *pool_, [&](Connection& c) -> Result<std::vector<SupersededTicket>> {
        return c
            .Prepare(
                "UPDATE conversation_turn_queue SET superseded = 1 WHERE conversation_id = ? AND "
                "ticket < ? AND expires_at_ms > ? RETURNING ticket, server_id, run_id")
            .Bind(conversation_id, ticket, now_ms)
            .All([](const RowView& row) {
              return SupersededTicket{row.Int(0), row.Text(1), row.Text(2)};
            });
      });
}

Result<std::optional<std::int64_t>> SqliteStore::RunPlace(const std::string& run_id) {
  return sqlite::WithConnection(*pool_, [&](Connection& c) -> Result<std::optional<std::int64_t>> {
    return c.Prepare("SELECT ticket FROM conversation_turn_queue WHERE run_id = ?")
        .Bind(run_id)
        .One([](const RowView& row) { return row.Int(0); });
  });
}

Result<std::optional<std::int64_t>> SqliteStore::TakeRunPlace(const std::string& run_id,
                                                              const std::string& server_id,
                                                              std::int64_t expires_at_ms) {
  return sqlite::WithConnection(*pool_, [&](Connection& c) -> Result<std::optional<std::int64_t>> {
    return c
        .Prepare(
            "UPDATE conversation_turn_queue SET server_id = ?, expires_at_ms = ? WHERE run_id = ? "
            "RETURNING ticket")
        .Bind(server_id, expires_at_ms, run_id)
        .Returning([](const RowView& row) { return row.Int(0); });
  });
}

Result<std::vector<std::int64_t>> SqliteStore::SupersededTickets(const std::string& server_id) {
  return sqlite::WithConnection(*pool_, [&](Connection& c) -> Result<std::vector<std::int64_t>> {
    return c
        .Prepare("SELECT ticket FROM conversation_turn_queue WHERE server_id = ? AND superseded")
        .Bind(server_id)
        .All([](const RowView& row) { return row.Int(0); });
  });
}

namespace {

// A turn's rows, written inside the batch's transaction.
class SqliteTurnRows final : public TurnRowWriter {
 public:
  explicit SqliteTurnRows(Connection& c) : c_(c) {}

  bool ReservationLive(const std::string& id) override { return ReservationExists(c_, id); }
  // A refused turn writes nothing: a superseded ticket is left for its turn's end to delete.
  Ticket TakeTicket(std::int64_t ticket) override {
    c_.Prepare("DELETE FROM conversation_turn_queue WHERE ticket = ? AND NOT superseded")
        .Bind(ticket)
        .Run();
    if (c_.Changes() == 1) return Ticket::kTaken;
    auto left = c_.Prepare("SELECT 1 FROM conversation_turn_queue WHERE ticket = ?");
    return left.Bind(ticket).Step() ? Ticket::kSuperseded : Ticket::kReleased;
  }
  std::optional<ConversationTail> Tail(const std::string& conversation_id) override {
    auto last = c_.Prepare(
        "SELECT (SELECT active_day FROM conversations WHERE id = ?1), COALESCE(MAX(seq), 0) FROM "
        "messages WHERE conversation_id = ?1");
    last.Bind(conversation_id).Step();
    if (last.IsNull(0)) return std::nullopt;
    return ConversationTail{last.Int(0), last.Int(1)};
  }
  bool CompleteIdempotencyKey(const IdempotencyCompletion& done) override {
    return agentgate::CompleteIdempotencyKey(c_, done);
  }
  void InsertConversation(const ConversationRecord& conversation) override {
    agentgate::InsertConversation(c_, conversation);
  }
  void RecordCall(const std::string& conversation_id, std::int64_t at_ms) override {
    c_.Prepare("INSERT INTO conversation_calls(conversation_id, at_ms) VALUES (?, ?)")
        .Bind(conversation_id, at_ms)
        .Run();
  }
  void InsertFact(const RememberedFact& fact) override { agentgate::InsertFact(c_, fact); }
  void SaveSummary(const std::string& conversation_id,
                   const ConversationSummary& summary) override {
    c_.Prepare(
          "UPDATE conversations SET summary = ?1, summary_through_seq = ?2 WHERE id = ?3 AND "
          "summary_through_seq < ?2")
        .Bind(summary.text, summary.through_seq, conversation_id)
        .Run();
  }
  void SetActiveDay(const std::string& conversation_id, std::int64_t day) override {
    c_.Prepare("UPDATE conversations SET active_day = ? WHERE id = ?")
        .Bind(day, conversation_id)
        .Run();
  }
  void InsertMessage(const std::string& conversation_id, std::int64_t seq,
                     const MessageRecord& m) override {
    c_.Prepare(
          "INSERT INTO messages(conversation_id, seq, role, content, created_at_ms, turn_id) "
          "VALUES (?, ?, ?, ?, ?, ?)")
        .Bind(conversation_id, seq, m.role, m.content, m.created_at_ms, m.turn_id)
        .Run();
  }
  void InsertTurn(const TurnRecord& t) override {
    c_.Prepare(
          "INSERT INTO turns(id, conversation_id, org_id, env, agent_id, version, started_at_ms, "
          "duration_ms, stop_reason, blocked, model_calls, input_tokens, output_tokens, cost_usd, "
          "transcript) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)")
        .Bind(t.id, t.conversation_id, t.org_id, t.env, t.agent_id, t.version, t.started_at_ms,
              t.duration_ms, t.stop_reason, t.blocked, t.model_calls, t.input_tokens,
              t.output_tokens, t.cost_usd, t.transcript_json)
        .Run();
  }
  // run_state::Pause as one conditional write (running, its cancel not asked for).
  bool PauseRun(const RunPause& pause) override {
    const RunRecord& run = pause.run;
    if (pause.create) {
      // A streamed run's recorder may have written it meanwhile: then paused as a running run.
      c_.Prepare(
            "INSERT INTO runs(id, org_id, env, agent_id, token_id, status, conversation_id, "
            "created_at_ms, started_at_ms, paused, expires_at_ms) VALUES (?, ?, ?, ?, ?, "
            "'requires_action', ?, ?, ?, ?, ?) ON CONFLICT(id) DO UPDATE SET status = "
            "'requires_action', paused = excluded.paused, expires_at_ms = excluded.expires_at_ms, "
            "server_id = '' WHERE runs.status = 'running' AND NOT runs.cancel_requested")
          .Bind(run.id, run.org_id, run.env, run.agent_id, run.token_id, run.conversation_id,
                run.created_at_ms, run.started_at_ms, run.paused_json, run.expires_at_ms)
          .Run();
      if (c_.Changes() != 1) return false;
      for (const auto& e : pause.events) {
        c_.Prepare("INSERT INTO run_events(run_id, seq, type, data) VALUES (?, ?, ?, ?)")
            .Bind(run.id, e.seq, e.type, e.data)
            .Run();
      }
      EnqueuePauseOfTask(run);
      return true;
    }
    c_.Prepare(
          "UPDATE runs SET status = 'requires_action', paused = ?, expires_at_ms = ?, server_id = "
          "'' WHERE id = ? AND status = 'running' AND NOT cancel_requested")
        .Bind(run.paused_json, run.expires_at_ms, run.id)
        .Run();
    if (c_.Changes() != 1) return false;
    c_.Prepare(kEnqueuePauseWebhooks)
        .Bind(run.id, std::to_string(run.expires_at_ms), run.created_at_ms, run.org_id, run.env,
              std::string("%,run.requires_action,%"))
        .Run();
    EnqueuePauseOfTask(run);
    return true;
  }

 private:
  // The pause's delivery to the run's own push configs (an A2A task's: docs/a2a.md).
  void EnqueuePauseOfTask(const RunRecord& run) {
    if (run.conversation_id.empty()) return;
    c_.Prepare(kEnqueueTaskWebhooks)
        .Bind(run.id, PauseDeliveryMiddle(run.expires_at_ms), std::string("run.requires_action"),
              run.created_at_ms, std::string())
        .Run();
  }

  Connection& c_;
};

}  // namespace

bool CommitTurnsIn(Connection& c, const std::vector<const TurnCommit*>& commits, bool alone,
                   std::vector<Result<void>>& results) {
  SqliteTurnRows rows(c);
  // Each turn of a group runs in a savepoint, so one refused turn does not undo the others. A
  // turn alone needs none (its refusal rolls the transaction back), and a savepoint copies every
  // page it changes into its journal.
  for (const TurnCommit* commit : commits) {
    if (!alone) c.Prepare("SAVEPOINT turn").Run();
    Result<void> written = MakeError(ErrorCode::kConflict, "already exists");
    try {
      written = WriteTurn(rows, *commit);
    } catch (const sqlite::SqliteError& e) {
      if (!e.IsConstraint()) throw;  // the store failed: the whole batch fails
    }
    if (alone) {
      if (!written) {
        results.push_back(std::move(written));
        return false;  // rolled back as the transaction ends uncommitted
      }
    } else {
      if (!written) c.Prepare("ROLLBACK TO turn").Run();
      c.Prepare("RELEASE turn").Run();
    }
    results.push_back(std::move(written));
  }
  SettleSpendIn(c, SettlementsOfWritten(commits, results));
  for (const RunWrite* ended : EndedRunsOfWritten(commits, results)) InsertEndedRunIn(c, *ended);
  return true;
}

std::vector<Result<void>> SqliteStore::CommitTurns(const std::vector<const TurnCommit*>& commits) {
  std::vector<Result<void>> results;
  auto batch = sqlite::WithConnection(*pool_, [&](Connection& c) -> Result<void> {
    results.clear();
    sqlite::WriteTransaction tx(c);
    if (CommitTurnsIn(c, commits, commits.size() == 1, results)) tx.Commit();
    return {};
  });
  if (!batch) results.assign(commits.size(), batch.error());
  return results;
}

BatchResults SqliteStore::CommitBatch(const std::vector<const TurnCommit*>& turns,
                                      const std::vector<const RunWrite*>& runs) {
  BatchResults results;
  auto batch = sqlite::WithConnection(*pool_, [&](Connection& c) -> Result<void> {
    results.turns.clear();
    results.runs.clear();
    sqlite::WriteTransaction tx(c);
    // A turn alone skips its savepoint only when nothing else would be rolled back with it.
    if (CommitTurnsIn(c, turns, turns.size() == 1 && runs.empty(), results.turns)) {
      WriteRunsIn(c, runs, results.runs);
      tx.Commit();
    }
    return {};
  });
  if (!batch) {
    results.turns.assign(turns.size(), batch.error());
    results.runs.assign(runs.size(), batch.error());
  }
  return results;
}

Result<std::vector<TurnRecord>> SqliteStore::ListTurns(const std::string& conversation_id) {
  return sqlite::WithConnection(*pool_, [&](Connection& c) -> Result<std::vector<TurnRecord>> {
    static const std::string sql =
        std::string("SELECT ") + kTurnColumns +
        " FROM turns WHERE conversation_id = ? AND conversation_id <> '' ORDER BY started_at_ms, "
        "rowid";
    return c.Prepare(sql).Bind(conversation_id).All(ReadTurn);
  });
}

Result<std::optional<TurnRecord>> SqliteStore::GetTurn(const std::string& turn_id) {
  return sqlite::WithConnection(*pool_, [&](Connection& c) -> Result<std::optional<TurnRecord>> {
    static const std::string sql =
        std::string("SELECT ") + kTurnColumns + " FROM turns WHERE id = ?";
    return c.Prepare(sql).Bind(turn_id).One(ReadTurn);
  });
}

Result<std::int64_t> SqliteStore::PurgeTurns(std::int64_t before_ms, int limit) {
  return sqlite::WithConnection(*pool_, [&](Connection& c) -> Result<std::int64_t> {
    c.Prepare(
         "DELETE FROM turns WHERE id IN (SELECT id FROM turns WHERE started_at_ms < ? "
         "ORDER BY started_at_ms LIMIT ?)")
        .Bind(before_ms, static_cast<std::int64_t>(limit))
        .Run();
    const auto turns = static_cast<std::int64_t>(c.Changes());
    c.Prepare(
         "DELETE FROM response_asks WHERE response_id IN (SELECT response_id FROM response_asks "
         "WHERE created_at_ms < ? ORDER BY created_at_ms LIMIT ?)")
        .Bind(before_ms, static_cast<std::int64_t>(limit))
        .Run();
    return turns;
  });
}

Result<std::int64_t> SqliteStore::PurgeIdleConversations(std::int64_t before_day,
                                                         std::int64_t now_ms, int limit) {
  return sqlite::WithConnection(*pool_, [&](Connection& c) -> Result<std::int64_t> {
    sqlite::WriteTransaction tx(c);
    std::vector<std::string> idle;
    {
      auto s = c.Prepare(
          "SELECT id FROM conversations c WHERE active_day < ? AND NOT EXISTS (SELECT 1 FROM "
          "conversation_turn_queue q WHERE q.conversation_id = c.id AND q.expires_at_ms > ?) "
          "ORDER BY active_day LIMIT ?");
      s.Bind(before_day, now_ms, static_cast<std::int64_t>(limit));
      while (s.Step()) idle.push_back(s.Text(0));
    }
    for (const auto& id : idle) {
      for (const char* sql :
           {"DELETE FROM messages WHERE conversation_id = ?",
            "DELETE FROM turns WHERE conversation_id = ? AND conversation_id <> ''",
            "DELETE FROM conversation_calls WHERE conversation_id = ?",
            "DELETE FROM conversation_turn_queue WHERE conversation_id = ?",
            "DELETE FROM conversations WHERE id = ?"}) {
        c.Prepare(sql).Bind(id).Run();
      }
    }
    tx.Commit();
    return static_cast<std::int64_t>(idle.size());
  });
}

Result<void> SqliteStore::AddMemory(const MemoryScope& scope, const std::string& fact,
                                    std::int64_t now_ms) {
  return sqlite::WithConnection(*pool_, [&](Connection& c) -> Result<void> {
    InsertFact(c, RememberedFact{scope, fact, now_ms});
    return {};
  });
}

Result<std::vector<MemoryEntry>> SqliteStore::ListMemories(const MemoryScope& scope, int limit) {
  return sqlite::WithConnection(*pool_, [&](Connection& c) -> Result<std::vector<MemoryEntry>> {
    auto s = c.Prepare(
        "SELECT id, fact, created_at_ms FROM (SELECT id, fact, created_at_ms FROM memories "
        "WHERE org_id = ? AND env = ? AND agent_id = ? AND group_key = ? ORDER BY id DESC LIMIT ?) "
        "ORDER BY id");
    return s.Bind(scope.org_id, scope.env, scope.agent_id, scope.group_key, limit)
        .All(FactIn(scope));
  });
}

namespace {

// "\"t1\" OR \"t2\"": every term a phrase, so no word is read as FTS5 syntax.
std::string AnyOfTerms(const std::vector<std::string>& terms) {
  std::string out;
  for (const auto& term : terms) {
    if (!out.empty()) out += " OR ";
    out += '"';
    for (char ch : term) out += ch == '"' ? std::string("\"\"") : std::string(1, ch);
    out += '"';
  }
  return out;
}

// "org_id = ? [AND agent_id = ?] [AND env = ?] [AND group_key = ?]", bound to the filter's
// values; `tail` (more SQL, with parameters bound after) follows.
sqlite::Statement PrepareFiltered(Connection& c, const std::string& head,
                                  const MemoryFilter& filter, const std::string& tail,
                                  int& next_parameter) {
  auto conditions = MemoryFilterConditions(filter);  // each value is moved into its binding
  std::string sql = head;
  for (std::size_t i = 0; i < conditions.size(); ++i)
    sql += std::string(i == 0 ? "" : " AND ") + conditions[i].first + " = ?";
  auto s = c.Prepare(sql + tail);
  next_parameter = 1;
  for (auto& [column, value] : conditions) s.BindAt(next_parameter++, std::move(value));
  return s;
}

}  // namespace

Result<std::vector<MemoryEntry>> SqliteStore::RecallMemories(const MemoryScope& scope,
                                                             const std::vector<std::string>& terms,
                                                             int limit) {
  if (terms.empty()) return std::vector<MemoryEntry>{};
  return sqlite::WithConnection(*pool_, [&](Connection& c) -> Result<std::vector<MemoryEntry>> {
    // How many facts hold each term (all scopes, as bm25 counts), read only up to the budget.
    std::vector<TermFrequency> frequencies;
    for (const auto& term : terms) {
      auto count = c.Prepare(
          "SELECT count(*) FROM (SELECT 1 FROM memories_fts WHERE memories_fts MATCH ? LIMIT ?)");
      count.Bind("fact:" + AnyOfTerms({term}), kRecallCandidateBudget + 1);
      count.Step();
      frequencies.push_back(TermFrequency{term, count.Int(0)});
    }
    const auto plan = PlanRecall(std::move(frequencies));
    std::vector<MemoryEntry> out;
    if (plan.terms.empty()) return out;
    // Ranked: the few candidates are ranked over all scopes, then kept if they are this scope's.
    // Unranked: the scope's token and the term's postings are walked newest first.
    auto s =
        plan.ranked
            ? c.Prepare(
                  "SELECT m.id, m.fact, m.created_at_ms FROM (SELECT rowid AS id, "
                  "bm25(memories_fts, 0.0, 1.0) AS score FROM memories_fts WHERE memories_fts "
                  "MATCH ?5) AS hit JOIN memories m ON m.id = hit.id "
                  "WHERE m.org_id = ?1 AND m.env = ?2 AND m.agent_id = ?3 AND m.group_key = ?4 "
                  "ORDER BY hit.score, m.id DESC LIMIT ?6")
            : c.Prepare(
                  "SELECT m.id, m.fact, m.created_at_ms FROM memories_fts "
                  "JOIN memories m ON m.id = memories_fts.rowid WHERE memories_fts MATCH "
                  "'scope_token:\"' || lower(hex(?1 || char(31) || ?2 || char(31) || ?3 || "
                  "char(31) || ?4)) || '\" AND fact:' || ?5 "
                  "ORDER BY memories_fts.rowid DESC LIMIT ?6");
    s.Bind(scope.org_id, scope.env, scope.agent_id, scope.group_key,
           plan.ranked ? "fact:(" + AnyOfTerms(plan.terms) + ")" : AnyOfTerms(plan.terms), limit);
    return s.All(FactIn(scope));
  });
}

Result<std::vector<MemoryEntry>> SqliteStore::ListMemoryPage(const MemoryFilter& filter,
                                                             std::int64_t before_id, int limit) {
  return sqlite::WithConnection(*pool_, [&](Connection& c) -> Result<std::vector<MemoryEntry>> {
    int next = 0;
    auto s = PrepareFiltered(c, std::string("SELECT ") + kMemoryColumns + " FROM memories WHERE ",
                             filter, " AND id < ? ORDER BY id DESC LIMIT ?", next);
    return s.BindAt(next, before_id).BindAt(next + 1, limit).All(ReadMemory);
  });
}

Result<std::int64_t> SqliteStore::DeleteMemories(const MemoryFilter& filter,
                                                 std::optional<std::int64_t> id) {
  return sqlite::WithConnection(*pool_, [&](Connection& c) -> Result<std::int64_t> {
    int next = 0;
    auto s =
        PrepareFiltered(c, "DELETE FROM memories WHERE ", filter, id ? " AND id = ?" : "", next);
    if (id) s.BindAt(next, *id);
    s.Run();
    return c.Changes();
  });
}

Result<std::int64_t> SqliteStore::PurgeMemories(std::int64_t before_ms, int limit) {
  return sqlite::WithConnection(*pool_, [&](Connection& c) -> Result<std::int64_t> {
    c.Prepare(
         "DELETE FROM memories WHERE id IN (SELECT id FROM memories WHERE created_at_ms < ? "
         "ORDER BY created_at_ms LIMIT ?)")
        .Bind(before_ms, static_cast<std::int64_t>(limit))
        .Run();
    return static_cast<std::int64_t>(c.Changes());
  });
}

}  // namespace agentgate
