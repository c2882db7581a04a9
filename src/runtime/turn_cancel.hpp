#pragma once
// Lets whoever started a turn end it early from any thread (an MCP client's cancellation, or its
// connection closing): the turn then stops as at its hard cap, stores nothing and releases what
// it holds (docs/cancellation.md).

#include <boost/asio/any_io_executor.hpp>

#include <functional>
#include <mutex>
#include <utility>

namespace agentgate {

class TurnCancel {
 public:
  explicit TurnCancel(boost::asio::any_io_executor executor) : executor_(std::move(executor)) {}
  TurnCancel(const TurnCancel&) = delete;
  TurnCancel& operator=(const TurnCancel&) = delete;

  void Cancel();  // any thread, any number of times
  // `callback` runs once, on the executor given at construction, when Cancel() is called (at once
  // if it already was). A later call replaces an earlier callback that has not run.
  void OnCancel(std::function<void()> callback);

 private:
  boost::asio::any_io_executor executor_;
  std::mutex mutex_;
  bool canceled_ = false;  // under mutex_
  std::function<void()> on_cancel_;
};

}  // namespace agentgate
