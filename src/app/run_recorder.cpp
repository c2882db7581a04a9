#include "app/run_recorder.hpp"

#include <boost/asio/as_tuple.hpp>
#include <boost/asio/co_spawn.hpp>
#include <boost/asio/detached.hpp>
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
      gathering_(executor_),
      written_(executor_) {}

void RunRecorder::Report(RunEvent event) {
  // Room is kept for the terminal event.
  if (static_cast<std::size_t>(last_seq_) + 1 >= max_events_) return;
  event.seq = ++last_seq_;
  channel_->Add(event);
  unwritten_.push_back(std::move(event));
  if (!writing_) {
    writing_ = true;
    asio::co_spawn(executor_, WriteBehind(), asio::detached);
  }
}

asio::awaitable<void> RunRecorder::WriteBehind() {
  while (!finishing_) {
    gathering_.expires_after(write_behind_);
    co_await gathering_.async_wait(asio::as_tuple(asio::use_awaitable));
    if (finishing_ || unwritten_.empty()) break;  // the end writes them
    // A run not in the store yet is created with them.
    const bool create = unwritten_run_ != nullptr;
    RunWrite append{create ? RunWrite::Kind::kCreate : RunWrite::Kind::kAppend,
                    create ? *unwritten_run_ : RunRecord{}, std::move(unwritten_), 0, std::nullopt};
    append.run.id = run_id_;
    unwritten_.clear();
    const auto written = co_await writer_.Write(append);
    if (written && create) unwritten_run_.reset();
    if (!written) {
      // Kept for the run's end, which writes them with its outcome.
      append.events.insert(append.events.end(), std::make_move_iterator(unwritten_.begin()),
                           std::make_move_iterator(unwritten_.end()));
      unwritten_ = std::move(append.events);
      break;
    }
  }
  writing_ = false;
  written_.cancel();
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
  finishing_ = true;
  gathering_.cancel();
  while (writing_) {
    written_.expires_at(asio::steady_timer::time_point::max());
    co_await written_.async_wait(asio::as_tuple(asio::use_awaitable));
  }
  last.seq = ++last_seq_;
  channel_->Add(last);
  unwritten_.push_back(std::move(last));
  // A run ended before it was written is written once (a pause's commit has written it).
  if (kind == RunWrite::Kind::kFinish && unwritten_run_) kind = RunWrite::Kind::kCreateEnded;
  const RunWrite write{kind, std::move(run), std::move(unwritten_), 0, std::nullopt};
  unwritten_.clear();
  co_return co_await writer_.Write(write);
}

}  // namespace agentgate
