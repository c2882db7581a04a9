#include "adapters/store_common/turn_write.hpp"

#include "ports/clock.hpp"

namespace agentgate {

Result<void> WriteTurn(TurnRowWriter& rows, const TurnCommit& commit) {
  const TurnRecord& t = commit.turn;
  for (const auto& s : commit.settlements) {
    if (!rows.ReservationLive(s.reservation_id))
      return MakeError(ErrorCode::kConflict, "a spend reservation of this turn was released");
  }
  // A turn whose place on its conversation was released may have run beside another turn of it.
  if (commit.queue_ticket) {
    switch (rows.TakeTicket(*commit.queue_ticket)) {
      case TurnRowWriter::Ticket::kTaken:
        break;
      case TurnRowWriter::Ticket::kReleased:
        return MakeError(ErrorCode::kConflict, "the turn's place on its conversation was released");
      case TurnRowWriter::Ticket::kSuperseded:
        return SupersededError();
    }
  }
  // An existing conversation's last message and day of use, read before anything is written: a
  // conversation purged as idle while this turn ran (docs/decisions.md, retention) ends it as not
  // found, with nothing of it stored.
  ConversationTail tail;
  const bool appends = !commit.messages.empty() && !commit.new_conversation;
  if (appends) {
    auto found = rows.Tail(t.conversation_id);
    if (!found) {
      return MakeError(ErrorCode::kConversationNotFound,
                       "conversation '" + t.conversation_id + "' was deleted as idle");
    }
    tail = *found;
  }
  if (const auto& done = commit.idempotency) {
    if (!rows.CompleteIdempotencyKey(*done))
      return MakeError(ErrorCode::kConflict, "the idempotency claim was taken over");
  }
  if (const auto& pause = commit.pause) {
    if (!rows.PauseRun(*pause))
      return MakeError(ErrorCode::kConflict, "the run was no longer running");
  }
  if (const auto& fresh = commit.new_conversation) {
    rows.InsertConversation(*fresh);
    // Its first call counts in its call window like every later one.
    rows.RecordCall(fresh->id, fresh->created_at_ms);
  }
  for (const auto& f : commit.facts) rows.InsertFact(f);
  if (const auto& summary = commit.summary) rows.SaveSummary(t.conversation_id, *summary);
  if (!commit.messages.empty()) {
    // Written once a day at most: the index of days is not touched by every turn.
    const std::int64_t today = commit.messages.back().created_at_ms / kMsPerDay;
    if (appends && tail.active_day < today) rows.SetActiveDay(t.conversation_id, today);
    std::int64_t seq = tail.last_seq;
    for (const auto& m : commit.messages) rows.InsertMessage(t.conversation_id, ++seq, m);
  }
  rows.InsertTurn(t);
  return {};
}

std::vector<const SpendSettlement*> SettlementsOfWritten(
    const std::vector<const TurnCommit*>& commits, const std::vector<Result<void>>& results) {
  std::vector<const SpendSettlement*> settled;
  for (std::size_t i = 0; i < commits.size(); ++i) {
    if (!results[i]) continue;
    for (const auto& s : commits[i]->settlements) settled.push_back(&s);
  }
  return settled;
}

std::vector<const RunWrite*> EndedRunsOfWritten(const std::vector<const TurnCommit*>& commits,
                                                const std::vector<Result<void>>& results) {
  std::vector<const RunWrite*> ended;
  for (std::size_t i = 0; i < commits.size(); ++i) {
    if (results[i] && commits[i]->ended_run) ended.push_back(&*commits[i]->ended_run);
  }
  return ended;
}

}  // namespace agentgate
