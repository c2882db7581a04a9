#include "runtime/runs/run_channel.hpp"

#include <gtest/gtest.h>
#include <boost/asio/co_spawn.hpp>
#include <boost/asio/detached.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/use_future.hpp>

#include <thread>

namespace agentgate {
namespace {

namespace asio = boost::asio;
using namespace std::chrono_literals;

RunEvent Event(std::int64_t seq, std::string type = "text.delta") {
  return RunEvent{seq, std::move(type), "{}"};
}

TEST(RunChannel, FollowersReadTheEventsAfterTheirLastAndTheBoundKeepsTheTerminalOne) {
  RunChannel channel(3);
  channel.Add(Event(1, "run.started"));
  channel.Add(Event(2));
  channel.Add(Event(3));  // past the bound: dropped
  EXPECT_FALSE(channel.Ended());
  channel.Add(Event(3, "run.completed"));
  EXPECT_TRUE(channel.Ended());
  const auto all = channel.After(0);
  ASSERT_EQ(all.size(), 3u);
  EXPECT_EQ(all.back().type, "run.completed");
  const auto rest = channel.After(2);
  ASSERT_EQ(rest.size(), 1u);
  EXPECT_EQ(rest[0].seq, 3);
  EXPECT_TRUE(channel.After(3).empty());
}

TEST(RunChannel, AWaitingFollowerWakesWhenAnEventArrivesFromAnotherThread) {
  RunChannel channel(100);
  asio::io_context io;
  auto waited = asio::co_spawn(io, channel.WaitBeyond(0, 10s), asio::use_future);
  std::thread adder([&] {
    std::this_thread::sleep_for(20ms);
    channel.Add(Event(1));
  });
  const auto started = std::chrono::steady_clock::now();
  io.run();
  adder.join();
  waited.get();
  EXPECT_LT(std::chrono::steady_clock::now() - started, 5s);  // woken, not timed out
  EXPECT_EQ(channel.After(0).size(), 1u);
}

TEST(RunChannel, AWaitEndsAtOnceWhenEventsAreThereAndAfterItsTimeOtherwise) {
  RunChannel channel(100);
  channel.Add(Event(1));
  asio::io_context io;
  auto at_once = asio::co_spawn(io, channel.WaitBeyond(0, 10s), asio::use_future);
  auto timed_out = asio::co_spawn(io, channel.WaitBeyond(1, 30ms), asio::use_future);
  io.run();
  at_once.get();
  timed_out.get();
}

TEST(RunChannel, AFollowerWaitingForTheEndIsWokenByTheTerminalEventAlone) {
  RunChannel channel(100);
  channel.Add(Event(1, "run.started"));
  asio::io_context io;
  // Events there already do not end a wait for the end.
  auto waited =
      asio::co_spawn(io, channel.WaitBeyond(0, 10s, /*until_end=*/true), asio::use_future);
  bool woken = false;
  asio::co_spawn(
      io,
      [&]() -> asio::awaitable<void> {
        co_await channel.WaitBeyond(1, 10s);  // a follower of every event, beside it
        woken = true;
      },
      asio::detached);
  io.run_for(30ms);
  channel.Add(Event(2));
  io.run_for(30ms);
  EXPECT_TRUE(woken);
  EXPECT_NE(waited.wait_for(0s), std::future_status::ready);
  const auto started = std::chrono::steady_clock::now();
  channel.Add(Event(3, "run.completed"));
  io.restart();
  io.run();
  waited.get();
  EXPECT_LT(std::chrono::steady_clock::now() - started, 5s);  // woken, not timed out
  // Framed where they are: each event after the given one, in order.
  std::vector<std::int64_t> seen;
  EXPECT_EQ(channel.ForEachAfter(1, [&](const RunEvent& e) { seen.push_back(e.seq); }), 2u);
  EXPECT_EQ(seen, (std::vector<std::int64_t>{2, 3}));
}

}  // namespace
}  // namespace agentgate
