#include "adapters/http_server/handlers/invoke_common.hpp"

#include "domain/auth/api_token.hpp"

#include <variant>

namespace agentgate::http {

namespace asio = boost::asio;

CallerHeaders CallerHeadersOf(const Request& r) {
  auto get = [&](std::string_view name) -> std::optional<std::string> {
    auto v = r.Header(name);
    return v ? std::optional<std::string>(std::string(*v)) : std::nullopt;
  };
  CallerHeaders headers{get("fl-api-org"), get("fl-api-token"), get("fl-api-env"), false};
  // Without the fl-api headers, an API key in the Authorization header (docs/openai.md): the
  // credential an OpenAI SDK sends.
  const auto authorization = r.Header("authorization");
  const auto bearer = authorization ? BearerCredential(*authorization) : std::nullopt;
  if (headers.org || headers.token || !bearer) return headers;
  auto key = UnwrapApiKey(*bearer);
  if (!key) {
    headers.unreadable_key = true;
    return headers;
  }
  return CallerHeaders{std::move(key->org), std::move(key->token), std::move(key->env), false};
}

// A coroutine of its own: what it reads on the way is gone while the turn runs.
asio::awaitable<std::variant<Response, AuthenticatedCall>> AuthenticateAndRead(
    RouteDeps& deps, Request& r, Result<InvokeInput> (*read)(const Request&),
    Response (*refuse)(const Error&)) {
  auto caller = co_await Authenticate(deps.tenants, CallerHeadersOf(r));
  if (!caller) co_return refuse(caller.error());
  auto call = read(r);
  if (!call) co_return refuse(call.error());
  r.ReleasePayload();
  AuthenticatedCall admitted{std::move(*caller), std::move(*call)};
  co_return admitted;
}

InvokeCall CallOf(const AuthenticatedCall& ok, const SpanContext* trace) {
  return InvokeCall{.caller = ok.caller,
                    .agent_id = ok.call.agent_id,
                    .request = ok.call.request,
                    .key = ok.call.key,
                    .fingerprint = ok.call.fingerprint,
                    .trace = trace};
}

std::string RunLocation(const RouteDeps& deps, const std::string& run_id) {
  return deps.public_url + "/api/runs/" + run_id;
}

namespace {

// The answer of a call not run: its refusal rendered, or the stored answer of the call that used
// its key first, as stored.
Response NotRun(Admission& admission, const InvokeRenderer& render) {
  if (auto* refusal = std::get_if<Refusal>(&admission)) return render(*refusal);
  auto& replay = std::get<StoredResponse>(admission);
  Response replayed;
  replayed.status = replay.status;
  replayed.body = std::move(replay.body);
  replayed.headers.emplace_back("Idempotent-Replayed", "true");
  return replayed;
}

Response Answered(const Result<InvokeResult>& result, const InvokeRenderer& render) {
  Response response = render(result);
  if (result) response.headers.emplace_back("X-Agentgate-Turn-Id", result->turn_id);
  return response;
}

}  // namespace

asio::awaitable<Response> InvokeOnce(RouteDeps& deps, InvokeCall call,
                                     const InvokeRenderer& render) {
  call.answer = [&render](const InvokeResult& result) {
    Response rendered = render(result);
    return StoredResponse{rendered.status, std::move(rendered.body)};
  };
  auto admission = co_await deps.invoke.AdmitCall(call);
  auto* command = std::get_if<InvokeCommand>(&admission);
  if (command == nullptr) co_return NotRun(admission, render);
  co_return Answered(co_await deps.invoke.Invoke(*command), render);
}

asio::awaitable<Response> InvokeFromRequest(RouteDeps& deps, Request& r,
                                            Result<InvokeInput> (*read)(const Request&),
                                            Response (*refuse)(const Error&),
                                            const InvokeRenderer& render) {
  auto admitted = co_await AuthenticateAndRead(deps, r, read, refuse);
  if (auto* refused = std::get_if<Response>(&admitted)) co_return std::move(*refused);
  const AuthenticatedCall& ok = std::get<AuthenticatedCall>(admitted);
  co_return co_await InvokeOnce(deps, CallOf(ok, r.trace), render);
}

}  // namespace agentgate::http
