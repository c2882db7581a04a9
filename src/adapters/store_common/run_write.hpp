#pragma once
// What each run write changes, and when it is refused, once for both engines (docs/runs.md, "A
// run's states"). The decisions are the run's state machine's (domain/runs/run_state); an engine
// supplies each step's SQL as a RunRowWriter, inside the transaction it opened, and does its own
// locking (the rows these functions take as "locked" were read so, where the engine locks rows).

#include "adapters/store_common/run_event_log.hpp"
#include "domain/error.hpp"
#include "ports/store_records.hpp"

#include <cstdint>
#include <iterator>
#include <optional>
#include <string>
#include <vector>

namespace agentgate {

class RunRowWriter {
 public:
  // The organization's runs waiting in the store: queued, or paused for a decision.
  virtual std::int64_t WaitingRunsOf(const std::string& org_id) = 0;
  // Completes the running claim `done` names; false when it was taken over since.
  virtual bool CompleteIdempotencyKey(const IdempotencyCompletion& done) = 0;
  // The run as it starts: queued with its request, or running on its server. A run already there
  // (its turn's pause wrote it first) is left as it is.
  virtual void InsertRun(const RunRecord& run) = 0;
  // The run as it ended, its events folded into its row (run_event_log).
  virtual void InsertEndedRun(const RunRecord& run, const std::string& folded_events) = 0;
  virtual void InsertEvents(const std::string& run_id, const std::vector<RunEvent>& events) = 0;
  // The run's state, its row locked to the transaction's end where the engine locks rows; none
  // for no such run.
  virtual std::optional<RunStatus> StatusForUpdate(const std::string& run_id) = 0;
  virtual std::int64_t LastEventSeq(const std::string& run_id) = 0;
  // The run's end as `run` has it (status, result, error, end), and what it held to go on gone;
  // its last events folded into its row (run_event_log), after those in rows of their own.
  virtual void UpdateEnd(const RunRecord& run, const std::string& folded_events) = 0;
  // Marks a running run for its server to cancel.
  virtual void AskCancel(const std::string& run_id) = 0;
  // A delivery of the run's end (`type`: run.completed, ...) per webhook of its environment that
  // wants it when the run notifies (kEnqueueRunWebhooks), and per push config of its own when it
  // is of a conversation (kEnqueueTaskWebhooks).
  virtual void EnqueueEndWebhooks(const RunRecord& run, const std::string& type) = 0;

 protected:
  ~RunRowWriter() = default;
};

// One of RunWrite's writes, as its kind says; false for a refused one (nothing written).
Result<bool> WriteRun(RunRowWriter& rows, const RunWrite& write);
// A run never written before, as it ended, with its events (RunWrite::kCreateEnded, and a turn's
// TurnCommit::ended_run): one row, and its end's webhook deliveries.
void InsertEndedRun(RunRowWriter& rows, const RunWrite& ended);
// A cancel of `run`, read locked: a queued or paused run ends canceled at once (`canceled` its
// terminal event), a running one is marked for its server, an ended one is left. `run` as it
// stands after.
void CancelLockedRun(RunRowWriter& rows, RunRecord& run, std::int64_t now_ms,
                     const RunEvent& canceled);
// Paused runs whose expiry passed, read locked: each ends failed, `expired` its terminal event.
// How many ended.
std::int64_t ExpireLockedRuns(RunRowWriter& rows, std::vector<RunRecord>& runs, std::int64_t now_ms,
                              const RunEvent& expired);
// Running runs of servers whose lease lapsed, read locked: each ends failed, interrupted, never
// run again.
void InterruptLockedRuns(RunRowWriter& rows, std::vector<RunRecord>& runs, std::int64_t now_ms);

// The columns of a run's row that its folded events refer to, as read for ListRunEvents.
struct FoldedEventsRow {
  std::string events;
  std::string result;
  std::string error;
  std::string conversation_id;
  std::string agent_id;
};
// The folded events of `row` after `after_seq`, at most `limit`.
std::vector<RunEvent> UnpackFoldedEvents(const std::string& run_id, const FoldedEventsRow& row,
                                         std::int64_t after_seq, int limit);
// A run's events after `after_seq`, at most `limit`: first its event rows (what was written while
// it ran), then those folded into its row at its end (all of them, for a run written once, at its
// end). `read_rows(after_seq, limit)` reads its event rows, in order.
template <class ReadRows>
std::vector<RunEvent> ReadRunEvents(const std::string& run_id,
                                    const std::optional<FoldedEventsRow>& row,
                                    std::int64_t after_seq, int limit, ReadRows&& read_rows) {
  if (!row || row->events.empty()) return read_rows(after_seq, limit);
  std::vector<RunEvent> events;
  // Every row comes before the log's first event: none to read from there on.
  if (FirstFoldedSeq(row->events) > after_seq + 1) events = read_rows(after_seq, limit);
  if (static_cast<int>(events.size()) >= limit) return events;
  auto folded = UnpackFoldedEvents(run_id, *row, events.empty() ? after_seq : events.back().seq,
                                   limit - static_cast<int>(events.size()));
  events.insert(events.end(), std::make_move_iterator(folded.begin()),
                std::make_move_iterator(folded.end()));
  return events;
}

}  // namespace agentgate
