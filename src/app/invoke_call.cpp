// One call of the Daemon, whichever way it came in (SPEC §5 Idempotency): the caller is admitted
// first, so a replay is only given to a caller a fresh call would admit; then its key is claimed
// (409 while the first call runs, 422 for another request, the stored answer once it finished);
// the turn's commit completes the key with its answer, and anything else releases it.
#include "app/invoke_agent.hpp"

#include <variant>

namespace agentgate {

namespace asio = boost::asio;

namespace {

// Admits the call and claims its key into `command`; what the call gets instead (a refusal, a
// replay) goes to `answer`, and false. A coroutine of its own: what it reads is gone while the
// turn runs.
asio::awaitable<bool> AdmitAndClaim(InvokeAgent& invoke, Idempotency& idempotency,
                                    const InvokeCall& call, std::optional<InvokeCommand>& command,
                                    InvokeAnswer& answer) {
  auto admitted = co_await invoke.Admit(call.caller, call.agent_id);
  if (!admitted) {
    answer = Result<InvokeResult>(admitted.error());
    co_return false;
  }
  command.emplace(InvokeCommand{call.caller, call.agent_id, std::move(*admitted), call.request,
                                std::nullopt, call.cancel, call.observer});
  if (call.trace != nullptr) command->trace = *call.trace;
  if (!call.key) co_return true;
  auto claim = co_await idempotency.Claim(call.caller, *call.key, call.fingerprint);
  if (!claim) {
    answer = Result<InvokeResult>(claim.error());
  } else if (claim->replay) {
    answer = std::move(*claim->replay);
  } else {
    command->idempotency.emplace(IdempotentCall{claim->claimed, call.answer});
    co_return true;
  }
  co_return false;
}

}  // namespace

asio::awaitable<void> InvokeAgent::Call(const InvokeCall& call, InvokeAnswer& answer) {
  std::optional<InvokeCommand> command;
  if (!co_await AdmitAndClaim(*this, d_.idempotency, call, command, answer)) co_return;
  answer = co_await Invoke(*command);
  if (command->idempotency && !std::get<Result<InvokeResult>>(answer))
    co_await d_.idempotency.Release(command->idempotency->key);
}

}  // namespace agentgate
