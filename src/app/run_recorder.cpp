#include "app/run_recorder.hpp"

#include <boost/asio/as_tuple.hpp>
#include <boost/asio/co_spawn.hpp>
#include <boost/asio/detached.hpp>
#include <boost/asio/use_awaitable.hpp>

namespace agentgate {

namespace asio = boost::asio;

RunRecorder::RunRecorder(StoreRunner& store, std::shared_ptr<RunChannel> channel,
                         std::string run_id, std::size_t max_events, asio::any_io_executor executor)
    : store_(store),
      channel_(std::move(channel)),
      run_id_(std::move(run_id)),
      max_events_(max_events),
      executor_(std::move(executor)),
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
  while (!unwritten_.empty()) {
    std::vector<RunEvent> batch = std::move(unwritten_);
    unwritten_.clear();
    const auto written =
        co_await store_.Run([&](Store& s) { return s.AppendRunEvents(run_id_, batch); });
    if (!written) {
      // Kept for the run's end, which writes them with its outcome.
      batch.insert(batch.end(), std::make_move_iterator(unwritten_.begin()),
                   std::make_move_iterator(unwritten_.end()));
      unwritten_ = std::move(batch);
      break;
    }
  }
  writing_ = false;
  written_.cancel();
}

asio::awaitable<Result<bool>> RunRecorder::Finish(const RunRecord& ended, RunEvent terminal) {
  while (writing_) {
    written_.expires_at(asio::steady_timer::time_point::max());
    co_await written_.async_wait(asio::as_tuple(asio::use_awaitable));
  }
  terminal.seq = ++last_seq_;
  channel_->Add(terminal);
  unwritten_.push_back(std::move(terminal));
  const std::vector<RunEvent> last = std::move(unwritten_);
  unwritten_.clear();
  co_return co_await store_.Run([&](Store& s) { return s.FinishRun(ended, last); });
}

}  // namespace agentgate
