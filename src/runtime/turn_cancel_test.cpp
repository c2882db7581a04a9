#include "runtime/turn_cancel.hpp"

#include <gtest/gtest.h>
#include <boost/asio/io_context.hpp>

#include <thread>

namespace agentgate {

TEST(TurnCancel, TheCallbackRunsOnceOnTheTurnsExecutorWhenCanceled) {
  boost::asio::io_context loop;
  TurnCancel cancel(loop.get_executor());
  int runs = 0;
  cancel.OnCancel([&] { ++runs; });
  loop.poll();
  EXPECT_EQ(runs, 0);

  std::thread other([&] {
    cancel.Cancel();
    cancel.Cancel();
  });
  other.join();
  EXPECT_EQ(runs, 0);  // posted to the loop, not run on the canceling thread
  loop.restart();
  loop.poll();
  EXPECT_EQ(runs, 1);
}

TEST(TurnCancel, ACallbackSetAfterTheCancellationRunsAtOnce) {
  boost::asio::io_context loop;
  TurnCancel cancel(loop.get_executor());
  cancel.Cancel();
  int runs = 0;
  cancel.OnCancel([&] { ++runs; });
  loop.poll();
  EXPECT_EQ(runs, 1);
}

TEST(TurnCancel, ALaterCallbackReplacesOneThatHasNotRun) {
  boost::asio::io_context loop;
  TurnCancel cancel(loop.get_executor());
  int first = 0;
  int second = 0;
  cancel.OnCancel([&] { ++first; });
  cancel.OnCancel([&] { ++second; });
  cancel.Cancel();
  loop.poll();
  EXPECT_EQ(first, 0);
  EXPECT_EQ(second, 1);
}

}  // namespace agentgate
