#include "adapters/store_common/recent_messages.hpp"
#include "adapters/store_common/row_readers.hpp"
#include "adapters/store_common/run_rules.hpp"
#include "adapters/store_common/turn_write.hpp"
#include "adapters/store_postgres/postgres_store.hpp"
#include "domain/agent/memory_recall.hpp"
#include "ports/clock.hpp"

#include <algorithm>
#include <limits>
#include <set>

namespace agentgate {
namespace {

using pg::Connection;
using pg::P;

// The one way each is written, on its own or inside a turn's commit.
void InsertConversation(Connection& c, const ConversationRecord& r) {
  c.Exec(
      "INSERT INTO conversations(id, org_id, env, agent_id, instance_id, created_at_ms, "
      "active_day, metadata) VALUES ($1, $2, $3, $4, $5, $6, $7, $8)",
      {P(r.id), P(r.org_id), P(r.env), P(r.agent_id), P(r.instance_id), P(r.created_at_ms),
       P(r.created_at_ms / kMsPerDay), P(r.metadata_json)});
}

void InsertFact(Connection& c, const RememberedFact& f) {
  c.Exec(
      "INSERT INTO memories(org_id, env, agent_id, group_key, fact, created_at_ms) VALUES ($1, "
      "$2, $3, $4, $5, $6)",
      {P(f.scope.org_id), P(f.scope.env), P(f.scope.agent_id), P(f.scope.group_key), P(f.fact),
       P(f.created_at_ms)});
}

}  // namespace

Result<void> PostgresStore::CreateConversation(const ConversationRecord& r) {
  return pg::WithConnection(*pool_, [&](Connection& c) -> Result<void> {
    InsertConversation(c, r);
    return {};
  });
}

Result<std::optional<ConversationRecord>> PostgresStore::GetConversation(const std::string& id) {
  return pg::WithConnection(
      *pool_, [&](Connection& c) -> Result<std::optional<ConversationRecord>> {
        static const std::string sql =
            std::string("SELECT ") + kConversationColumns + " FROM conversations WHERE id = $1";
        return c.Exec(sql, {P(id)}).One(ReadConversation);
      });
}

Result<std::vector<MessageRecord>> PostgresStore::LoadMessages(const std::string& conversation_id) {
  return pg::WithConnection(*pool_, [&](Connection& c) -> Result<std::vector<MessageRecord>> {
    static const std::string sql = std::string("SELECT ") + kMessageColumns +
                                   " FROM messages WHERE conversation_id = $1 ORDER BY seq";
    return c.Exec(sql, {P(conversation_id)}).All(ReadMessage);
  });
}

Result<std::vector<MessageRecord>> PostgresStore::LoadRecentMessages(
    const std::string& conversation_id, std::size_t max_bytes, std::size_t max_messages) {
  return pg::WithConnection(*pool_, [&](Connection& c) -> Result<std::vector<MessageRecord>> {
    // Pages backwards through the primary key, each page twice the last, until the budget is
    // spent: a short window costs one round trip, and none reads the whole conversation.
    static const std::string sql =
        std::string("SELECT ") + kMessageColumns +
        " FROM messages WHERE conversation_id = $1 AND seq < $2 ORDER BY seq DESC LIMIT $3";
    RecentMessages recent(max_bytes, max_messages);
    std::int64_t before = std::numeric_limits<std::int64_t>::max();
    for (std::int64_t page = 32; recent.WantsMore(); page *= 2) {
      const auto r = c.Exec(sql, {P(conversation_id), P(before), P(page)});
      for (int i = 0; i < r.size() && recent.WantsMore(); ++i) {
        before = r.Int(i, 0);
        recent.Add(ReadMessage(pg::Row(r, i)));
      }
      if (r.size() < page) break;
    }
    return std::move(recent).OldestFirst();
  });
}

Result<std::vector<MessageRecord>> PostgresStore::TurnMessages(const std::string& conversation_id,
                                                               const std::string& turn_id) {
  return pg::WithConnection(*pool_, [&](Connection& c) -> Result<std::vector<MessageRecord>> {
    static const std::string sql =
        std::string("SELECT ") + kMessageColumns +
        " FROM messages WHERE conversation_id = $1 AND turn_id = $2 ORDER BY seq";
    const auto r = c.Exec(sql, {P(conversation_id), P(turn_id)});
    std::vector<MessageRecord> out;
    for (int i = 0; i < r.size(); ++i) out.push_back(ReadMessage(pg::Row(r, i)));
    return out;
  });
}

Result<std::int64_t> PostgresStore::EnqueueTurn(const std::string& conversation_id,
                                                std::int64_t expires_at_ms,
                                                const std::string& server_id) {
  return pg::WithConnection(*pool_, [&](Connection& c) -> Result<std::int64_t> {
    return c
        .Exec(
            "INSERT INTO conversation_turn_queue(conversation_id, expires_at_ms, server_id) VALUES "
            "($1, $2, $3) RETURNING ticket",
            {P(conversation_id), P(expires_at_ms), P(server_id)})
        .Int(0, 0);
  });
}

Result<bool> PostgresStore::IsTurnAtHead(const std::string& conversation_id, std::int64_t ticket,
                                         std::int64_t now_ms, const std::string& server_id) {
  return pg::WithConnection(*pool_, [&](Connection& c) -> Result<bool> {
    return c.Exec(
                "SELECT NOT EXISTS (SELECT 1 FROM conversation_turn_queue WHERE conversation_id = "
                "$1 "
                "AND ticket < $2 AND expires_at_ms > $3 AND (server_id <> $4 OR run_id <> ''))",
                {P(conversation_id), P(ticket), P(now_ms), P(server_id)})
               .Text(0, 0) == "t";
  });
}

Result<void> PostgresStore::DequeueTurn(std::int64_t ticket) {
  return pg::WithConnection(*pool_, [&](Connection& c) -> Result<void> {
    c.Exec("DELETE FROM conversation_turn_queue WHERE ticket = $1", {P(ticket)});
    return {};
  });
}

Result<std::vector<SupersededTicket>> PostgresStore::SupersedeTurns(
    const std::string& conversation_id, std::int64_t ticket, std::int64_t now_ms) {
  return pg::WithConnection(*pool_, [&](Connection& c) -> Result<std::vector<SupersededTicket>> {
    return c
        .Exec(
            "UPDATE conversation_turn_queue SET superseded = TRUE WHERE conversation_id = $1 AND "
            "ticket < $2 AND expires_at_ms > $3 RETURNING ticket, server_id, run_id",
            {P(conversation_id), P(ticket), P(now_ms)})
        .All([](const RowView& row) {
          return SupersededTicket{row.Int(0), row.Text(1), row.Text(2)};
        });
  });
}

Result<std::optional<std::int64_t>> PostgresStore::RunPlace(const std::string& run_id) {
  return pg::WithConnection(*pool_, [&](Connection& c) -> Result<std::optional<std::int64_t>> {
    return c.Exec("SELECT ticket FROM conversation_turn_queue WHERE run_id = $1", {P(run_id)})
        .One([](const RowView& row) { return row.Int(0); });
  });
}

Result<std::optional<std::int64_t>> PostgresStore::TakeRunPlace(const std::string& run_id,
                                                                const std::string& server_id,
                                                                std::int64_t expires_at_ms) {
  return pg::WithConnection(*pool_, [&](Connection& c) -> Result<std::optional<std::int64_t>> {
    return c
        .Exec(
            "UPDATE conversation_turn_queue SET server_id = $1, expires_at_ms = $2 WHERE run_id = "
            "$3 RETURNING ticket",
            {P(server_id), P(expires_at_ms), P(run_id)})
        .One([](const RowView& row) { return row.Int(0); });
  });
}

Result<std::vector<std::int64_t>> PostgresStore::SupersededTickets(const std::string& server_id) {
  return pg::WithConnection(*pool_, [&](Connection& c) -> Result<std::vector<std::int64_t>> {
    return c
        .Exec("SELECT ticket FROM conversation_turn_queue WHERE server_id = $1 AND superseded",
              {P(server_id)})
        .All([](const RowView& row) { return row.Int(0); });
  });
}

namespace {

// Turn rows, one or many, in one statement: each column's values travel as one array.
void InsertTurns(Connection& c, const std::vector<const TurnRecord*>& turns) {
  std::vector<std::vector<pg::Param>> columns(15);
  for (auto& column : columns) column.reserve(turns.size());
  for (const TurnRecord* t : turns) {
    const pg::Param row[] = {P(t->id),
                             P(t->conversation_id),
                             P(t->org_id),
                             P(t->env),
                             P(t->agent_id),
                             P(t->version),
                             P(t->started_at_ms),
                             P(t->duration_ms),
                             P(t->stop_reason),
                             P(std::string(t->blocked ? "true" : "false")),
                             P(t->model_calls),
                             P(t->input_tokens),
                             P(t->output_tokens),
                             P(t->cost_usd),
                             P(t->transcript_json)};
    for (std::size_t i = 0; i < columns.size(); ++i) columns[i].push_back(row[i]);
  }
  std::vector<pg::Param> arrays;
  for (const auto& column : columns) arrays.push_back(pg::ArrayOf(column));
  c.Exec(
      "INSERT INTO turns(id, conversation_id, org_id, env, agent_id, version, started_at_ms, "
      "duration_ms, stop_reason, blocked, model_calls, input_tokens, output_tokens, cost_usd, "
      "transcript) SELECT * FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], "
      "$5::text[], $6::integer[], $7::bigint[], $8::bigint[], $9::text[], $10::boolean[], "
      "$11::integer[], $12::bigint[], $13::bigint[], $14::double precision[], $15::text[])",
      arrays);
}

// A turn's rows, written inside the batch's transaction. The batch's turn rows are collected for
// one InsertTurns at its end when `turn_rows` is given.
class PostgresTurnRows final : public TurnRowWriter {
 public:
  PostgresTurnRows(Connection& c, const std::set<std::string>& live_reservations,
                   std::vector<const TurnRecord*>* turn_rows)
      : c_(c), live_(live_reservations), turn_rows_(turn_rows) {}

  bool ReservationLive(const std::string& id) override { return live_.contains(id); }
  // A refused turn writes nothing: a superseded ticket is left for its turn's end to delete.
  Ticket TakeTicket(std::int64_t ticket) override {
    if (!c_.Exec("DELETE FROM conversation_turn_queue WHERE ticket = $1 AND NOT superseded "
                 "RETURNING ticket",
                 {P(ticket)})
             .empty()) {
      return Ticket::kTaken;
    }
    const bool superseded =
        !c_.Exec("SELECT 1 FROM conversation_turn_queue WHERE ticket = $1", {P(ticket)}).empty();
    return superseded ? Ticket::kSuperseded : Ticket::kReleased;
  }
  std::optional<ConversationTail> Tail(const std::string& conversation_id) override {
    const auto last = c_.Exec(
        "SELECT (SELECT active_day FROM conversations WHERE id = $1), COALESCE(MAX(seq), 0) "
        "FROM messages WHERE conversation_id = $1",
        {P(conversation_id)});
    if (last.IsNull(0, 0)) return std::nullopt;
    return ConversationTail{last.Int(0, 0), last.Int(0, 1)};
  }
  bool CompleteIdempotencyKey(const IdempotencyCompletion& done) override {
    return agentgate::CompleteIdempotencyKey(c_, done);
  }
  void InsertConversation(const ConversationRecord& conversation) override {
    agentgate::InsertConversation(c_, conversation);
  }
  void RecordCall(const std::string& conversation_id, std::int64_t at_ms) override {
    c_.Exec("INSERT INTO conversation_calls(conversation_id, at_ms) VALUES ($1, $2)",
            {P(conversation_id), P(at_ms)});
  }
  void InsertFact(const RememberedFact& fact) override { agentgate::InsertFact(c_, fact); }
  void SaveSummary(const std::string& conversation_id,
                   const ConversationSummary& summary) override {
    c_.Exec(
        "UPDATE conversations SET summary = $1, summary_through_seq = $2 WHERE id = $3 AND "
        "summary_through_seq < $2",
        {P(summary.text), P(summary.through_seq), P(conversation_id)});
  }
  void SetActiveDay(const std::string& conversation_id, std::int64_t day) override {
    c_.Exec("UPDATE conversations SET active_day = $1 WHERE id = $2", {P(day), P(conversation_id)});
  }
  void InsertMessage(const std::string& conversation_id, std::int64_t seq,
                     const MessageRecord& m) override {
    c_.Exec(
        "INSERT INTO messages(conversation_id, seq, role, content, created_at_ms, turn_id) "
        "VALUES ($1, $2, $3, $4, $5, $6)",
        {P(conversation_id), P(seq), P(m.role), P(m.content), P(m.created_at_ms), P(m.turn_id)});
  }
  void InsertTurn(const TurnRecord& turn) override {
    if (turn_rows_ != nullptr) {
      turn_rows_->push_back(&turn);
    } else {
      InsertTurns(c_, {&turn});
    }
  }
  // run_state::Pause as one conditional write (running, its cancel not asked for).
  bool PauseRun(const RunPause& pause) override {
    const RunRecord& run = pause.run;
    if (pause.create) {
      // A streamed run's recorder may have written it meanwhile: then paused as a running run.
      const bool written =
          !c_.Exec(
                 "INSERT INTO runs(id, org_id, env, agent_id, token_id, status, "
                 "conversation_id, created_at_ms, started_at_ms, paused, expires_at_ms) VALUES "
                 "($1, $2, $3, $4, $5, 'requires_action', $6, $7, $8, $9, $10) ON CONFLICT "
                 "(id) DO UPDATE SET status = 'requires_action', paused = EXCLUDED.paused, "
                 "expires_at_ms = EXCLUDED.expires_at_ms, server_id = '' WHERE runs.status = "
                 "'running' AND NOT runs.cancel_requested RETURNING id",
                 {P(run.id), P(run.org_id), P(run.env), P(run.agent_id), P(run.token_id),
                  P(run.conversation_id), P(run.created_at_ms), P(run.started_at_ms),
                  P(run.paused_json), P(run.expires_at_ms)})
               .empty();
      if (!written) return false;
      for (const auto& e : pause.events) {
        c_.Exec("INSERT INTO run_events(run_id, seq, type, data) VALUES ($1, $2, $3, $4)",
                {P(run.id), P(e.seq), P(e.type), P(e.data)});
      }
      EnqueuePauseOfTask(run);
      return true;
    }
    if (c_.Exec("UPDATE runs SET status = 'requires_action', paused = $2, expires_at_ms = $3, "
                "server_id = '' WHERE id = $1 AND status = 'running' AND NOT cancel_requested "
                "RETURNING id",
                {P(run.id), P(run.paused_json), P(run.expires_at_ms)})
            .empty())
      return false;
    c_.Exec(kEnqueuePauseWebhooks,
            {P(run.id), P(std::to_string(run.expires_at_ms)), P(run.created_at_ms), P(run.org_id),
             P(run.env), P(std::string("%,run.requires_action,%"))});
    EnqueuePauseOfTask(run);
    return true;
  }

 private:
  // The pause's delivery to the run's own push configs (an A2A task's: docs/a2a.md).
  void EnqueuePauseOfTask(const RunRecord& run) {
    if (run.conversation_id.empty()) return;
    c_.Exec(kEnqueueTaskWebhooks,
            {P(run.id), P(PauseDeliveryMiddle(run.expires_at_ms)),
             P(std::string("run.requires_action")), P(run.created_at_ms), P(std::string())});
  }

  Connection& c_;
  const std::set<std::string>& live_;
  std::vector<const TurnRecord*>* turn_rows_;
};

}  // namespace

Result<ConversationSummary> PostgresStore::LoadConversationSummary(
    const std::string& conversation_id) {
  return pg::WithConnection(*pool_, [&](Connection& c) -> Result<ConversationSummary> {
    auto r = c.Exec("SELECT summary, summary_through_seq FROM conversations WHERE id = $1",
                    {P(conversation_id)});
    if (r.size() == 0) return ConversationSummary{};
    return ConversationSummary{r.Text(0, 0), r.Int(0, 1)};
  });
}

Result<std::string> PostgresStore::LastMessageTurn(const std::string& conversation_id) {
  return pg::WithConnection(*pool_, [&](Connection& c) -> Result<std::string> {
    auto r =
        c.Exec("SELECT turn_id FROM messages WHERE conversation_id = $1 ORDER BY seq DESC LIMIT 1",
               {P(conversation_id)});
    if (r.size() == 0) return std::string();
    return r.Text(0, 0);
  });
}

std::vector<Result<void>> PostgresStore::CommitTurns(
    const std::vector<const TurnCommit*>& commits) {
  // A stateful turn appends under its conversation's lock, so seq numbers stay consecutive;
  // settlements take their spend locks. All of a batch's locks are taken at BEGIN, in one sorted
  // order (SpendLockKey). Round trips are what a batch costs, and they hold the spend locks that
  // lease requests wait on: the leases are checked once, the batch's turn rows go in one
  // statement, and the settlements of all committed turns are applied at the end, each lease and
  // spend total written once.
  std::set<std::string> locks;
  std::vector<std::string> reservation_ids;
  for (const TurnCommit* commit : commits) {
    const TurnRecord& t = commit->turn;
    if (!commit->messages.empty()) locks.insert("messages:" + t.conversation_id);
    for (const auto& s : commit->settlements) {
      locks.insert(SpendLockKey(s.org_id, s.month));
      reservation_ids.push_back(s.reservation_id);
    }
  }
  const std::vector<std::string> sorted(locks.begin(), locks.end());
  std::vector<Result<void>> results;
  // Optimistic first: every turn's writes in the one transaction, without savepoints. A turn the
  // store refuses by a constraint (a conversation created twice, say) aborts the transaction;
  // then the batch runs again with a savepoint around each turn, so only that turn fails. A turn
  // refused by a check (a released reservation, a taken-over key) wrote nothing, so needs none.
  auto write_batch = [&](Connection& c, bool savepoints) {
    results.clear();
    pg::Transaction tx(c, sorted);
    const auto live = LiveReservations(c, reservation_ids);
    if (!savepoints) {
      std::vector<const TurnRecord*> turn_rows;
      PostgresTurnRows rows(c, live, &turn_rows);
      for (const TurnCommit* commit : commits) results.push_back(WriteTurn(rows, *commit));
      if (!turn_rows.empty()) InsertTurns(c, turn_rows);
    } else {
      PostgresTurnRows rows(c, live, nullptr);
      bool undo = false;
      for (std::size_t i = 0; i < commits.size(); ++i) {
        c.ExecScript(std::string(undo ? "ROLLBACK TO SAVEPOINT turn; " : "") +
                     (i > 0 ? "RELEASE SAVEPOINT turn; " : "") + "SAVEPOINT turn");
        Result<void> written = MakeError(ErrorCode::kConflict, "already exists");
        try {
          written = WriteTurn(rows, *commits[i]);
        } catch (const pg::PgError& e) {
          if (!e.IsConstraint()) throw;  // the database failed: the whole batch fails
        }
        undo = !written;
        results.push_back(std::move(written));
      }
      c.ExecScript(std::string(undo ? "ROLLBACK TO SAVEPOINT turn; " : "") +
                   "RELEASE SAVEPOINT turn");
    }
    SettleSpendIn(c, SettlementsOfWritten(commits, results));
    for (const RunWrite* ended : EndedRunsOfWritten(commits, results)) InsertEndedRunIn(c, *ended);
    tx.Commit();
  };
  auto batch = pg::WithConnection(*pool_, [&](Connection& c) -> Result<void> {
    if (commits.size() == 1) {  // the transaction is the turn's unit: a constraint fails it alone
      write_batch(c, false);
      return {};
    }
    try {
      write_batch(c, false);
    } catch (const pg::PgError& e) {
      if (!e.IsConstraint()) throw;
      write_batch(c, true);  // the first try was rolled back by its transaction's destructor
    }
    return {};
  });
  if (!batch) results.assign(commits.size(), batch.error());
  return results;
}

Result<std::vector<TurnRecord>> PostgresStore::ListTurns(const std::string& conversation_id) {
  return pg::WithConnection(*pool_, [&](Connection& c) -> Result<std::vector<TurnRecord>> {
    static const std::string sql =
        std::string("SELECT ") + kTurnColumns +
        " FROM turns WHERE conversation_id = $1 AND conversation_id <> '' ORDER BY "
        "started_at_ms, id";
    return c.Exec(sql, {P(conversation_id)}).All(ReadTurn);
  });
}

Result<std::optional<TurnRecord>> PostgresStore::GetTurn(const std::string& turn_id) {
  return pg::WithConnection(*pool_, [&](Connection& c) -> Result<std::optional<TurnRecord>> {
    static const std::string sql =
        std::string("SELECT ") + kTurnColumns + " FROM turns WHERE id = $1";
    return c.Exec(sql, {P(turn_id)}).One(ReadTurn);
  });
}

Result<std::int64_t> PostgresStore::PurgeTurns(std::int64_t before_ms, int limit) {
  return pg::WithConnection(*pool_, [&](Connection& c) -> Result<std::int64_t> {
    const std::int64_t turns =
        c.Exec(
             "DELETE FROM turns WHERE id IN (SELECT id FROM turns WHERE started_at_ms < $1 "
             "ORDER BY started_at_ms LIMIT $2)",
             {P(before_ms), P(static_cast<std::int64_t>(limit))})
            .Affected();
    c.Exec(
        "DELETE FROM response_asks WHERE response_id IN (SELECT response_id FROM response_asks "
        "WHERE created_at_ms < $1 ORDER BY created_at_ms LIMIT $2)",
        {P(before_ms), P(static_cast<std::int64_t>(limit))});
    return turns;
  });
}

Result<std::int64_t> PostgresStore::PurgeIdleConversations(std::int64_t before_day,
                                                           std::int64_t now_ms, int limit) {
  return pg::WithConnection(*pool_, [&](Connection& c) -> Result<std::int64_t> {
    // One statement, one snapshot: a conversation and all of its go together. A turn that appends
    // to one meanwhile (it would have to be idle for days first) holds its row, so this statement
    // waits, then fails on the new messages' reference and is tried again at the next pass.
    return c
        .Exec(
            "WITH idle AS (SELECT id FROM conversations c WHERE active_day < $1 AND NOT EXISTS "
            "(SELECT 1 FROM conversation_turn_queue q WHERE q.conversation_id = c.id AND "
            "q.expires_at_ms > $2) ORDER BY active_day LIMIT $3), "
            "m AS (DELETE FROM messages WHERE conversation_id IN (SELECT id FROM idle)), "
            "t AS (DELETE FROM turns WHERE conversation_id IN (SELECT id FROM idle) AND "
            "conversation_id <> ''), "
            "k AS (DELETE FROM conversation_calls WHERE conversation_id IN (SELECT id FROM idle)), "
            "q AS (DELETE FROM conversation_turn_queue WHERE conversation_id IN "
            "(SELECT id FROM idle)), "
            "gone AS (DELETE FROM conversations WHERE id IN (SELECT id FROM idle) RETURNING 1) "
            "SELECT count(*) FROM gone",
            {P(before_day), P(now_ms), P(static_cast<std::int64_t>(limit))})
        .Int(0, 0);
  });
}

Result<void> PostgresStore::AddMemory(const MemoryScope& scope, const std::string& fact,
                                      std::int64_t now_ms) {
  return pg::WithConnection(*pool_, [&](Connection& c) -> Result<void> {
    InsertFact(c, RememberedFact{scope, fact, now_ms});
    return {};
  });
}

Result<std::vector<MemoryEntry>> PostgresStore::ListMemories(const MemoryScope& scope, int limit) {
  return pg::WithConnection(*pool_, [&](Connection& c) -> Result<std::vector<MemoryEntry>> {
    auto r = c.Exec(
        "SELECT id, fact, created_at_ms FROM (SELECT id, fact, created_at_ms FROM memories "
        "WHERE org_id = $1 AND env = $2 AND agent_id = $3 AND group_key = $4 ORDER BY id DESC "
        "LIMIT $5) m "
        "ORDER BY id",
        {P(scope.org_id), P(scope.env), P(scope.agent_id), P(scope.group_key), P(limit)});
    return r.All(FactIn(scope));
  });
}

namespace {

// "'l1' | 'l2'": lexemes already normalised by to_tsvector, quoted so none is read as syntax.
std::string AnyOfLexemes(const std::vector<std::string>& lexemes) {
  std::string out;
  for (const auto& lexeme : lexemes) {
    if (!out.empty()) out += " | ";
    out += '\'';
    for (char ch : lexeme) {
      if (ch == '\'' || ch == '\\') out += ch;
      out += ch;
    }
    out += '\'';
  }
  return out;
}

// "org_id = $1 [AND agent_id = $n] [AND env = $n] [AND group_key = $n]", its parameters appended.
std::string FilterSql(const MemoryFilter& filter, std::vector<pg::Param>& params) {
  std::string sql;
  for (auto& [column, value] : MemoryFilterConditions(filter)) {
    params.push_back(P(value));
    sql +=
        std::string(sql.empty() ? "" : " AND ") + column + " = $" + std::to_string(params.size());
  }
  return sql;
}

}  // namespace

Result<std::vector<MemoryEntry>> PostgresStore::RecallMemories(
    const MemoryScope& scope, const std::vector<std::string>& terms, int limit) {
  if (terms.empty()) return std::vector<MemoryEntry>{};
  std::string words;
  for (const auto& term : terms) words += (words.empty() ? "" : " ") + term;
  return pg::WithConnection(*pool_, [&](Connection& c) -> Result<std::vector<MemoryEntry>> {
    // The message's lexemes, in its order, and how many facts hold each (estimated).
    auto parsed = c.Exec(
        "SELECT lexeme FROM unnest(to_tsvector('english', $1)) ORDER BY positions[1]", {P(words)});
    std::vector<std::string> lexemes;
    for (int i = 0; i < parsed.size(); ++i) lexemes.push_back(parsed.Text(i, 0));
    auto frequencies = lexeme_stats_.Estimate(c, lexemes);
    const auto plan = PlanRecall(std::move(frequencies));
    if (plan.terms.empty()) return std::vector<MemoryEntry>{};
    // Ranked, the term index finds the few candidates. Unranked, the scope's index is walked
    // backwards until enough facts hold the term; written as a range, group_key stays in the
    // order, which only that index gives (with an equality the planner drops it and may walk the
    // primary key through every scope's facts instead).
    auto r = c.ExecPlannedForValues(
        std::string("SELECT id, fact, created_at_ms FROM memories WHERE org_id = $1 AND env = $2 "
                    "AND agent_id = $3 AND fact_tsv @@ $5::tsquery AND ") +
            (plan.ranked ? "group_key = $4 ORDER BY ts_rank(fact_tsv, $5::tsquery) DESC, id DESC"
                         : "group_key >= $4 AND group_key <= $4 ORDER BY group_key DESC, id DESC") +
            " LIMIT $6",
        {P(scope.org_id), P(scope.env), P(scope.agent_id), P(scope.group_key),
         P(AnyOfLexemes(plan.terms)), P(limit)});
    return r.All(FactIn(scope));
  });
}

Result<std::vector<MemoryEntry>> PostgresStore::ListMemoryPage(const MemoryFilter& filter,
                                                               std::int64_t before_id, int limit) {
  return pg::WithConnection(*pool_, [&](Connection& c) -> Result<std::vector<MemoryEntry>> {
    std::vector<pg::Param> params;
    std::string sql = std::string("SELECT ") + kMemoryColumns + " FROM memories WHERE " +
                      FilterSql(filter, params);
    params.push_back(P(before_id));
    sql += " AND id < $" + std::to_string(params.size());
    params.push_back(P(limit));
    sql += " ORDER BY id DESC LIMIT $" + std::to_string(params.size());
    return c.Exec(sql, params).All(ReadMemory);
  });
}

Result<std::int64_t> PostgresStore::DeleteMemories(const MemoryFilter& filter,
                                                   std::optional<std::int64_t> id) {
  return pg::WithConnection(*pool_, [&](Connection& c) -> Result<std::int64_t> {
    std::vector<pg::Param> params;
    std::string sql = "WITH gone AS (DELETE FROM memories WHERE " + FilterSql(filter, params);
    if (id) {
      params.push_back(P(*id));
      sql += " AND id = $" + std::to_string(params.size());
    }
    sql += " RETURNING 1) SELECT count(*) FROM gone";
    return c.Exec(sql, params).Int(0, 0);
  });
}

Result<std::int64_t> PostgresStore::PurgeMemories(std::int64_t before_ms, int limit) {
  return pg::WithConnection(*pool_, [&](Connection& c) -> Result<std::int64_t> {
    return c
        .Exec(
            "DELETE FROM memories WHERE id IN (SELECT id FROM memories WHERE created_at_ms < $1 "
            "ORDER BY created_at_ms LIMIT $2)",
            {P(before_ms), P(static_cast<std::int64_t>(limit))})
        .Affected();
  });
}

}  // namespace agentgate
