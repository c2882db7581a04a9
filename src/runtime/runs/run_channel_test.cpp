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

// A running run's channel ends at its pause (a resumed run gets its own); a watched run's goes on
// to the run's end.
TEST(RunChannel, APauseEndsARunningRunsChannelButNotAWatchedRunsOne) {
  RunChannel running(100);
  RunChannel watched(100, 0, RunChannel::EndsAt::kEnd);
  for (auto* channel : {&running, &watched}) {
    channel->Add(Event(1, "run.started"));
    channel->Add(Event(2, "run.requires_action"));
  }
  EXPECT_TRUE(running.Ended());
  EXPECT_FALSE(watched.Ended());
  watched.Add(Event(3, "tool.started"));
  watched.Add(Event(4, "run.completed"));
  EXPECT_TRUE(watched.Ended());
  EXPECT_EQ(watched.After(2).size(), 2u);
  // A resumed run's channel says where it starts: its followers behind it read the store.
  EXPECT_EQ(RunChannel(100, 7).starts_after(), 7);
  EXPECT_EQ(running.starts_after(), 0);
}

// Woken without an event when what its events come from changes: a follower that read the count
// before it looked misses no wake-up, even one that came before it waited.
TEST(RunChannel, AWakeEndsEveryWaitAndOneThatCameBeforeTheWaitToo) {
  RunChannel channel(100, 0, RunChannel::EndsAt::kEnd);
  asio::io_context io;
  auto waiting = asio::co_spawn(io, channel.WaitBeyond(0, 10s), asio::use_future);
  io.run_for(20ms);
  EXPECT_NE(waiting.wait_for(0s), std::future_status::ready);
  const std::uint64_t seen = channel.Wakes();
  channel.Wake();
  const auto started = std::chrono::steady_clock::now();
  io.restart();
  io.run();
  waiting.get();
  EXPECT_LT(std::chrono::steady_clock::now() - started, 5s);
  EXPECT_TRUE(channel.After(0).empty());
  // A wait given the count from before that wake returns at once.
  auto late = asio::co_spawn(io, channel.WaitBeyond(0, 10s, false, seen), asio::use_future);
  io.restart();
  io.run_for(100ms);
  EXPECT_EQ(late.wait_for(0s), std::future_status::ready);
}

TEST(RunChannel, AStopEmittedOnItsSlotEndsAWait) {
  RunChannel channel(100);
  asio::io_context io;
  asio::cancellation_signal stop;
  auto waiting = asio::co_spawn(io, channel.WaitBeyond(0, 10s, false, std::nullopt, stop.slot()),
                                asio::use_future);
  io.run_for(20ms);
  EXPECT_NE(waiting.wait_for(0s), std::future_status::ready);
  stop.emit(asio::cancellation_type::terminal);
  io.restart();
  io.run_for(1s);
  EXPECT_EQ(waiting.wait_for(0s), std::future_status::ready);
  // A wait that ended on its own leaves nothing in the slot: a stop emitted after its timer is
  // gone touches nothing (the sanitizer pass would see it).
  auto timed_out = asio::co_spawn(io, channel.WaitBeyond(0, 5ms, false, std::nullopt, stop.slot()),
                                  asio::use_future);
  io.restart();
  io.run();
  timed_out.get();
  stop.emit(asio::cancellation_type::terminal);
}

}  // namespace
}  // namespace agentgate
