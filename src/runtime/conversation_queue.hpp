#pragma once
// Turns on one stateful conversation never interleave: a turn that arrives while another runs
// waits for it, in arrival order. Waiting is asynchronous (no thread is held) and cancellable
// (a waiter whose turn cap passes leaves the queue). Across servers the store serialises them.

#include "runtime/turn_cancel.hpp"

#include <boost/asio/awaitable.hpp>

#include <deque>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <unordered_map>

namespace agentgate {

class ConversationQueue {
 public:
  struct Waiter;

  // Holds the conversation until destroyed; the next waiter then runs.
  class Lease {
   public:
    Lease(ConversationQueue* queue, std::string id) : queue_(queue), id_(std::move(id)) {}
    Lease(Lease&& other) noexcept
        : queue_(std::exchange(other.queue_, nullptr)), id_(std::move(other.id_)) {}
    Lease& operator=(Lease&&) = delete;
    ~Lease();

   private:
    ConversationQueue* queue_;
    std::string id_;
  };

  // Waits for the conversation; returns nullopt when canceled while waiting. `supersede`, when
  // given, ends the turn superseded should a newer call interrupt the conversation (Supersede).
  boost::asio::awaitable<std::optional<Lease>> Acquire(std::string conversation_id,
                                                       std::shared_ptr<TurnCancel> supersede = {});
  // The conversation when no turn here holds it or waits for it; else nullopt, at once.
  std::optional<Lease> TryAcquire(const std::string& conversation_id,
                                  std::shared_ptr<TurnCancel> supersede = {});
  // "if_busy": "interrupt": the turn holding the conversation here and every one waiting for it
  // end superseded (their cancels fire; each leaves the line as it ends).
  void Supersede(const std::string& conversation_id);

 private:
  void Release(const std::string& id);

  struct Entry {
    bool held = false;
    std::shared_ptr<TurnCancel> holder;  // the holding turn's supersede, if it gave one
    std::deque<std::shared_ptr<Waiter>> waiters;
  };
  std::mutex mutex_;
  std::unordered_map<std::string, Entry> entries_;
};

}  // namespace agentgate
