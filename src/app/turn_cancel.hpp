#pragma once
// Lets whoever started a turn end it early from any thread (an MCP client's cancellation, or its
// connection closing): the turn then stops as at its hard cap, stores nothing and releases what
// it holds (docs/cancellation.md).

#include <boost/asio/any_io_executor.hpp>
#include <boost/asio/awaitable.hpp>

#include <memory>

namespace agentgate {

class TurnCancel {
 public:
  explicit TurnCancel(boost::asio::any_io_executor executor);
  ~TurnCancel();

  void Cancel();                            // any thread, any number of times
  boost::asio::awaitable<void> Canceled();  // completes once Cancel() was called
  bool canceled() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace agentgate
