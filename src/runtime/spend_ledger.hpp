#pragma once
// A server's spend leases (SPEC §5 spend, issue 12). Instead of a store transaction before every
// model call, the server reserves a slice of an (org, agent, month)'s limits at once — a lease: one
// reservation in the store, granted by governance::GrantSpend — and sets each call's worst case
// aside from it in memory. The store decides every lease one at a time against both limits, so what
// all servers may spend still passes a limit by at most one call's worst case.
//
// - A lease is sized for `calls_per_lease` calls like the one that needs it. One that runs out
// within
//   half its life makes the next twice as large (up to `max_calls_per_lease`); one that expires
//   makes the next fit what it served. So a busy agent leases a few times a second, not once per
//   32 calls, and the store's GrantSpend still caps every lease at a quarter of the headroom.
// - Turns that find the lease short together wait for one store request, instead of each leasing
//   (and retiring the others' leases).
// - A lease serves new calls for at most `lease_life` and is given back once idle for
//   `idle_return`: a limit changed through another server holds within 1 s, and budget this server
//   does not use goes back to the others. ForgetOrg() retires an org's leases at once (its limit
//   was changed through this server).
// - A call's part goes back to its lease when the turn does not commit (no store trip), and is
//   taken off the reservation by the turn's commit (SpendSettlement::reserved_usd).
// - A retired lease gives back at once what no call holds, and is deleted when its last call is
//   settled or released. The leases of a server that died are released by maintenance with every
//   stranded reservation.

#include "runtime/conversation_queue.hpp"
#include "runtime/server_lease.hpp"
#include "runtime/store_runner.hpp"

#include <boost/asio/awaitable.hpp>

#include <chrono>
#include <memory>
#include <mutex>
#include <string>
#include <unordered_map>
#include <vector>

namespace agentgate {

// One call's worst case, set aside from lease `reservation_id`.
struct SpendPart {
  std::string reservation_id;
  double amount_usd = 0;
};

struct SpendLedgerOptions {
  std::chrono::milliseconds lease_life{1000};
  std::chrono::milliseconds idle_return{200};
  double calls_per_lease = 32;         // a first lease asks for this many worst cases of its call
  double max_calls_per_lease = 32768;  // what doubling leases grow to at most
  // What "now" is; tests pass their own so that ages do not depend on how fast the store answers.
  std::chrono::steady_clock::time_point (*clock)() = &std::chrono::steady_clock::now;
};

class SpendLedger {
 public:
  // Leases name `server` (none: tests of the ledger alone), which releases closed ones until the
  // store takes them and has the leases released should this server die.
  explicit SpendLedger(StoreRunner& store, SpendLedgerOptions options = {},
                       ServerLease* server = nullptr)
      : store_(store), options_(options), server_(server) {}

  // Sets one call's worst case (`request.amount_usd`) aside, leasing from the store when this
  // server's lease is short, old or for another agent limit. Refused (`reserved` false, naming the
  // limit) once a limit is reached; on success `reservation_id` and `amount_usd` are the part.
  boost::asio::awaitable<Result<SpendDecision>> Reserve(const SpendReservationRequest& request);
  // Whether this server holds a live lease for the key of `request` (its org, agent, month and
  // agent limit) with room left: a limit that leaves room for the lease is not reached, as sure as
  // a call served from it, so a check before a turn needs no store read then. A live lease for
  // free calls always has room.
  bool LeaseHasRoom(const SpendReservationRequest& request) const;
  void Release(const SpendPart& part);  // its turn will not commit
  void Settled(const SpendPart& part);  // its turn's commit took it off the reservation

  void ForgetOrg(const std::string& org_id);  // its limit changed through this server
  void RetireStale();                         // leases past their life or idle; call periodically
  void RetireAll();                           // at shutdown

  std::size_t LeasesHeld() const;  // current and retired leases some call still holds

 private:
  using Steady = std::chrono::steady_clock;
  struct Lease;
  struct GiveBack {  // store work for a retired lease, done off the lock
    std::string reservation_id;
    double amount_usd = 0;
    bool close = false;
  };

  // A part of the key's current lease, or how many calls the next lease should be sized for.
  struct Taken {
    std::optional<SpendPart> part;
    double next_calls = 0;
    // A call dearer than the lease was sized for (an agent's fallback model) retires it, and its
    // unused part goes back before the new lease is asked for: else that part would count
    // against the very limits the new lease is checked against.
    std::vector<GiveBack> give_back_first = {};
  };
  Taken TakeFromLease(const std::string& key, const SpendReservationRequest& request);
  double NextLeaseCalls(const Lease& short_or_expired, Steady::time_point now) const;
  SpendPart Install(const std::string& key, const SpendReservationRequest& request,
                    const SpendDecision& lease, double calls);
  void Retire(Lease& lease, std::vector<GiveBack>& out);
  template <class Predicate>
  void RetireIf(const Predicate& retire);  // each current lease for which retire(lease, now)
  bool Expired(const Lease& lease, Steady::time_point now) const;  // serves no new call
  void PartDone(const SpendPart& part, bool settled);
  void Send(std::vector<GiveBack> work);
  boost::asio::awaitable<void> SendNow(std::vector<GiveBack> work);  // awaited, one by one

  StoreRunner& store_;
  const SpendLedgerOptions options_;
  ServerLease* const server_;
  ConversationQueue leasing_;  // one store request per key at a time
  mutable std::mutex mutex_;
  std::unordered_map<std::string, std::shared_ptr<Lease>> current_;  // by org, agent and month
  std::unordered_map<std::string, std::shared_ptr<Lease>> leases_;   // by reservation id
};

// Calls ledger.RetireStale() every `every` until its executor stops.
boost::asio::awaitable<void> RunSpendLeaseReturns(SpendLedger& ledger,
                                                  std::chrono::milliseconds every);

}  // namespace agentgate
