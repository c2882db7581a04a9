// A call's admission, whichever way it came in (SPEC §5 Idempotency): the caller is admitted
// first, so a replay is only given to a caller a fresh call would admit; then its key is claimed
// (409 while the first call runs, 422 for another request, the stored answer once it finished).
// The turn's commit completes the key with its answer, and anything else releases it.
#include "app/turn/invoke_agent.hpp"
#include "domain/agent/approval_rules.hpp"

namespace agentgate {

namespace asio = boost::asio;

RunEndInCommit* InvokeCommand::RunEnd() const {
  if (const auto* run = std::get_if<RunsTurn>(&origin)) return run->end;
  if (const auto* resumed = Resumed()) return resumed->end;
  return nullptr;
}

bool InvokeCommand::CallCounted() const {
  if (const auto* run = std::get_if<RunsTurn>(&origin)) return run->call_counted;
  return Resumed() != nullptr;
}

bool InvokeCommand::TookPlaceWhenQueued() const {
  const auto* run = std::get_if<RunsTurn>(&origin);
  return run != nullptr && run->took_place_when_queued;
}

const std::optional<std::string>& InvokeCommand::NewConversationId() const {
  static const std::optional<std::string> kNone;
  const auto* run = std::get_if<RunsTurn>(&origin);
  return run != nullptr ? run->new_conversation_id : kNone;
}

asio::awaitable<Admission> InvokeAgent::AdmitCall(const InvokeCall& call) {
  auto admitted = co_await Admit(call.caller, call.agent_id);
  if (!admitted) co_return admitted.error();
  if (approval::CanPause(admitted->loaded()->config)) {
    // A pause keeps its prompt and request until decided or expired: a version that may pause
    // counts its organization's waiting runs before it starts, as a queued run does.
    const std::string& org = call.caller.org_id;
    auto waiting = co_await d_.store.Run([&](Store& s) { return s.CountWaitingRuns(org); });
    if (!waiting) co_return waiting.error();
    if (*waiting >= d_.max_waiting_runs_per_org) {
      Error full(ErrorCode::kQueueFull,
                 "the organization has " + std::to_string(d_.max_waiting_runs_per_org) +
                     " runs waiting, queued or paused for a decision ([runs] "
                     "max_queued_per_org); retry once some have started or been decided");
      full.retry_after_seconds = 1;
      co_return full;
    }
  }
  // Named first: GCC 12 destroys a braced temporary in a co_return twice.
  InvokeCommand command{call.caller,  call.agent_id, std::move(*admitted), call.request,
                        std::nullopt, call.cancel,   call.observer};
  if (call.trace != nullptr) command.trace = *call.trace;
  if (!call.key) co_return std::move(command);
  auto claim = co_await d_.idempotency.Claim(call.caller, *call.key, call.fingerprint);
  if (!claim) co_return claim.error();
  if (claim->replay) co_return std::move(*claim->replay);
  command.idempotency.emplace(IdempotentCall{claim->claimed, call.answer});
  co_return std::move(command);
}

}  // namespace agentgate
