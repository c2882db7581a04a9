#pragma once
// The turns of this server that hold a place in a conversation's line (a queue ticket), each with
// the cancel that ends it superseded when a newer call interrupts it ("if_busy": "interrupt",
// docs/daemon.md). The interrupting call names the tickets it superseded; those of this server
// end at once, those of another when its server next looks at the store. Any thread.

#include "runtime/turn_cancel.hpp"

#include <cstdint>
#include <memory>
#include <mutex>
#include <unordered_map>
#include <utility>
#include <vector>

namespace agentgate {

class TurnInterrupts {
 public:
  // Keeps a ticket's turn registered until destroyed.
  class Registration {
   public:
    Registration(TurnInterrupts& interrupts, std::int64_t ticket)
        : interrupts_(&interrupts), ticket_(ticket) {}
    Registration(Registration&& other) noexcept
        : interrupts_(std::exchange(other.interrupts_, nullptr)), ticket_(other.ticket_) {}
    Registration& operator=(Registration&&) = delete;
    ~Registration();

   private:
    TurnInterrupts* interrupts_;
    std::int64_t ticket_;
  };

  Registration Register(std::int64_t ticket, std::shared_ptr<TurnCancel> supersede);
  // Ends the ticket's turn superseded, if it runs here; false when it does not.
  bool Interrupt(std::int64_t ticket);
  void InterruptAll(const std::vector<std::int64_t>& tickets);
  std::size_t size() const;

 private:
  mutable std::mutex mutex_;
  std::unordered_map<std::int64_t, std::shared_ptr<TurnCancel>> turns_;
};

}  // namespace agentgate
