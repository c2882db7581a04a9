// One call of the Daemon, whichever way it came in (SPEC §5 Idempotency): the caller is admitted
// first, so a replay is only given to a caller a fresh call would admit; then its key is claimed
// (409 while the first call runs, 422 for another request, the stored answer once it finished);
// the turn's commit completes the key with its answer, and anything else releases it.
#include "app/invoke_agent.hpp"

#include <variant>

namespace agentgate {

namespace asio = boost::asio;

namespace {

// The claim on the call's key, or what the call gets instead. A coroutine of its own: what it
// reads is gone while the turn runs.
asio::awaitable<std::variant<InvokeAnswer, ClaimedKey>> ClaimKey(Idempotency& idempotency,
                                                                 const InvokeCall& call) {
  auto claim = co_await idempotency.Claim(call.caller, *call.key, call.fingerprint);
  if (!claim) co_return InvokeAnswer(Result<InvokeResult>(claim.error()));
  if (claim->replay) co_return InvokeAnswer(std::move(*claim->replay));
  co_return claim->claimed;
}

}  // namespace

asio::awaitable<InvokeAnswer> InvokeAgent::Call(const InvokeCall& call) {
  auto admitted = co_await Admit(call.caller, call.agent_id);
  if (!admitted) co_return Result<InvokeResult>(admitted.error());
  InvokeCommand command{call.caller,  call.agent_id, std::move(*admitted),
                        call.request, std::nullopt,  call.cancel};
  if (call.key) {
    auto claim = co_await ClaimKey(d_.idempotency, call);
    if (auto* answer = std::get_if<InvokeAnswer>(&claim)) co_return std::move(*answer);
    command.idempotency.emplace(IdempotentCall{std::get<ClaimedKey>(claim), call.answer});
  }
  Result<InvokeResult> result = co_await Invoke(command);
  if (command.idempotency && !result) co_await d_.idempotency.Release(command.idempotency->key);
  co_return result;
}

}  // namespace agentgate
