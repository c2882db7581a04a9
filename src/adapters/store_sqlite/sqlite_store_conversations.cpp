#include "adapters/store_sqlite/sqlite_store.hpp"
#include "domain/agent/memory_recall.hpp"
#include "ports/clock.hpp"

#include <algorithm>

namespace agentgate {

using sqlite::Connection;

namespace {

// A memory scope as parameters 1-4 (org, env, agent, group key).
sqlite::Statement& BindScope(sqlite::Statement& s, const MemoryScope& scope) {
  return s.Bind(1, scope.org_id)
      .Bind(2, scope.env)
      .Bind(3, scope.agent_id)
      .Bind(4, scope.group_key);
}

// The one way each is written, on its own or inside a turn's commit.
void InsertConversation(Connection& c, const ConversationRecord& r) {
  c.Prepare(
       "INSERT INTO conversations(id, org_id, env, agent_id, instance_id, created_at_ms, "
       "active_day) VALUES (?, ?, ?, ?, ?, ?, ?)")
      .Bind(1, r.id)
      .Bind(2, r.org_id)
      .Bind(3, r.env)
      .Bind(4, r.agent_id)
      .Bind(5, r.instance_id)
      .Bind(6, r.created_at_ms)
      .Bind(7, r.created_at_ms / kMsPerDay)
      .Run();
}

void InsertFact(Connection& c, const RememberedFact& f) {
  c.Prepare(
       "INSERT INTO memories(org_id, env, agent_id, group_key, fact, created_at_ms) VALUES (?, "
       "?, ?, ?, ?, ?)")
      .Bind(1, f.scope.org_id)
      .Bind(2, f.scope.env)
      .Bind(3, f.scope.agent_id)
      .Bind(4, f.scope.group_key)
      .Bind(5, f.fact)
      .Bind(6, f.created_at_ms)
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
        auto s = c.Prepare(
            "SELECT org_id, env, agent_id, instance_id, created_at_ms FROM conversations WHERE id "
            "= ?");
        s.Bind(1, id);
        if (!s.Step()) return std::optional<ConversationRecord>{};
        return std::optional<ConversationRecord>(
            ConversationRecord{id, s.Text(0), s.Text(1), s.Text(2), s.Text(3), s.Int(4)});
      });
}

Result<std::vector<MessageRecord>> SqliteStore::LoadMessages(const std::string& conversation_id) {
  return sqlite::WithConnection(*pool_, [&](Connection& c) -> Result<std::vector<MessageRecord>> {
    auto s = c.Prepare(
        "SELECT seq, role, content, created_at_ms FROM messages WHERE conversation_id = ? ORDER BY "
        "seq");
    s.Bind(1, conversation_id);
    std::vector<MessageRecord> out;
    while (s.Step()) out.push_back(MessageRecord{s.Int(0), s.Text(1), s.Text(2), s.Int(3)});
    return out;
  });
}

Result<std::vector<MessageRecord>> SqliteStore::LoadRecentMessages(
    const std::string& conversation_id, std::size_t max_bytes, std::size_t max_messages) {
  return sqlite::WithConnection(*pool_, [&](Connection& c) -> Result<std::vector<MessageRecord>> {
    // Walks the primary key backwards and stops stepping once the budget is spent.
    auto s = c.Prepare(
        "SELECT seq, role, content, created_at_ms FROM messages WHERE conversation_id = ? ORDER BY "
        "seq DESC");
    s.Bind(1, conversation_id);
    std::vector<MessageRecord> out;
    std::size_t bytes = 0;
    while (bytes <= max_bytes && out.size() < max_messages && s.Step()) {
      out.push_back(MessageRecord{s.Int(0), s.Text(1), s.Text(2), s.Int(3)});
      bytes += out.back().content.size();
    }
    std::reverse(out.begin(), out.end());
    return out;
  });
}

Result<ConversationSummary> SqliteStore::LoadConversationSummary(
    const std::string& conversation_id) {
  return sqlite::WithConnection(*pool_, [&](Connection& c) -> Result<ConversationSummary> {
    auto s = c.Prepare("SELECT summary, summary_through_seq FROM conversations WHERE id = ?");
    s.Bind(1, conversation_id);
    if (!s.Step()) return ConversationSummary{};
    return ConversationSummary{s.Text(0), s.Int(1)};
  });
}

Result<std::int64_t> SqliteStore::EnqueueTurn(const std::string& conversation_id,
                                              std::int64_t expires_at_ms) {
  return sqlite::WithConnection(*pool_, [&](Connection& c) -> Result<std::int64_t> {
    auto s = c.Prepare(
        "INSERT INTO conversation_turn_queue(conversation_id, expires_at_ms) VALUES (?, ?) "
        "RETURNING ticket");
    s.Bind(1, conversation_id).Bind(2, expires_at_ms).Step();
    return s.Int(0);
  });
}

Result<bool> SqliteStore::IsTurnAtHead(const std::string& conversation_id, std::int64_t ticket,
                                       std::int64_t now_ms) {
  return sqlite::WithConnection(*pool_, [&](Connection& c) -> Result<bool> {
    auto s = c.Prepare(
        "SELECT MIN(ticket) FROM conversation_turn_queue WHERE conversation_id = ? AND "
        "expires_at_ms > ?");
    s.Bind(1, conversation_id).Bind(2, now_ms).Step();
    return !s.IsNull(0) && s.Int(0) == ticket;
  });
}

Result<void> SqliteStore::DequeueTurn(std::int64_t ticket) {
  return sqlite::WithConnection(*pool_, [&](Connection& c) -> Result<void> {
    c.Prepare("DELETE FROM conversation_turn_queue WHERE ticket = ?").Bind(1, ticket).Run();
    return {};
  });
}

namespace {

// One turn's writes, inside the batch's transaction (under a savepoint of its own).
// Its settlements are applied with the batch's, once it is written.
Result<void> WriteTurn(Connection& c, const TurnCommit& commit) {
  const TurnRecord& t = commit.turn;
  for (const auto& s : commit.settlements) {
    if (!ReservationExists(c, s.reservation_id))
      return MakeError(ErrorCode::kConflict, "a spend reservation of this turn was released");
  }
  // An existing conversation's last message and day of use. Read before anything is written: a
  // conversation purged as idle while this turn ran (docs/decisions.md, retention) ends it as not
  // found, with nothing of it stored.
  std::int64_t seq = 0;
  std::int64_t active_day = 0;
  if (!commit.messages.empty() && !commit.new_conversation) {
    auto last = c.Prepare(
        "SELECT (SELECT active_day FROM conversations WHERE id = ?1), COALESCE(MAX(seq), 0) FROM "
        "messages WHERE conversation_id = ?1");
    last.Bind(1, t.conversation_id).Step();
    if (last.IsNull(0)) {
      return MakeError(ErrorCode::kConversationNotFound,
                       "conversation '" + t.conversation_id + "' was deleted as idle");
    }
    active_day = last.Int(0);
    seq = last.Int(1);
  }
  if (const auto& done = commit.idempotency) {
    c.Prepare(
         "UPDATE idempotency_keys SET state = 'completed', status = ?, body = ?, "
         "expires_at_ms = ? WHERE org_id = ? AND env = ? AND key = ? AND state = 'running' AND "
         "claimed_at_ms = ?")
        .Bind(1, done->status)
        .Bind(2, done->body)
        .Bind(3, done->expires_at_ms)
        .Bind(4, done->scope.org_id)
        .Bind(5, done->scope.env)
        .Bind(6, done->scope.key)
        .Bind(7, done->claimed_at_ms)
        .Run();
    if (c.Changes() == 0)
      return MakeError(ErrorCode::kConflict, "the idempotency claim was taken over");
  }
  if (const auto& fresh = commit.new_conversation) {
    InsertConversation(c, *fresh);
    // Its first call counts in its call window like every later one.
    c.Prepare("INSERT INTO conversation_calls(conversation_id, at_ms) VALUES (?, ?)")
        .Bind(1, fresh->id)
        .Bind(2, fresh->created_at_ms)
        .Run();
  }
  for (const auto& f : commit.facts) InsertFact(c, f);
  if (const auto& summary = commit.summary) {
    c.Prepare(
         "UPDATE conversations SET summary = ?, summary_through_seq = ? WHERE id = ? AND "
         "summary_through_seq < ?")
        .Bind(1, summary->text)
        .Bind(2, summary->through_seq)
        .Bind(3, t.conversation_id)
        .Bind(4, summary->through_seq)
        .Run();
  }
  if (!commit.messages.empty()) {
    // Written once a day at most: the index of days is not touched by every turn.
    const std::int64_t today = commit.messages.back().created_at_ms / kMsPerDay;
    if (!commit.new_conversation && active_day < today) {
      c.Prepare("UPDATE conversations SET active_day = ? WHERE id = ?")
          .Bind(1, today)
          .Bind(2, t.conversation_id)
          .Run();
    }
    for (const auto& m : commit.messages) {
      c.Prepare(
           "INSERT INTO messages(conversation_id, seq, role, content, created_at_ms) "
           "VALUES (?, ?, ?, ?, ?)")
          .Bind(1, t.conversation_id)
          .Bind(2, ++seq)
          .Bind(3, m.role)
          .Bind(4, m.content)
          .Bind(5, m.created_at_ms)
          .Run();
    }
  }
  c.Prepare(
       "INSERT INTO turns(id, conversation_id, org_id, env, agent_id, version, started_at_ms, "
       "duration_ms, stop_reason, blocked, model_calls, input_tokens, output_tokens, cost_usd, "
       "transcript) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)")
      .Bind(1, t.id)
      .Bind(2, t.conversation_id)
      .Bind(3, t.org_id)
      .Bind(4, t.env)
      .Bind(5, t.agent_id)
      .Bind(6, t.version)
      .Bind(7, t.started_at_ms)
      .Bind(8, t.duration_ms)
      .Bind(9, t.stop_reason)
      .Bind(10, t.blocked ? 1 : 0)
      .Bind(11, t.model_calls)
      .Bind(12, t.input_tokens)
      .Bind(13, t.output_tokens)
      .Bind(14, t.cost_usd)
      .Bind(15, t.transcript_json)
      .Run();
  return {};
}

}  // namespace

std::vector<Result<void>> SqliteStore::CommitTurns(const std::vector<const TurnCommit*>& commits) {
  std::vector<Result<void>> results;
  auto batch = sqlite::WithConnection(*pool_, [&](Connection& c) -> Result<void> {
    results.clear();
    sqlite::WriteTransaction tx(c);
    // Each turn of a group runs in a savepoint, so one refused turn does not undo the others. A
    // turn alone needs none (its refusal rolls the transaction back), and a savepoint copies every
    // page it changes into its journal: seven pages and about forty allocations a turn.
    const bool alone = commits.size() == 1;
    for (const TurnCommit* commit : commits) {
      if (!alone) c.Prepare("SAVEPOINT turn").Run();
      Result<void> written = MakeError(ErrorCode::kConflict, "already exists");
      try {
        written = WriteTurn(c, *commit);
      } catch (const sqlite::SqliteError& e) {
        if (!e.IsConstraint()) throw;  // the store failed: the whole batch fails
      }
      if (alone) {
        if (!written) {
          results.push_back(std::move(written));
          return {};  // rolled back as the transaction ends uncommitted
        }
      } else {
        if (!written) c.Prepare("ROLLBACK TO turn").Run();
        c.Prepare("RELEASE turn").Run();
      }
      results.push_back(std::move(written));
    }
    std::vector<const SpendSettlement*> settled;
    for (std::size_t i = 0; i < commits.size(); ++i) {
      if (!results[i]) continue;
      for (const auto& s : commits[i]->settlements) settled.push_back(&s);
    }
    SettleSpendIn(c, settled);
    tx.Commit();
    return {};
  });
  if (!batch) results.assign(commits.size(), batch.error());
  return results;
}

namespace {

constexpr const char* kTurnColumns =
    "SELECT id, conversation_id, org_id, env, agent_id, version, started_at_ms, duration_ms, "
    "stop_reason, blocked, "
    "model_calls, input_tokens, output_tokens, cost_usd, transcript FROM turns ";

TurnRecord TurnFromRow(const sqlite::Statement& s) {
  return TurnRecord{s.Text(0),
                    s.Text(1),
                    s.Text(2),
                    s.Text(3),
                    s.Text(4),
                    static_cast<int>(s.Int(5)),
                    s.Int(6),
                    s.Int(7),
                    s.Text(8),
                    s.Int(9) != 0,
                    static_cast<int>(s.Int(10)),
                    s.Int(11),
                    s.Int(12),
                    s.Double(13),
                    s.Text(14)};
}

}  // namespace

Result<std::vector<TurnRecord>> SqliteStore::ListTurns(const std::string& conversation_id) {
  return sqlite::WithConnection(*pool_, [&](Connection& c) -> Result<std::vector<TurnRecord>> {
    auto s = c.Prepare(
        std::string(kTurnColumns) +
        "WHERE conversation_id = ? AND conversation_id <> '' ORDER BY started_at_ms, rowid");
    s.Bind(1, conversation_id);
    std::vector<TurnRecord> out;
    while (s.Step()) out.push_back(TurnFromRow(s));
    return out;
  });
}

Result<std::optional<TurnRecord>> SqliteStore::GetTurn(const std::string& turn_id) {
  return sqlite::WithConnection(*pool_, [&](Connection& c) -> Result<std::optional<TurnRecord>> {
    auto s = c.Prepare(std::string(kTurnColumns) + "WHERE id = ?");
    s.Bind(1, turn_id);
    if (!s.Step()) return std::optional<TurnRecord>{};
    return std::optional<TurnRecord>(TurnFromRow(s));
  });
}

Result<std::int64_t> SqliteStore::PurgeTurns(std::int64_t before_ms, int limit) {
  return sqlite::WithConnection(*pool_, [&](Connection& c) -> Result<std::int64_t> {
    c.Prepare(
         "DELETE FROM turns WHERE id IN (SELECT id FROM turns WHERE started_at_ms < ? "
         "ORDER BY started_at_ms LIMIT ?)")
        .Bind(1, before_ms)
        .Bind(2, static_cast<std::int64_t>(limit))
        .Run();
    return static_cast<std::int64_t>(c.Changes());
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
      s.Bind(1, before_day).Bind(2, now_ms).Bind(3, static_cast<std::int64_t>(limit));
      while (s.Step()) idle.push_back(s.Text(0));
    }
    for (const auto& id : idle) {
      for (const char* sql :
           {"DELETE FROM messages WHERE conversation_id = ?",
            "DELETE FROM turns WHERE conversation_id = ? AND conversation_id <> ''",
            "DELETE FROM conversation_calls WHERE conversation_id = ?",
            "DELETE FROM conversation_turn_queue WHERE conversation_id = ?",
            "DELETE FROM conversations WHERE id = ?"}) {
        c.Prepare(sql).Bind(1, id).Run();
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
    BindScope(s, scope).Bind(5, limit);
    std::vector<MemoryEntry> out;
    while (s.Step()) out.push_back(MemoryEntry{s.Int(0), s.Text(1), s.Int(2), scope});
    return out;
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

// "org_id = ? [AND agent_id = ?] [AND env = ?] [AND group_key = ?]".
std::string FilterSql(const MemoryFilter& filter) {
  std::string sql = "org_id = ?";
  if (filter.agent_id) sql += " AND agent_id = ?";
  if (filter.env) sql += " AND env = ?";
  if (filter.group_key) sql += " AND group_key = ?";
  return sql;
}

int BindFilter(sqlite::Statement& s, const MemoryFilter& filter) {
  int i = 1;
  s.Bind(i++, filter.org_id);
  if (filter.agent_id) s.Bind(i++, *filter.agent_id);
  if (filter.env) s.Bind(i++, *filter.env);
  if (filter.group_key) s.Bind(i++, *filter.group_key);
  return i;
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
      count.Bind(1, "fact:" + AnyOfTerms({term})).Bind(2, kRecallCandidateBudget + 1);
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
    BindScope(s, scope)
        .Bind(5, plan.ranked ? "fact:(" + AnyOfTerms(plan.terms) + ")" : AnyOfTerms(plan.terms))
        .Bind(6, limit);
    while (s.Step()) out.push_back(MemoryEntry{s.Int(0), s.Text(1), s.Int(2), scope});
    return out;
  });
}

Result<std::vector<MemoryEntry>> SqliteStore::ListMemoryPage(const MemoryFilter& filter,
                                                             std::int64_t before_id, int limit) {
  return sqlite::WithConnection(*pool_, [&](Connection& c) -> Result<std::vector<MemoryEntry>> {
    auto s = c.Prepare(
        "SELECT id, fact, created_at_ms, org_id, env, agent_id, group_key FROM memories WHERE " +
        FilterSql(filter) + " AND id < ? ORDER BY id DESC LIMIT ?");
    const int next = BindFilter(s, filter);
    s.Bind(next, before_id).Bind(next + 1, limit);
    std::vector<MemoryEntry> out;
    while (s.Step()) {
      out.push_back(MemoryEntry{s.Int(0), s.Text(1), s.Int(2),
                                MemoryScope{s.Text(3), s.Text(4), s.Text(5), s.Text(6)}});
    }
    return out;
  });
}

Result<std::int64_t> SqliteStore::DeleteMemories(const MemoryFilter& filter,
                                                 std::optional<std::int64_t> id) {
  return sqlite::WithConnection(*pool_, [&](Connection& c) -> Result<std::int64_t> {
    auto s =
        c.Prepare("DELETE FROM memories WHERE " + FilterSql(filter) + (id ? " AND id = ?" : ""));
    const int next = BindFilter(s, filter);
    if (id) s.Bind(next, *id);
    s.Run();
    return c.Changes();
  });
}

Result<std::int64_t> SqliteStore::PurgeMemories(std::int64_t before_ms, int limit) {
  return sqlite::WithConnection(*pool_, [&](Connection& c) -> Result<std::int64_t> {
    c.Prepare(
         "DELETE FROM memories WHERE id IN (SELECT id FROM memories WHERE created_at_ms < ? "
         "ORDER BY created_at_ms LIMIT ?)")
        .Bind(1, before_ms)
        .Bind(2, static_cast<std::int64_t>(limit))
        .Run();
    return static_cast<std::int64_t>(c.Changes());
  });
}

}  // namespace agentgate
