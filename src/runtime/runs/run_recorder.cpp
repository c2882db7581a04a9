#include "runtime/runs/run_recorder.hpp"

#include <boost/asio/as_tuple.hpp>
#include <boost/asio/co_spawn.hpp>
#include <boost/asio/detached.hpp>
#include <boost/asio/error.hpp>
#include <boost/asio/use_awaitable.hpp>

namespace agentgate {

namespace asio = boost::asio;

RunRecorder::RunRecorder(TurnCommitter& writer, std::shared_ptr<RunChannel> channel,
                         std::string run_id, std::size_t max_events, asio::any_io_executor executor,
                         std::int64_t after_seq, std::shared_ptr<const RunRecord> unwritten,
                         std::chrono::milliseconds write_behind)
    : writer_(writer),
      channel_(std::move(channel)),
      run_id_(std::move(run_id)),
      max_events_(max_events),
      executor_(std::move(executor)),
      unwritten_run_(std::move(unwritten)),
      write_behind_(write_behind),
      last_seq_(after_seq),
      written_seq_(after_seq),
      gathering_(executor_),
      written_(executor_) {}

void RunRecorder::Report(RunEvent event) {
  // Room is kept for the terminal event.
  if (static_cast<std::size_t>(last_seq_) + 1 >= max_events_) return;
  event.seq = ++last_seq_;
  channel_->Add(std::move(event));
  if (write_behind_state_ != WriteBehindState::kIdle || events_at_end_) return;
  // The first wait is a plain timer: a quick run ends before it, and needs no coroutine for it.
  write_behind_state_ = WriteBehindState::kFirstWait;
  gathering_.expires_after(write_behind_);
  gathering_.async_wait([this](boost::system::error_code ec) {
    // Cut short before it expired (CutWaitShort): the recorder may be gone already.
    if (ec == asio::error::operation_aborted) return;
    if (end_state_ != EndState::kRunning) {
      WriteBehindEnded();
      return;
    }
    write_behind_state_ = WriteBehindState::kGathering;
    asio::co_spawn(executor_, WriteBehind(), asio::detached);
  });
}

void RunRecorder::ReportStarted(std::string_view conversation_id, std::string_view agent_id) {
  Report(run_events::Started(run_id_, conversation_id, agent_id));
}

void RunRecorder::CutWaitShort() {
  if (write_behind_state_ != WriteBehindState::kFirstWait) {
    gathering_.cancel();  // a write-behind's later wait: it ends on its own, and says so
    return;
  }
  // The first wait, canceled before it expired, writes nothing: the run is done with it at once,
  // with no wait for its handler (a quick run's end does not suspend). Expired already, its
  // handler is on its way and ends the write-behind itself.
  if (gathering_.cancel() > 0) write_behind_state_ = WriteBehindState::kIdle;
}

void RunRecorder::WriteBehindEnded() {
  write_behind_state_ = WriteBehindState::kIdle;
  written_.cancel();
}

void RunRecorder::BeginEnd() {
  // A write-behind gathering meanwhile stops without writing: the end writes what is left.
  if (end_state_ == EndState::kRunning) end_state_ = EndState::kEnding;
  CutWaitShort();
}

asio::awaitable<void> RunRecorder::WriteBehind() {
  // Its first wait was Report's; once ending, the end writes what is left.
  while (end_state_ == EndState::kRunning) {
    auto events = channel_->After(written_seq_);
    if (events.empty()) break;
    // A run not in the store yet is created with them.
    const bool create = unwritten_run_ != nullptr;
    RunWrite append{create ? RunWrite::Kind::kCreate : RunWrite::Kind::kAppend,
                    create ? *unwritten_run_ : RunRecord{}, std::move(events), 0, std::nullopt};
    append.run.id = run_id_;
    const std::int64_t through = append.events.back().seq;
    write_behind_state_ = WriteBehindState::kWriting;
    const auto written = co_await writer_.Write(append);
    write_behind_state_ = WriteBehindState::kGathering;
    if (!written) break;  // the run's end writes them with its outcome
    written_seq_ = through;
    if (create) {
      // A run written late is one only this server follows: its row is in the store now, for
      // `interrupted` to hold, and its later events wait for its end's write.
      unwritten_run_.reset();
      events_at_end_ = true;
      break;
    }
    gathering_.expires_after(write_behind_);
    co_await gathering_.async_wait(asio::as_tuple(asio::use_awaitable));
  }
  WriteBehindEnded();
}

std::optional<RunWrite> RunRecorder::EndWithTurn(std::string result_json, std::int64_t now_ms) {
  // A create on its way would race the ended row's insert: the run then ends on its own.
  if (!unwritten_run_ || write_behind_state_ == WriteBehindState::kWriting) return std::nullopt;
  BeginEnd();
  RunWrite ended{RunWrite::Kind::kCreateEnded, *unwritten_run_, {}, 0, std::nullopt};
  ended.run.status = RunStatus::kCompleted;
  ended.run.ended_at_ms = now_ms;
  ended.run.result_json = std::move(result_json);
  RunEvent terminal = run_events::Completed(ended.run.result_json);
  terminal.seq = last_seq_ + 1;
  ended.events = channel_->After(written_seq_);
  ended.events.push_back(terminal);
  ending_ = std::move(terminal);  // its followers get it once the commit is written
  end_state_ = EndState::kEndingWithTurn;
  return ended;
}

void RunRecorder::TurnCommitted(bool written) {
  if (end_state_ != EndState::kEndingWithTurn) return;
  RunEvent terminal = std::move(*ending_);
  ending_.reset();
  // Not written: its events are still to be written, by the run's own end (Finish, which follows
  // at once).
  if (!written) {
    end_state_ = EndState::kEnding;
    return;
  }
  unwritten_run_.reset();
  end_state_ = EndState::kEndedWithTurn;
  last_seq_ = written_seq_ = terminal.seq;
  channel_->Add(std::move(terminal));
}

asio::awaitable<void> RunRecorder::Drain() {
  BeginEnd();
  while (write_behind_state_ != WriteBehindState::kIdle) {
    written_.expires_at(asio::steady_timer::time_point::max());
    co_await written_.async_wait(asio::as_tuple(asio::use_awaitable));
  }
}

asio::awaitable<Result<bool>> RunRecorder::Finish(RunRecord ended, RunEvent terminal) {
  co_return co_await End(RunWrite::Kind::kFinish, std::move(ended), std::move(terminal));
}

asio::awaitable<Result<bool>> RunRecorder::Pause(RunEvent paused) {
  RunRecord run;
  run.id = run_id_;
  co_return co_await End(RunWrite::Kind::kAppend, std::move(run), std::move(paused));
}

asio::awaitable<Result<bool>> RunRecorder::End(RunWrite::Kind kind, RunRecord run, RunEvent last) {
  co_await Drain();
  last.seq = ++last_seq_;
  channel_->Add(std::move(last));
  // A run ended before it was written is written once (a pause's commit has written it).
  if (kind == RunWrite::Kind::kFinish && unwritten_run_) {
    const RunWrite once{RunWrite::Kind::kCreateEnded, std::move(run), channel_->After(written_seq_),
                        0, std::nullopt};
    co_return co_await writer_.Write(once);
  }
  const RunWrite write{kind, std::move(run), channel_->After(written_seq_), 0, std::nullopt};
  co_return co_await writer_.Write(write);
}

}  // namespace agentgate
