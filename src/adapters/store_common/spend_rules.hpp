#pragma once
// A monthly spend reservation (SPEC §5), decided once for both engines: the engine reads and
// writes the rows as SpendRows, inside the transaction (and under the locks) it chose.

#include "adapters/store_common/settlement_sums.hpp"
#include "ports/store_records.hpp"

#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace agentgate {

class SpendRows {
 public:
  // The org's monthly limit as stored now (none: unlimited, or no such org).
  virtual std::optional<double> OrgLimit(const std::string& org_id) = 0;
  // Settled plus reserved in the month: the whole org's, or (agent_id given) one agent's.
  virtual double Spent(const std::string& org_id, const std::string& month,
                       const std::string* agent_id) = 0;
  virtual void InsertReservation(const std::string& id, const SpendReservationRequest& request,
                                 double amount_usd) = 0;
  // Adds to the account's reserved total, creating its row.
  virtual void AddReserved(const SpendAccount& account, double amount_usd) = 0;

 protected:
  ~SpendRows() = default;
};

// Reserves what governance::GrantSpend grants against both limits, or refuses naming the limit.
SpendDecision ReserveSpendIn(SpendRows& rows, const SpendReservationRequest& request);

// Reservations deleted (released): each one's account and what was left of it.
using ReleasedReservations = std::vector<std::pair<SpendAccount, double>>;

// Takes the released remainders off their accounts' reserved totals, each account once:
// `change(account, AccountChange)` as for a settlement.
template <class Change>
void Unreserve(const ReleasedReservations& released, Change&& change) {
  std::map<SpendAccount, double> per_account;
  for (const auto& [account, usd] : released) per_account[account] += usd;
  for (const auto& [account, usd] : per_account) change(account, Unreserving(usd));
}

}  // namespace agentgate
