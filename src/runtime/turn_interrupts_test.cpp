#include "runtime/turn_interrupts.hpp"

#include <gtest/gtest.h>
#include <boost/asio/io_context.hpp>

#include <optional>

namespace agentgate {

TEST(TurnInterrupts, AnInterruptEndsTheTicketsTurnOnItsExecutorWhileItIsRegistered) {
  boost::asio::io_context loop;
  TurnInterrupts interrupts;
  auto supersede = std::make_shared<TurnCancel>(loop.get_executor());
  int superseded = 0;
  supersede->OnCancel([&] { ++superseded; });
  {
    auto registration = interrupts.Register(7, supersede);
    EXPECT_EQ(interrupts.size(), 1u);
    EXPECT_FALSE(interrupts.Interrupt(8));  // another server's, or one already ended
    EXPECT_TRUE(interrupts.Interrupt(7));
    loop.poll();
    EXPECT_EQ(superseded, 1);
  }
  // Ended: its ticket is forgotten, so the map holds only turns that run.
  EXPECT_EQ(interrupts.size(), 0u);
  EXPECT_FALSE(interrupts.Interrupt(7));
}

TEST(TurnInterrupts, AMovedRegistrationUnregistersOnce) {
  boost::asio::io_context loop;
  TurnInterrupts interrupts;
  auto first = std::make_shared<TurnCancel>(loop.get_executor());
  auto second = std::make_shared<TurnCancel>(loop.get_executor());
  std::optional<TurnInterrupts::Registration> kept;
  {
    auto registration = interrupts.Register(1, first);
    kept.emplace(std::move(registration));
  }
  auto other = interrupts.Register(2, second);
  EXPECT_EQ(interrupts.size(), 2u);
  kept.reset();
  EXPECT_EQ(interrupts.size(), 1u);
  int superseded = 0;
  second->OnCancel([&] { ++superseded; });
  interrupts.InterruptAll({1, 2});
  loop.poll();
  EXPECT_EQ(superseded, 1);
}

}  // namespace agentgate
