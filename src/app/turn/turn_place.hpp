#pragma once
// Where a turn runs (SPEC §5): the agent's instance (per-instance agents) and the conversation:
// none (stateless), a new one the turn's commit creates, or an existing one whose place in line
// the turn holds until it ends.

#include "app/turn/invoke_agent.hpp"

#include <optional>
#include <string>

namespace agentgate {

// Removes a conversation ticket when its turn ends, canceled or not: posted to the blocking pool
// because a canceled coroutine can no longer co_await, and retried by the server's lease while
// the store refuses (a turn that failed because the disk was full leaves no ticket behind).
class TicketGuard {
 public:
  TicketGuard(ServerLease& server, std::int64_t ticket) : server_(server), ticket_(ticket) {}
  ~TicketGuard();
  TicketGuard(const TicketGuard&) = delete;
  TicketGuard& operator=(const TicketGuard&) = delete;
  std::int64_t ticket() const { return ticket_; }
  // The turn's commit gave the ticket up: nothing is left to remove.
  void GivenUp() { given_up_ = true; }

 private:
  ServerLease& server_;
  std::int64_t ticket_;
  bool given_up_ = false;
};

struct TurnPlace {
  std::string instance_id;            // empty for agents that are not per-instance
  std::string instance_instructions;  // the prompt takes them
  std::optional<std::string> conversation_id;
  std::optional<ConversationRecord> new_conversation;  // the commit takes it
  std::optional<ConversationQueue::Lease> lease;       // this server's turn on the conversation
  std::optional<TicketGuard> ticket_guard;             // and its place across servers
  // Ends the turn superseded once a newer call interrupts it ("if_busy": "interrupt"): set by the
  // turn for an existing conversation, and registered under its ticket while it holds one.
  std::shared_ptr<TurnCancel> supersede;
  std::optional<TurnInterrupts::Registration> interruptible;
};

// Finds the turn's place: 400 or 404 for a missing or unknown instance, 404 for a conversation
// that is not the caller's, 429 past the conversation's call window; then does what the call's
// `if_busy` says of the conversation's earlier turns: waits for them, within the hard cap (in
// this server, then across servers), 409 at once if there are any, or supersedes them and waits
// for them to end.
boost::asio::awaitable<Result<void>> TakePlace(InvokeDeps& d, const InvokeCommand& command,
                                               SteadyTime hard_cap, TurnPlace& place);

// "if_busy": "interrupt" (docs/daemon.md): every turn ahead of `ticket` in the conversation's
// line, running or waiting, on any server, is superseded: it can no longer commit, and ends as a
// canceled turn (this server's at once, another's at its server's next look; a run still queued
// ends canceled now). The interrupting turn then waits for them to end like any turn ahead.
boost::asio::awaitable<Result<void>> SupersedeTurnsBefore(InvokeDeps& d,
                                                          const std::string& conversation_id,
                                                          std::int64_t ticket);

}  // namespace agentgate
