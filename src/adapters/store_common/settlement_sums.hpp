#pragma once
// The settlements of a batch of committed turns, summed so each reservation (a server's spend
// lease, shared by many turns) and each spend total is written once per batch, not once per call.

#include "ports/store_records.hpp"

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <tuple>
#include <vector>

namespace agentgate {

using SpendAccount = std::tuple<std::string, std::string, std::string>;  // org, agent, month

// What one batch changes in one account's totals.
struct AccountChange {
  double settled_usd = 0;
  std::int64_t input_tokens = 0;
  std::int64_t output_tokens = 0;
  std::int64_t calls = 0;
  // Taken off its reserved total, when the batch settled against reservations of this account.
  std::optional<double> unreserved_usd;
};

// A reservation given back unspent: it only comes off the reserved total.
inline AccountChange Unreserving(double usd) {
  AccountChange change;
  change.unreserved_usd = usd;
  return change;
}

// Settles a batch with a store's two writes: `take_off(reservation_id, usd)` takes a part off a
// reservation and returns the reservation's account (nothing when it is gone); then
// `change(account, AccountChange)` runs once per account, both of its changes in one update.
template <class TakeOff, class Change>
void SettleBatch(const std::vector<const SpendSettlement*>& settlements, TakeOff&& take_off,
                 Change&& change) {
  std::map<std::string, double> per_reservation;
  std::map<SpendAccount, AccountChange> per_account;
  for (const SpendSettlement* s : settlements) {
    per_reservation[s->reservation_id] += s->reserved_usd;
    AccountChange& account = per_account[{s->org_id, s->agent_id, s->month}];
    account.settled_usd += s->cost_usd;
    account.input_tokens += s->input_tokens;
    account.output_tokens += s->output_tokens;
    ++account.calls;
  }
  for (const auto& [id, usd] : per_reservation) {
    if (std::optional<SpendAccount> account = take_off(id, usd)) {
      std::optional<double>& unreserved = per_account[*account].unreserved_usd;
      unreserved = unreserved.value_or(0) + usd;
    }
  }
  for (const auto& [account, changed] : per_account) change(account, changed);
}

}  // namespace agentgate
