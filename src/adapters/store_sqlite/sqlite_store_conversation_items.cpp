// The Conversations API's writes and reads (ports/store.hpp, ConversationStore): a conversation's
// items are its messages. Each write that changes its history checks, in its own transaction,
// that no turn is queued or running on it.
#include "adapters/store_common/row_readers.hpp"
#include "adapters/store_sqlite/sqlite_store.hpp"
#include "ports/clock.hpp"

#include <limits>

namespace agentgate {

using sqlite::Connection;

namespace {

Error Busy(const std::string& conversation_id) {
  return MakeError(ErrorCode::kConversationBusy,
                   "conversation '" + conversation_id + "' has a turn running or queued");
}

// Inside the caller's write transaction: whether the conversation exists, and is free.
Result<bool> ExistsAndFree(Connection& c, const std::string& conversation_id, std::int64_t now_ms) {
  auto s = c.Prepare(
      "SELECT EXISTS (SELECT 1 FROM conversations WHERE id = ?1), EXISTS (SELECT 1 FROM runs "
      "WHERE conversation_id = ?1 AND status IN ('queued', 'running')) OR EXISTS (SELECT 1 FROM "
      "conversation_turn_queue WHERE conversation_id = ?1 AND expires_at_ms > ?2)");
  s.Bind(conversation_id, now_ms).Step();
  if (s.Int(0) == 0) return false;
  if (s.Int(1) != 0) return Busy(conversation_id);
  return true;
}

}  // namespace

Result<std::vector<MessageRecord>> SqliteStore::ConversationItems(
    const std::string& conversation_id, const ItemPage& page) {
  return sqlite::WithConnection(*pool_, [&](Connection& c) -> Result<std::vector<MessageRecord>> {
    static const std::string ascending =
        std::string("SELECT ") + kMessageColumns +
        " FROM messages WHERE conversation_id = ? AND seq > ? ORDER BY seq LIMIT ?";
    static const std::string descending =
        std::string("SELECT ") + kMessageColumns +
        " FROM messages WHERE conversation_id = ? AND seq < ? ORDER BY seq DESC LIMIT ?";
    const std::int64_t after = page.after_seq.value_or(
        page.descending ? std::numeric_limits<std::int64_t>::max() : std::int64_t{0});
    auto s = c.Prepare(page.descending ? descending : ascending);
    s.Bind(conversation_id, after, static_cast<std::int64_t>(page.limit));
    std::vector<MessageRecord> out;
    while (s.Step()) out.push_back(ReadMessage(s));
    return out;
  });
}

Result<std::vector<MessageRecord>> SqliteStore::AppendConversationItems(
    const std::string& conversation_id, const std::vector<MessageRecord>& items,
    std::int64_t now_ms) {
  return sqlite::WithConnection(*pool_, [&](Connection& c) -> Result<std::vector<MessageRecord>> {
    sqlite::WriteTransaction tx(c);
    AG_TRY(const bool exists, ExistsAndFree(c, conversation_id, now_ms));
    if (!exists) {
      return MakeError(ErrorCode::kConversationNotFound,
                       "conversation '" + conversation_id + "' not found");
    }
    auto last = c.Prepare("SELECT COALESCE(MAX(seq), 0) FROM messages WHERE conversation_id = ?");
    last.Bind(conversation_id).Step();
    std::int64_t seq = last.Int(0);
    std::vector<MessageRecord> written;
    for (const auto& item : items) {
      MessageRecord m = item;
      m.seq = ++seq;
      c.Prepare(
           "INSERT INTO messages(conversation_id, seq, role, content, created_at_ms, turn_id) "
           "VALUES (?, ?, ?, ?, ?, ?)")
          .Bind(conversation_id, m.seq, m.role, m.content, m.created_at_ms, m.turn_id)
          .Run();
      written.push_back(std::move(m));
    }
    c.Prepare("UPDATE conversations SET active_day = ? WHERE id = ?")
        .Bind(now_ms / kMsPerDay, conversation_id)
        .Run();
    tx.Commit();
    return written;
  });
}

Result<bool> SqliteStore::DeleteConversationItem(const std::string& conversation_id,
                                                 std::int64_t seq, std::int64_t now_ms) {
  return sqlite::WithConnection(*pool_, [&](Connection& c) -> Result<bool> {
    sqlite::WriteTransaction tx(c);
    AG_TRY(const bool exists, ExistsAndFree(c, conversation_id, now_ms));
    if (!exists) return false;
    c.Prepare("DELETE FROM messages WHERE conversation_id = ? AND seq = ?")
        .Bind(conversation_id, seq)
        .Run();
    const bool deleted = c.Changes() == 1;
    tx.Commit();
    return deleted;
  });
}

Result<bool> SqliteStore::DeleteConversation(const std::string& conversation_id,
                                             std::int64_t now_ms) {
  return sqlite::WithConnection(*pool_, [&](Connection& c) -> Result<bool> {
    sqlite::WriteTransaction tx(c);
    AG_TRY(const bool exists, ExistsAndFree(c, conversation_id, now_ms));
    if (!exists) return false;
    for (const char* sql : {"DELETE FROM messages WHERE conversation_id = ?",
                            "DELETE FROM turns WHERE conversation_id = ? AND conversation_id <> ''",
                            "DELETE FROM conversation_calls WHERE conversation_id = ?",
                            "DELETE FROM conversation_turn_queue WHERE conversation_id = ?",
                            "DELETE FROM conversations WHERE id = ?"}) {
      c.Prepare(sql).Bind(conversation_id).Run();
    }
    tx.Commit();
    return true;
  });
}

Result<void> SqliteStore::SetConversationMetadata(const std::string& conversation_id,
                                                  const std::string& metadata_json) {
  return sqlite::WithConnection(*pool_, [&](Connection& c) -> Result<void> {
    c.Prepare("UPDATE conversations SET metadata = ? WHERE id = ?")
        .Bind(metadata_json, conversation_id)
        .Run();
    return {};
  });
}

Result<void> SqliteStore::BindConversation(const std::string& conversation_id,
                                           const std::string& agent_id,
                                           const std::string& instance_id) {
  return sqlite::WithConnection(*pool_, [&](Connection& c) -> Result<void> {
    c.Prepare(
         "UPDATE conversations SET agent_id = ?, instance_id = ? WHERE id = ? AND agent_id = ''")
        .Bind(agent_id, instance_id, conversation_id)
        .Run();
    return {};
  });
}

Result<void> SqliteStore::PutResponseAsk(const ResponseAsk& ask) {
  return sqlite::WithConnection(*pool_, [&](Connection& c) -> Result<void> {
    c.Prepare(
         "INSERT OR REPLACE INTO response_asks(response_id, org_id, env, asked_json, "
         "created_at_ms) VALUES (?, ?, ?, ?, ?)")
        .Bind(ask.response_id, ask.org_id, ask.env, ask.asked_json, ask.created_at_ms)
        .Run();
    return {};
  });
}

Result<std::optional<ResponseAsk>> SqliteStore::GetResponseAsk(const std::string& response_id) {
  return sqlite::WithConnection(*pool_, [&](Connection& c) -> Result<std::optional<ResponseAsk>> {
    static const std::string sql =
        std::string("SELECT ") + kResponseAskColumns + " FROM response_asks WHERE response_id = ?";
    return c.Prepare(sql).Bind(response_id).One(ReadResponseAsk);
  });
}

}  // namespace agentgate
