#include "app/turn/turn_place.hpp"

#include "crypto/crypto.hpp"
#include "domain/agent/busy_rules.hpp"
#include "domain/governance/governance.hpp"
#include "domain/resource_ids.hpp"
#include "domain/runs/run_state.hpp"

#include <boost/asio/steady_timer.hpp>
#include <boost/asio/this_coro.hpp>
#include <boost/asio/use_awaitable.hpp>

#include <algorithm>

namespace agentgate {
namespace {

namespace asio = boost::asio;
using std::chrono::milliseconds;

// How often a turn queued behind one running on another server looks again: soon at first (most
// turns are short), then backing off so long turns cost the store little.
constexpr milliseconds kTurnQueueFirstPoll{5};
constexpr milliseconds kTurnQueueMaxPoll{100};

// The instructions of the caller's instance `instance_id` of the agent (a per-instance agent).
// Its own coroutine, as are the lookups below: what they read is gone from memory while the turn
// runs.
asio::awaitable<Result<std::string>> InstanceInstructions(InvokeDeps& d,
                                                          const InvokeCommand& command,
                                                          const std::string& instance_id) {
  AG_CO_TRY(auto instance, co_await d.store.Run([&](Store& s) {
    return s.GetInstance(command.caller.org_id, command.agent_id, instance_id);
  }));
  if (!instance)
    co_return Error(ErrorCode::kInstanceNotFound, "instance '" + instance_id + "' not found");
  co_return std::move(instance->instructions);
}

// The id of the existing conversation the request names, when it is the caller's with this agent
// (and instance); 404 otherwise, the same for one that does not exist.
asio::awaitable<Result<std::optional<std::string>>> FindConversation(
    InvokeDeps& d, const InvokeCommand& command, const std::string& instance_id) {
  const std::string& wanted = *command.request.conversation_id;
  AG_CO_TRY(auto found, co_await d.store.Run([&](Store& s) { return s.GetConversation(wanted); }));
  if (!found || found->org_id != command.caller.org_id || found->env != command.caller.env ||
      found->agent_id != command.agent_id || found->instance_id != instance_id) {
    co_return Error(ErrorCode::kConversationNotFound, "conversation '" + wanted + "' not found");
  }
  co_return std::optional<std::string>(std::move(found->id));
}

// Counts the call in its conversation's window: at most 200 calls in any 120 s (its first call
// included; refused calls do not count), else 429.
asio::awaitable<Result<void>> CountCall(InvokeDeps& d, const std::string& conversation_id) {
  const std::int64_t now = d.clock.NowMs();
  AG_CO_TRY(const auto window, co_await d.store.Run([&](Store& s) {
    return s.RecordConversationCall(conversation_id, now, governance::kConversationWindowMs,
                                    governance::kConversationCallLimit);
  }));
  if (!window.allowed) {
    d.metrics.Add("agentgate_rate_limited_total", {});
    Error limited(ErrorCode::kRateLimited,
                  "this conversation passed 200 calls in 2 minutes; retry after " +
                      std::to_string(window.retry_after_seconds) + " s");
    limited.retry_after_seconds = window.retry_after_seconds;
    co_return limited;
  }
  co_return Result<void>{};
}

// A place in the store's line expires with the turn's cap (a dead server's goes sooner, with its
// lease).
std::int64_t PlaceExpiry(InvokeDeps& d, SteadyTime hard_cap) {
  const auto left = std::chrono::duration_cast<milliseconds>(hard_cap - d.clock.SteadyNow());
  return d.clock.NowMs() + left.count();
}

// The turn holds `ticket` until it ends (by its commit, or the guard); a newer call interrupting
// the conversation finds the turn by it, waiting or running.
void HoldPlace(InvokeDeps& d, std::int64_t ticket, TurnPlace& place) {
  place.ticket_guard.emplace(d.server, ticket);  // gives the place up however this turn ends
  if (place.supersede) place.interruptible.emplace(d.interrupts.Register(ticket, place.supersede));
}

// The turn's place in the store's line, in arrival order across servers.
asio::awaitable<Result<void>> TakeTicket(InvokeDeps& d, const std::string& conversation_id,
                                         SteadyTime hard_cap, TurnPlace& place) {
  const std::int64_t expires = PlaceExpiry(d, hard_cap);
  AG_CO_TRY(const std::int64_t ticket, co_await d.store.Run([&](Store& s) {
    return s.EnqueueTurn(conversation_id, expires, d.server.id());
  }));
  HoldPlace(d, ticket, place);
  co_return Result<void>{};
}

Error ConversationBusy(const std::string& conversation_id) {
  return Error(ErrorCode::kConversationBusy,
               "field 'conversation_id': conversation '" + conversation_id +
                   "' has a turn running or queued (\"if_busy\": \"reject\")");
}

// "if_busy": "reject": the place now, or 409. Busy is a turn running or waiting here, a background
// run queued or running, or another server's turn in line; of two calls that arrive together, the
// store's ticket order lets one through.
// A streamed run was looked at as it was admitted, and is itself a run of the conversation now.
asio::awaitable<Result<void>> TakeFreeTurn(InvokeDeps& d, const InvokeCommand& command,
                                           const std::string& conversation_id, SteadyTime hard_cap,
                                           TurnPlace& place) {
  auto lease = d.conversations.TryAcquire(conversation_id, place.supersede);
  if (!lease) co_return ConversationBusy(conversation_id);
  place.lease.emplace(std::move(*lease));
  const std::int64_t now = d.clock.NowMs();
  if (command.RunEnd() == nullptr) {
    AG_CO_TRY(const bool busy, co_await d.store.Run([&](Store& s) {
      return s.ConversationBusy(conversation_id, now);
    }));
    if (busy) co_return ConversationBusy(conversation_id);
  }
  AG_CO_TRYV(co_await TakeTicket(d, conversation_id, hard_cap, place));
  const std::int64_t ticket = place.ticket_guard->ticket();
  AG_CO_TRY(const bool head, co_await d.store.Run([&](Store& s) {
    return s.IsTurnAtHead(conversation_id, ticket, now, d.server.id());
  }));
  if (!head) co_return ConversationBusy(conversation_id);
  co_return Result<void>{};
}

// A background run queued on an existing conversation took its place in line as it was queued,
// and was claimed once that place reached the head: its turn holds the place, and waits for
// nothing (the later turns of this server wait for it in the store's line, not in this server's).
// False for a turn that took no place ahead.
asio::awaitable<Result<bool>> TakeQueuedPlace(InvokeDeps& d, const InvokeCommand& command,
                                              SteadyTime hard_cap, TurnPlace& place) {
  if (!command.TookPlaceWhenQueued() || command.observer == nullptr) co_return false;
  const std::string run_id(command.observer->RunId());
  const std::int64_t expires = PlaceExpiry(d, hard_cap);
  AG_CO_TRY(const auto ticket, co_await d.store.Run([&](Store& s) {
    return s.TakeRunPlace(run_id, d.server.id(), expires);
  }));
  if (!ticket) co_return false;
  HoldPlace(d, *ticket, place);
  co_return true;
}

// Takes this turn's place on an existing conversation: its call counted in the window (unless it
// was when its run was queued), then one turn at a time in arrival order, first in this server (no
// store traffic while waiting), then across servers through the store: a server's one ticket on
// the conversation is its lease holder's, so no turn holds this server's lease while waiting for a
// turn of another server that waits for an older ticket of this one. The wait counts against the
// turn's cap; the lease and the ticket hold the place until the turn ends. An interrupting turn
// first supersedes the turns of this server (it is then next in its line), then, with its ticket,
// every older one in the store's.
asio::awaitable<Result<void>> WaitForTurn(InvokeDeps& d, const InvokeCommand& command,
                                          const std::string& conversation_id, SteadyTime hard_cap,
                                          TurnPlace& place) {
  if (!command.CallCounted()) AG_CO_TRYV(co_await CountCall(d, conversation_id));
  AG_CO_TRY(const bool queued_place, co_await TakeQueuedPlace(d, command, hard_cap, place));
  if (queued_place) co_return Result<void>{};
  // A queued run's choice was done as it was queued; every turn then does as a call does.
  const busy::AtTurn at_turn = busy::RuleOf(busy::CallKind::kCall, command.request.if_busy).at_turn;
  if (at_turn == busy::AtTurn::kRefuse)
    co_return co_await TakeFreeTurn(d, command, conversation_id, hard_cap, place);
  const bool interrupts = at_turn == busy::AtTurn::kInterrupt;
  if (interrupts) d.conversations.Supersede(conversation_id);
  auto acquired = co_await d.conversations.Acquire(conversation_id, place.supersede);
  if (!acquired)
    co_return Error(ErrorCode::kTurnTimeout,
                    "canceled while waiting for the conversation's previous turn");
  place.lease.emplace(std::move(*acquired));
  AG_CO_TRYV(co_await TakeTicket(d, conversation_id, hard_cap, place));
  const std::int64_t ticket = place.ticket_guard->ticket();
  if (interrupts) AG_CO_TRYV(co_await SupersedeTurnsBefore(d, conversation_id, ticket));
  for (milliseconds wait = kTurnQueueFirstPoll;; wait = std::min(wait * 2, kTurnQueueMaxPoll)) {
    const std::int64_t at = d.clock.NowMs();
    AG_CO_TRY(const bool head, co_await d.store.Run([&](Store& s) {
      return s.IsTurnAtHead(conversation_id, ticket, at, d.server.id());
    }));
    if (head) break;
    asio::steady_timer poll(co_await asio::this_coro::executor, wait);
    co_await poll.async_wait(asio::use_awaitable);
  }
  co_return Result<void>{};
}

// Time-ordered, like turn ids: new conversations and their first messages go in at the edge of the
// store's indexes.
std::string NewConversationId(std::int64_t now_ms) {
  return ids::Make(ids::kConversation, crypto::TimeOrderedHex(now_ms, 8));
}

// Whether this server's spend lease for the command's agent has room: the limits are not reached
// then, as sure as a call served from it (SpendLedger::LeaseHasRoom), with no store read.
bool LeaseVouches(InvokeDeps& d, const InvokeCommand& command, std::int64_t now) {
  SpendReservationRequest key;
  key.org_id = command.caller.org_id;
  key.agent_id = command.agent_id;
  key.month = governance::MonthOf(now);
  key.agent_limit_usd = command.agent.loaded()->config.monthly_spend_limit_usd;
  return d.spend.LeaseHasRoom(key);
}

// 402 once a monthly limit of the caller's organization or of the agent is reached (settled plus
// reserved spend), the same rule a turn's first reservation meets, read from the store.
asio::awaitable<Result<void>> CheckSpendLimits(InvokeDeps& d, const InvokeCommand& command,
                                               std::int64_t now) {
  const auto agent_limit = command.agent.loaded()->config.monthly_spend_limit_usd;
  AG_CO_TRY(const auto reached,
            co_await d.store.Run([&](Store& s) -> Result<std::optional<governance::LimitReached>> {
              AG_TRY(const auto org, s.GetOrg(command.caller.org_id));
              const auto org_limit = org ? org->monthly_spend_limit_usd : std::nullopt;
              if (!org_limit && !agent_limit) return std::nullopt;
              AG_TRY(const auto usage, s.GetUsage(command.caller.org_id, governance::MonthOf(now)));
              return governance::FirstLimitReached(org_limit, agent_limit, [&](bool whole_org) {
                double spent = 0;
                for (const auto& row : usage) {
                  if (whole_org || row.agent_id == command.agent_id)
                    spent += row.spent_usd + row.reserved_usd;
                }
                return spent;
              });
            }));
  if (reached) co_return governance::SpendLimitError(*reached, now);
  co_return Result<void>{};
}

}  // namespace

asio::awaitable<Result<void>> SupersedeTurnsBefore(InvokeDeps& d,
                                                   const std::string& conversation_id,
                                                   std::int64_t ticket) {
  const std::int64_t now = d.clock.NowMs();
  AG_CO_TRY(const auto superseded, co_await d.store.Run([&](Store& s) {
    return s.SupersedeTurns(conversation_id, ticket, now);
  }));
  std::vector<std::string> queued_runs;
  for (const auto& earlier : superseded) {
    if (earlier.server_id == d.server.id()) {
      d.interrupts.Interrupt(earlier.ticket);
    } else if (earlier.server_id.empty() && !earlier.run_id.empty()) {
      queued_runs.push_back(earlier.run_id);
    }
  }
  if (!queued_runs.empty()) {
    // Still queued: it ends canceled at once, superseded (started meanwhile: its server ends it).
    const RunEvent ended =
        run_events::Failed(run_state::EndingError(RunEnding::kSuperseded, RunStatus::kQueued));
    const auto canceled = co_await d.store.Run([&](Store& s) -> Result<void> {
      for (const auto& run_id : queued_runs) AG_TRYV(s.CancelRun(run_id, now, ended));
      return {};
    });
    if (!canceled) co_return canceled.error();
  }
  if (!superseded.empty())
    d.metrics.Add("agentgate_turns_superseded_total", {}, static_cast<double>(superseded.size()));
  co_return Result<void>{};
}

TicketGuard::~TicketGuard() {
  if (given_up_) return;
  server_.Post([ticket = ticket_](Store& s) { return s.DequeueTurn(ticket); });
}

asio::awaitable<Result<void>> TakePlace(InvokeDeps& d, const InvokeCommand& command,
                                        SteadyTime hard_cap, TurnPlace& place) {
  const auto& request = command.request;
  if (command.agent.loaded()->config.per_instance) {
    if (!request.instance_id || request.instance_id->empty()) {
      co_return InvalidField("instance_id", "is required: agent '" + command.agent_id +
                                                "' is configured per instance");
    }
    place.instance_id = *request.instance_id;
    AG_CO_TRY(place.instance_instructions,
              co_await InstanceInstructions(d, command, place.instance_id));
  }
  if (request.stateful && request.conversation_id) {
    AG_CO_TRY(place.conversation_id, co_await FindConversation(d, command, place.instance_id));
    AG_CO_TRYV(co_await WaitForTurn(d, command, *place.conversation_id, hard_cap, place));
  } else if (request.stateful) {
    // A first call's conversation is created by its turn's commit: a turn refused or canceled
    // leaves none behind. Nobody else can use its id yet, so it has no other turn to wait for and
    // an empty call window (the commit records this first call in it).
    const std::int64_t started_ms = d.clock.NowMs();
    place.new_conversation.emplace(ConversationRecord{
        command.NewConversationId().value_or(NewConversationId(started_ms)), command.caller.org_id,
        command.caller.env, command.agent_id, place.instance_id, started_ms});
    place.conversation_id = place.new_conversation->id;
  }
  co_return Result<void>{};
}

}  // namespace agentgate

namespace agentgate {

asio::awaitable<Result<QueuedPlace>> InvokeAgent::AdmitAhead(const InvokeCommand& command,
                                                             bool refuse_busy) {
  const auto& request = command.request;
  QueuedPlace place;
  std::string instance_id;
  if (command.agent.loaded()->config.per_instance) {
    if (!request.instance_id || request.instance_id->empty()) {
      co_return InvalidField("instance_id", "is required: agent '" + command.agent_id +
                                                "' is configured per instance");
    }
    instance_id = *request.instance_id;
    AG_CO_TRYV(co_await InstanceInstructions(d_, command, instance_id));
  }
  if (request.stateful && request.conversation_id) {
    AG_CO_TRY(auto found, co_await FindConversation(d_, command, instance_id));
    place.conversation_id = std::move(*found);
    const std::int64_t now = d_.clock.NowMs();
    AG_CO_TRY(const bool busy, co_await d_.store.Run([&](Store& s) -> Result<bool> {
      if (!refuse_busy) return false;
      return s.ConversationBusy(place.conversation_id, now);
    }));
    if (busy) {
      co_return Error(ErrorCode::kConversationBusy,
                      "field 'conversation_id': conversation '" + place.conversation_id +
                          "' has a turn running or queued; queue the run once it is free");
    }
    AG_CO_TRYV(co_await CountCall(d_, place.conversation_id));
  } else if (request.stateful) {
    place.conversation_id = NewConversationId(d_.clock.NowMs());
    place.creates_conversation = true;
  }
  // A coroutine of its own only when it reads the store.
  if (const std::int64_t now = d_.clock.NowMs(); !LeaseVouches(d_, command, now))
    AG_CO_TRYV(co_await CheckSpendLimits(d_, command, now));
  co_return place;
}

asio::awaitable<Result<void>> InvokeAgent::SupersedeAheadOf(const std::string& conversation_id,
                                                            const std::string& run_id) {
  AG_CO_TRY(const auto ticket, co_await d_.store.Run([&](Store& s) { return s.RunPlace(run_id); }));
  if (!ticket) co_return Result<void>{};  // it ended already
  d_.conversations.Supersede(conversation_id);
  co_return co_await SupersedeTurnsBefore(d_, conversation_id, *ticket);
}

}  // namespace agentgate
