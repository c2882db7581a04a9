#pragma once
// What a turn's commit writes, and in which order, once for both engines (ports/store.hpp,
// TurnCommit). An engine supplies each step's SQL as a TurnRowWriter, inside the transaction it
// opened, and batches or locks as it likes; WriteTurn decides which steps run and what refuses
// the turn.

#include "domain/error.hpp"
#include "ports/store_records.hpp"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace agentgate {

// An existing conversation as a turn appending to it finds it.
struct ConversationTail {
  std::int64_t active_day = 0;  // the UTC day it was last used on
  std::int64_t last_seq = 0;    // its last message's number (0: none)
};

class TurnRowWriter {
 public:
  // Whether the spend reservation still exists (a released one is gone).
  virtual bool ReservationLive(const std::string& reservation_id) = 0;
  // Gives the conversation's queue ticket up with the commit: kReleased when it was no longer
  // there (its server's lease lapsed), kSuperseded when a newer call interrupted its turn. The
  // conversation is free for its next turn once the turn commits, not when its server's later
  // clean-up runs.
  enum class Ticket { kTaken, kReleased, kSuperseded };
  virtual Ticket TakeTicket(std::int64_t ticket) = 0;
  // Nothing when the conversation is gone (purged as idle while the turn ran).
  virtual std::optional<ConversationTail> Tail(const std::string& conversation_id) = 0;
  // Completes the running claim `done` names; false when it was taken over since.
  virtual bool CompleteIdempotencyKey(const IdempotencyCompletion& done) = 0;
  virtual void InsertConversation(const ConversationRecord& conversation) = 0;
  virtual void RecordCall(const std::string& conversation_id, std::int64_t at_ms) = 0;
  virtual void InsertFact(const RememberedFact& fact) = 0;
  // Replaces the summary unless a newer one (further through the messages) is stored.
  virtual void SaveSummary(const std::string& conversation_id,
                           const ConversationSummary& summary) = 0;
  virtual void SetActiveDay(const std::string& conversation_id, std::int64_t day) = 0;
  virtual void InsertMessage(const std::string& conversation_id, std::int64_t seq,
                             const MessageRecord& message) = 0;
  virtual void InsertTurn(const TurnRecord& turn) = 0;
  // Writes the paused run: inserted (pause.create) or, from running, updated; false when it was
  // no longer running (canceled or interrupted meanwhile).
  virtual bool PauseRun(const RunPause& pause) = 0;

 protected:
  ~TurnRowWriter() = default;
};

// One turn's writes. A refusal (a released reservation or ticket, a taken-over key, a purged
// conversation)
// is found before anything is written; an engine's constraint error (a conversation created twice)
// propagates as its exception, and the engine undoes the turn's writes. The settlements are not
// applied here: SettleBatch applies a batch's at once (SettlementsOfWritten).
Result<void> WriteTurn(TurnRowWriter& rows, const TurnCommit& commit);

// The settlements of the turns of a batch that were written (results[i] holds).
std::vector<const SpendSettlement*> SettlementsOfWritten(
    const std::vector<const TurnCommit*>& commits, const std::vector<Result<void>>& results);
// The ended runs (TurnCommit::ended_run) of the turns of a batch that were written: an engine
// inserts them after the turns, outside any turn's savepoint (a savepoint journals every page it
// changes; a run's row has nothing to undo once its turn is written).
std::vector<const RunWrite*> EndedRunsOfWritten(const std::vector<const TurnCommit*>& commits,
                                                const std::vector<Result<void>>& results);

}  // namespace agentgate
