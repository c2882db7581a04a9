#include "runtime/conversation_queue.hpp"

#include <gtest/gtest.h>
#include <boost/asio/co_spawn.hpp>
#include <boost/asio/detached.hpp>
#include <boost/asio/io_context.hpp>

namespace agentgate {

TEST(ConversationQueue, SupersedeEndsTheHolderAndEveryWaiterButNoLaterOne) {
  boost::asio::io_context loop;
  ConversationQueue queue;
  int holder_ended = 0, waiter_ended = 0, later_ended = 0;
  auto holder = std::make_shared<TurnCancel>(loop.get_executor());
  holder->OnCancel([&] { ++holder_ended; });
  auto waiter = std::make_shared<TurnCancel>(loop.get_executor());
  waiter->OnCancel([&] { ++waiter_ended; });
  auto later = std::make_shared<TurnCancel>(loop.get_executor());
  later->OnCancel([&] { ++later_ended; });

  auto held = queue.TryAcquire("c1", holder);
  ASSERT_TRUE(held);
  bool waited = false;
  boost::asio::co_spawn(
      loop,
      [&]() -> boost::asio::awaitable<void> {
        auto lease = co_await queue.Acquire("c1", waiter);
        waited = lease.has_value();
      },
      boost::asio::detached);
  loop.poll();
  queue.Supersede("c1");
  queue.Supersede("other");  // no turn there: nothing happens
  loop.restart();
  loop.poll();
  EXPECT_EQ(holder_ended, 1);
  EXPECT_EQ(waiter_ended, 1);
  // A turn in line after the interrupt is not superseded by it.
  held.reset();  // the holder ends: the waiter holds the conversation
  loop.restart();
  loop.poll();
  EXPECT_TRUE(waited);  // it held the conversation, then its lease ended with it
  auto next = queue.TryAcquire("c1", later);
  EXPECT_TRUE(next);
  loop.restart();
  loop.poll();
  EXPECT_EQ(later_ended, 0);
}

}  // namespace agentgate
