#include "adapters/store_common/spend_rules.hpp"

#include "crypto/crypto.hpp"
#include "domain/governance/governance.hpp"

namespace agentgate {

SpendDecision ReserveSpendIn(SpendRows& rows, const SpendReservationRequest& r) {
  const auto spent = [&](bool whole_org) {
    return rows.Spent(r.org_id, r.month, whole_org ? nullptr : &r.agent_id);
  };
  const auto grant = governance::GrantSpend(rows.OrgLimit(r.org_id), r.agent_limit_usd, spent,
                                            r.amount_usd, r.wanted_usd);
  if (const auto& reached = grant.refused)
    return SpendDecision{false, "", reached->scope, reached->limit_usd, reached->spent_usd, 0};
  const std::string id = crypto::RandomHex(12);
  rows.InsertReservation(id, r, grant.amount_usd);
  rows.AddReserved(SpendAccount{r.org_id, r.agent_id, r.month}, grant.amount_usd);
  return SpendDecision{true, id, "", 0, 0, grant.amount_usd};
}

}  // namespace agentgate
