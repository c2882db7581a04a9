#include "runtime/turn_interrupts.hpp"

namespace agentgate {

TurnInterrupts::Registration::~Registration() {
  if (interrupts_ == nullptr) return;
  std::lock_guard lock(interrupts_->mutex_);
  interrupts_->turns_.erase(ticket_);
}

TurnInterrupts::Registration TurnInterrupts::Register(std::int64_t ticket,
                                                      std::shared_ptr<TurnCancel> supersede) {
  std::lock_guard lock(mutex_);
  turns_[ticket] = std::move(supersede);
  return Registration(*this, ticket);
}

bool TurnInterrupts::Interrupt(std::int64_t ticket) {
  std::shared_ptr<TurnCancel> found;
  {
    std::lock_guard lock(mutex_);
    const auto it = turns_.find(ticket);
    if (it == turns_.end()) return false;
    found = it->second;
  }
  found->Cancel();  // posts to the turn's executor: never under the lock
  return true;
}

void TurnInterrupts::InterruptAll(const std::vector<std::int64_t>& tickets) {
  for (const std::int64_t ticket : tickets) Interrupt(ticket);
}

std::size_t TurnInterrupts::size() const {
  std::lock_guard lock(mutex_);
  return turns_.size();
}

}  // namespace agentgate
