#pragma once
// The settlements of a batch of committed turns, summed so each reservation (a server's spend
// lease, shared by many turns) and each spend total is written once per batch, not once per call.

#include "ports/store_records.hpp"

#include <cstdint>
#include <map>
#include <string>
#include <tuple>
#include <vector>

namespace agentgate {

struct SettlementSums {
  struct Settled {
    double cost_usd = 0;
    std::int64_t input_tokens = 0;
    std::int64_t output_tokens = 0;
    std::int64_t calls = 0;
  };
  std::map<std::string, double> per_reservation;  // what to take off each reservation
  // By (org, agent, month): what to add to its settled total.
  std::map<std::tuple<std::string, std::string, std::string>, Settled> per_account;
};

inline SettlementSums SumSettlements(const std::vector<const SpendSettlement*>& settlements) {
  SettlementSums sums;
  for (const SpendSettlement* s : settlements) {
    sums.per_reservation[s->reservation_id] += s->reserved_usd;
    auto& account = sums.per_account[{s->org_id, s->agent_id, s->month}];
    account.cost_usd += s->cost_usd;
    account.input_tokens += s->input_tokens;
    account.output_tokens += s->output_tokens;
    ++account.calls;
  }
  return sums;
}

}  // namespace agentgate
