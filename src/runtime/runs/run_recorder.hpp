#pragma once
// A run's events on their way to its followers (docs/runs.md): numbered from 1, handed at once to
// the run's channel (followers on this server), which keeps them, and written from it to the store
// behind the run, one write in flight at a time, so a run never waits on the store for an event.
// An event is written within kWriteBehind of happening (those that came meanwhile with it), and
// the run's end writes what is left, its terminal event and its outcome in one transaction: a
// quick run writes its events once.
// The writes go through the store's group commit, batched with turns' commits and other runs'.
//
// A run not in the store yet (a short streamed run, docs/runs.md) is written with its first
// events' write, as a running run, or, when it ends first, once: as it ended, its events with it.
// Written so, its later events wait for its end: no other server follows it.
//
// Bounded: past `max_events` a run's events are dropped, all but its terminal one.

#include "runtime/runs/run_channel.hpp"
#include "runtime/runs/run_end_in_commit.hpp"
#include "runtime/runs/turn_observer.hpp"
#include "runtime/turn_committer.hpp"

#include <boost/asio/any_io_executor.hpp>
#include <boost/asio/steady_timer.hpp>

#include <chrono>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace agentgate {

class RunRecorder final : public TurnObserver, public RunEndInCommit {
 public:
  // Lives on `executor`, the run's event loop: every call is made there. `after_seq`: the run's
  // last event so far (a run going on from a pause numbers its events after it). `unwritten`:
  // the run, running, when the store does not have it yet. An event waits up to `write_behind`
  // for others to share its write.
  RunRecorder(TurnCommitter& writer, std::shared_ptr<RunChannel> channel, std::string run_id,
              std::size_t max_events, boost::asio::any_io_executor executor,
              std::int64_t after_seq = 0, std::shared_ptr<const RunRecord> unwritten = nullptr,
              std::chrono::milliseconds write_behind = std::chrono::milliseconds(100));

  void Report(RunEvent event) override;
  // Its run.started, its first event.
  void ReportStarted(std::string_view conversation_id, std::string_view agent_id);
  bool FollowsText() const override { return true; }  // a run's followers watch its reply form
  std::string_view RunId() const override { return run_id_; }
  bool RunStored() const override { return !unwritten_run_; }
  // An unwritten run with no write on its way ends in its turn's commit (docs/runs.md): its
  // terminal event goes to its followers once that commit is written.
  std::optional<RunWrite> EndWithTurn(std::string result_json, std::int64_t now_ms) override;
  void TurnCommitted(bool written) override;
  // It ended so, completed: only Drain is left, not Finish.
  bool ended_with_turn() const { return end_state_ == EndState::kEndedWithTurn; }
  // Returns once no write-behind refers to the recorder: every end awaits it before the recorder
  // goes (Finish and Pause do; a run ended in its turn's commit awaits it alone).
  boost::asio::awaitable<void> Drain();
  // Ends the run as `ended` says with `terminal` as its last event, once the write in flight is
  // done: false when the run was no longer running (its server's lease had lapsed).
  boost::asio::awaitable<Result<bool>> Finish(RunRecord ended, RunEvent terminal);
  // The run paused for approval (its turn's commit wrote it so): `paused` is its last event for
  // now, written with what is left.
  boost::asio::awaitable<Result<bool>> Pause(RunEvent paused);

  std::int64_t last_seq() const { return last_seq_; }

 private:
  // Writes what came during the first wait, then waits and writes until nothing more comes.
  boost::asio::awaitable<void> WriteBehind();
  void WriteBehindEnded();  // wakes a Drain
  // A write-behind's wait ends now (what is left is the end's to write).
  void CutWaitShort();
  // The run's end has begun (Drain, or its end in its turn's commit): no write-behind writes more.
  void BeginEnd();
  // Waits for the write in flight, then writes what is left with `last` as `kind` says.
  boost::asio::awaitable<Result<bool>> End(RunWrite::Kind kind, RunRecord run, RunEvent last);

  TurnCommitter& writer_;
  const std::shared_ptr<RunChannel> channel_;
  const std::string run_id_;
  const std::size_t max_events_;
  boost::asio::any_io_executor executor_;
  std::shared_ptr<const RunRecord> unwritten_run_;  // until its create is written
  const std::chrono::milliseconds write_behind_;
  std::int64_t last_seq_ = 0;
  std::int64_t written_seq_ = 0;  // the channel's events up to this one are in the store
  bool events_at_end_ = false;    // a run created late: no write-behind after its create

  // Where the write-behind is: none; Report's first timer pending; waiting for more events to
  // share a write; or a write with the store.
  enum class WriteBehindState { kIdle, kFirstWait, kGathering, kWriting };
  // Where the run is in its end: running; its end begun (what is left is the end's to write);
  // ending in its turn's commit, its terminal event held until that commit's outcome; or ended so.
  enum class EndState { kRunning, kEnding, kEndingWithTurn, kEndedWithTurn };
  WriteBehindState write_behind_state_ = WriteBehindState::kIdle;
  EndState end_state_ = EndState::kRunning;
  std::optional<RunEvent> ending_;  // kEndingWithTurn: the terminal event the commit will write
  boost::asio::steady_timer gathering_;  // the wait before a write; Finish cuts it short
  boost::asio::steady_timer written_;    // canceled when a write ends: Finish waits on it
};

}  // namespace agentgate
