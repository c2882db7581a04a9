// The Conversations API's writes and reads (ports/store.hpp, ConversationStore): a conversation's
// items are its messages. Each write that changes its history locks the conversation's row and
// checks, in its own transaction, that no turn is queued or running on it.
#include "adapters/store_common/row_readers.hpp"
#include "adapters/store_postgres/postgres_store.hpp"
#include "ports/clock.hpp"

#include <limits>

namespace agentgate {

using pg::Connection;
using pg::P;

namespace {

Error Busy(const std::string& conversation_id) {
  return MakeError(ErrorCode::kConversationBusy,
                   "conversation '" + conversation_id + "' has a turn running or queued");
}

// Inside the caller's transaction: whether the conversation exists (its row then locked until the
// transaction ends, so two appends number their items one after the other), and is free.
Result<bool> LockedAndFree(Connection& c, const std::string& conversation_id, std::int64_t now_ms) {
  const auto found =
      c.Exec("SELECT 1 FROM conversations WHERE id = $1 FOR UPDATE", {P(conversation_id)});
  if (found.empty()) return false;
  const bool busy = c.Exec(
                         "SELECT EXISTS (SELECT 1 FROM runs WHERE conversation_id = $1 AND status "
                         "IN ('queued', 'running')) OR EXISTS (SELECT 1 FROM "
                         "conversation_turn_queue WHERE conversation_id = $1 AND expires_at_ms > "
                         "$2)",
                         {P(conversation_id), P(now_ms)})
                        .Text(0, 0) == "t";
  if (busy) return Busy(conversation_id);
  return true;
}

}  // namespace

Result<std::vector<MessageRecord>> PostgresStore::ConversationItems(
    const std::string& conversation_id, const ItemPage& page) {
  return pg::WithConnection(*pool_, [&](Connection& c) -> Result<std::vector<MessageRecord>> {
    static const std::string ascending =
        std::string("SELECT ") + kMessageColumns +
        " FROM messages WHERE conversation_id = $1 AND seq > $2 ORDER BY seq LIMIT $3";
    static const std::string descending =
        std::string("SELECT ") + kMessageColumns +
        " FROM messages WHERE conversation_id = $1 AND seq < $2 ORDER BY seq DESC LIMIT $3";
    const std::int64_t after = page.after_seq.value_or(
        page.descending ? std::numeric_limits<std::int64_t>::max() : std::int64_t{0});
    return c
        .Exec(page.descending ? descending : ascending,
              {P(conversation_id), P(after), P(static_cast<std::int64_t>(page.limit))})
        .All(ReadMessage);
  });
}

Result<std::vector<MessageRecord>> PostgresStore::AppendConversationItems(
    const std::string& conversation_id, const std::vector<MessageRecord>& items,
    std::int64_t now_ms) {
  return pg::WithConnection(*pool_, [&](Connection& c) -> Result<std::vector<MessageRecord>> {
    pg::Transaction tx(c);
    AG_TRY(const bool exists, LockedAndFree(c, conversation_id, now_ms));
    if (!exists) {
      return MakeError(ErrorCode::kConversationNotFound,
                       "conversation '" + conversation_id + "' not found");
    }
    std::int64_t seq =
        c.Exec("SELECT COALESCE(MAX(seq), 0) FROM messages WHERE conversation_id = $1",
               {P(conversation_id)})
            .Int(0, 0);
    std::vector<MessageRecord> written;
    for (const auto& item : items) {
      MessageRecord m = item;
      m.seq = ++seq;
      c.Exec(
          "INSERT INTO messages(conversation_id, seq, role, content, created_at_ms, turn_id) "
          "VALUES ($1, $2, $3, $4, $5, $6)",
          {P(conversation_id), P(m.seq), P(m.role), P(m.content), P(m.created_at_ms),
           P(m.turn_id)});
      written.push_back(std::move(m));
    }
    c.Exec("UPDATE conversations SET active_day = $1 WHERE id = $2",
           {P(now_ms / kMsPerDay), P(conversation_id)});
    tx.Commit();
    return written;
  });
}

Result<bool> PostgresStore::DeleteConversationItem(const std::string& conversation_id,
                                                   std::int64_t seq, std::int64_t now_ms) {
  return pg::WithConnection(*pool_, [&](Connection& c) -> Result<bool> {
    pg::Transaction tx(c);
    AG_TRY(const bool exists, LockedAndFree(c, conversation_id, now_ms));
    if (!exists) return false;
    const bool deleted = c.Exec("DELETE FROM messages WHERE conversation_id = $1 AND seq = $2",
                                {P(conversation_id), P(seq)})
                             .Affected() == 1;
    tx.Commit();
    return deleted;
  });
}

Result<bool> PostgresStore::DeleteConversation(const std::string& conversation_id,
                                               std::int64_t now_ms) {
  return pg::WithConnection(*pool_, [&](Connection& c) -> Result<bool> {
    pg::Transaction tx(c);
    AG_TRY(const bool exists, LockedAndFree(c, conversation_id, now_ms));
    if (!exists) return false;
    for (const char* sql :
         {"DELETE FROM messages WHERE conversation_id = $1",
          "DELETE FROM turns WHERE conversation_id = $1 AND conversation_id <> ''",
          "DELETE FROM conversation_calls WHERE conversation_id = $1",
          "DELETE FROM conversation_turn_queue WHERE conversation_id = $1",
          "DELETE FROM conversations WHERE id = $1"}) {
      c.Exec(sql, {P(conversation_id)});
    }
    tx.Commit();
    return true;
  });
}

Result<void> PostgresStore::SetConversationMetadata(const std::string& conversation_id,
                                                    const std::string& metadata_json) {
  return pg::WithConnection(*pool_, [&](Connection& c) -> Result<void> {
    c.Exec("UPDATE conversations SET metadata = $1 WHERE id = $2",
           {P(metadata_json), P(conversation_id)});
    return {};
  });
}

Result<void> PostgresStore::BindConversation(const std::string& conversation_id,
                                             const std::string& agent_id,
                                             const std::string& instance_id) {
  return pg::WithConnection(*pool_, [&](Connection& c) -> Result<void> {
    c.Exec(
        "UPDATE conversations SET agent_id = $1, instance_id = $2 WHERE id = $3 AND agent_id = ''",
        {P(agent_id), P(instance_id), P(conversation_id)});
    return {};
  });
}

Result<void> PostgresStore::PutResponseAsk(const ResponseAsk& ask) {
  return pg::WithConnection(*pool_, [&](Connection& c) -> Result<void> {
    c.Exec(
        "INSERT INTO response_asks(response_id, org_id, env, asked_json, created_at_ms) VALUES "
        "($1, $2, $3, $4, $5) ON CONFLICT (response_id) DO UPDATE SET asked_json = "
        "EXCLUDED.asked_json",
        {P(ask.response_id), P(ask.org_id), P(ask.env), P(ask.asked_json), P(ask.created_at_ms)});
    return {};
  });
}

Result<std::optional<ResponseAsk>> PostgresStore::GetResponseAsk(const std::string& response_id) {
  return pg::WithConnection(*pool_, [&](Connection& c) -> Result<std::optional<ResponseAsk>> {
    static const std::string sql =
        std::string("SELECT ") + kResponseAskColumns + " FROM response_asks WHERE response_id = $1";
    return c.Exec(sql, {P(response_id)}).One(ReadResponseAsk);
  });
}

}  // namespace agentgate
