#pragma once
// A turn's model calls, paid for (SPEC §5 spend): each call's worst case (estimated input plus
// max_output_tokens, at the configured price) is reserved against the organization's and the
// agent's monthly limits before it starts (from this server's lease, runtime/spend_ledger), so
// concurrent turns overshoot a limit by at most one call's worst case. Its real cost is settled by
// the turn's commit (Settlements()); a turn that does not commit (canceled, refused, failed) spends
// nothing, and its reservations are released at once when this object goes (SPEC §5). The model
// metrics are counted here.

#include "app/turn/model_chain.hpp"
#include "domain/agent/transcript.hpp"
#include "domain/governance/price.hpp"
#include "observability/metrics.hpp"
#include "ports/clock.hpp"
#include "ports/model_client.hpp"
#include "runtime/spend_ledger.hpp"
#include "runtime/tracer.hpp"

#include <boost/asio/awaitable.hpp>

#include <chrono>
#include <optional>
#include <string>
#include <vector>

namespace agentgate {

// Who pays for one turn's model calls (each at the price of the model it calls).
struct SpendAccount {
  std::string org_id;
  std::string agent_id;
  std::string month;  // YYYY-MM (UTC) of the turn's start: all its calls count there
  std::optional<double> agent_limit_usd;
  std::int64_t max_output_tokens = 0;
};

struct MeteredCall {
  std::optional<SpendDecision> refused;  // a limit is reached: the model was not called
  ModelResult result;
  double cost_usd = 0;
  ModelCallRecord record;  // for the transcript
};

class MeteredModel {
 public:
  MeteredModel(SpendLedger& spend, const Clock& clock, Metrics& metrics, ModelChain chain,
               SpendAccount account, const Tracer* tracer = nullptr)
      : spend_(spend),
        clock_(clock),
        metrics_(metrics),
        chain_(std::move(chain)),
        account_(std::move(account)),
        tracer_(tracer) {}
  ~MeteredModel();  // releases reservations the turn's commit did not settle
  MeteredModel(const MeteredModel&) = delete;
  MeteredModel& operator=(const MeteredModel&) = delete;

  // Makes one call into `call` (the caller's, so no copy of it sits in this coroutine's frame
  // while the model answers), to the model and key where the chain stands (`request.model` is
  // replaced by that model's name). An error only when the store failed; a refusal or the model's
  // own failure is in `call`. `options` say how the call is made (streamed, traced:
  // ModelClient::Complete). No default: GCC 12 mishandles a default argument's temporary bound to a
  // coroutine's reference parameter (the server crashed in a summarizing turn); callers pass an
  // object of their own. `trace`: the call's span, under which the reservation is a span of its own
  // (none: untraced).
  boost::asio::awaitable<Result<void>> Complete(const ModelRequest& request,
                                                std::chrono::milliseconds timeout,
                                                MeteredCall& call, const ModelCallOptions& options,
                                                const SpanContext* trace);

  // Where the calls go; the turn loop moves it after a failed call.
  ModelChain& chain() { return chain_; }
  // Each model's calls, tokens and cost so far (usage.models), in the order first called.
  const std::vector<ModelUsage>& UsageByModel() const { return by_model_; }
  // The same, moved out once the turn's last call is made (its settle).
  std::vector<ModelUsage> TakeUsageByModel() { return std::move(by_model_); }
  bool AnyAnswered() const {
    for (const auto& m : by_model_)
      if (m.calls > 0) return true;
    return false;
  }

  // The real cost of every call so far, for the turn's commit.
  const std::vector<SpendSettlement>& Settlements() const { return settlements_; }
  // The commit settled them: nothing is left to release.
  void Committed();

 private:
  // Reserves the call's worst case: the part reserved, or none with `call.refused` set.
  boost::asio::awaitable<Result<std::optional<SpendPart>>> Reserve(const ModelRequest& request,
                                                                   const Price& price,
                                                                   MeteredCall& call,
                                                                   const SpanContext* trace);
  // Records the finished call's real cost for the commit.
  void Settle(const SpendPart& part, const ChainEntry& entry, SteadyTime started,
              MeteredCall& call);
  void CountReply(const std::string& provider, const ModelReply& reply);
  void CountGenAi(const ChainEntry& entry, const MeteredCall& call);

  SpendLedger& spend_;
  const Clock& clock_;
  Metrics& metrics_;
  ModelChain chain_;
  SpendAccount account_;
  const Tracer* tracer_;
  std::vector<SpendPart> open_parts_;  // reserved, not yet settled by a commit
  std::vector<SpendSettlement> settlements_;
  std::vector<ModelUsage> by_model_;
};

}  // namespace agentgate
