#include "adapters/http_server/handlers/invoke_common.hpp"

#include <variant>

namespace agentgate::http {

namespace asio = boost::asio;

CallerHeaders CallerHeadersOf(const Request& r) {
  auto get = [&](std::string_view name) -> std::optional<std::string> {
    auto v = r.Header(name);
    return v ? std::optional<std::string>(std::string(*v)) : std::nullopt;
  };
  return CallerHeaders{get("fl-api-org"), get("fl-api-token"), get("fl-api-env")};
}

namespace {

struct AuthenticatedCall {
  Caller caller;
  InvokeCall call;
};

// A coroutine of its own: what it reads on the way is gone while the turn runs.
asio::awaitable<std::variant<Response, AuthenticatedCall>> ReadAuthenticated(
    RouteDeps& deps, Request& r, Result<InvokeCall> (*read)(const Request&),
    Response (*refuse)(const Error&)) {
  auto caller = co_await Authenticate(deps.tenants, CallerHeadersOf(r));
  if (!caller) co_return refuse(caller.error());
  auto call = read(r);
  if (!call) co_return refuse(call.error());
  r.ReleasePayload();
  AuthenticatedCall admitted{std::move(*caller), std::move(*call)};
  co_return admitted;
}

// Claims the Idempotency-Key `key` for a call: the claim, or the response to send instead (a
// refusal, or the stored answer of the call that used the key first).
asio::awaitable<std::variant<Response, ClaimedKey>> ClaimKey(RouteDeps& deps, const Caller& caller,
                                                             const std::string& key,
                                                             const std::string& fingerprint,
                                                             const InvokeRenderer& render) {
  auto claim = co_await deps.idempotency.Claim(caller, key, fingerprint);
  if (!claim) co_return render(claim.error());
  if (claim->replay) {
    Response replay;
    replay.status = claim->replay->status;
    replay.body = std::move(claim->replay->body);
    replay.headers.emplace_back("Idempotent-Replayed", "true");
    co_return replay;
  }
  co_return claim->claimed;
}

}  // namespace

asio::awaitable<Response> InvokeOnce(RouteDeps& deps, const Caller& caller,
                                     const std::string& agent_id, const InvokeRequest& request,
                                     const std::optional<std::string>& key,
                                     const std::string& fingerprint, const InvokeRenderer& render,
                                     std::shared_ptr<TurnCancel> cancel) {
  auto admitted = co_await deps.invoke.Admit(caller, agent_id);
  if (!admitted) co_return render(admitted.error());
  InvokeCommand command{caller,  agent_id,     std::move(*admitted),
                        request, std::nullopt, std::move(cancel)};
  if (key) {
    // The claim in a coroutine of its own: what it reads is gone while the turn runs.
    auto claim = co_await ClaimKey(deps, caller, *key, fingerprint, render);
    if (auto* answer = std::get_if<Response>(&claim)) co_return std::move(*answer);
    // The turn's commit stores this route's answer for replay (the same rendering as below).
    command.idempotency = IdempotentCall{
        std::get<ClaimedKey>(std::move(claim)), [&render](const InvokeResult& result) {
          Response answer = render(result);
          return StoredResponse{answer.status, std::move(answer.body)};
        }};
  }
  const Result<InvokeResult> result = co_await deps.invoke.Invoke(command);
  Response response = render(result);
  if (result) response.headers.emplace_back("X-Agentgate-Turn-Id", result->turn_id);
  if (command.idempotency && !result) co_await deps.idempotency.Release(command.idempotency->key);
  co_return response;
}

asio::awaitable<Response> InvokeFromRequest(RouteDeps& deps, Request& r,
                                            Result<InvokeCall> (*read)(const Request&),
                                            Response (*refuse)(const Error&),
                                            const InvokeRenderer& render) {
  auto admitted = co_await ReadAuthenticated(deps, r, read, refuse);
  if (auto* refused = std::get_if<Response>(&admitted)) co_return std::move(*refused);
  const AuthenticatedCall& ok = std::get<AuthenticatedCall>(admitted);
  co_return co_await InvokeOnce(deps, ok.caller, ok.call.agent_id, ok.call.request, ok.call.key,
                                ok.call.fingerprint, render);
}

}  // namespace agentgate::http
