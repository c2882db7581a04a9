#include "adapters/http_server/handlers/invoke_common.hpp"

namespace agentgate::http {

namespace asio = boost::asio;

CallerHeaders CallerHeadersOf(const Request& r) {
  auto get = [&](std::string_view name) -> std::optional<std::string> {
    auto v = r.Header(name);
    return v ? std::optional<std::string>(std::string(*v)) : std::nullopt;
  };
  return CallerHeaders{get("fl-api-org"), get("fl-api-token"), get("fl-api-env")};
}

asio::awaitable<Response> InvokeOnce(RouteDeps& deps, const Caller& caller, InvokeCommand command,
                                     const std::optional<std::string>& key,
                                     const std::string& fingerprint, const InvokeRenderer& render) {
  if (key) {
    auto claim = co_await deps.idempotency.Claim(caller, *key, fingerprint);
    if (!claim) co_return render(claim.error());
    if (*claim) {
      Response replay;
      replay.status = (*claim)->status;
      replay.body = (*claim)->body;
      replay.headers.emplace_back("Idempotent-Replayed", "true");
      co_return replay;
    }
  }
  const Result<InvokeResult> result = co_await deps.invoke.Invoke(std::move(command));
  Response response = render(result);
  if (result) response.headers.emplace_back("X-Agentgate-Turn-Id", result->turn_id);
  if (key) {
    const StoredResponse outcome{response.status, response.body};
    co_await deps.idempotency.Finish(caller, *key, outcome);
  }
  co_return response;
}

}  // namespace agentgate::http
