// POST /api/agents/{agent_id}/invoke: the Daemon over HTTP. Decode, run the use case, render.
#include "app/invoke_agent.hpp"
#include "adapters/http_server/handlers/invoke_common.hpp"
#include "adapters/http_server/responses.hpp"
#include "app/idempotency.hpp"
#include "domain/governance/governance.hpp"
#include "domain/json_fields.hpp"
#include "domain/json_text.hpp"

#include <boost/json/object.hpp>

namespace agentgate::http {

namespace asio = boost::asio;
namespace json = boost::json;

json::object InvokeResultJson(const InvokeResult& result) {
  json::object out{{"response", result.response}, {"blocked", result.blocked}};
  out["conversation_id"] =
      result.conversation_id ? json::value(*result.conversation_id) : json::value(nullptr);
  const auto reason = StopReasonName(result.stop_reason);
  out["terminated_reason"] = reason ? json::value(std::string(*reason)) : json::value(nullptr);
  out["usage"] = json::object{{"input_tokens", result.usage.input_tokens},
                              {"output_tokens", result.usage.output_tokens},
                              {"cost_usd", result.cost_usd},
                              {"model_calls", result.model_calls}};
  return out;
}

void AddInvokeRoutes(Router& router, RouteDeps& deps) {
  router.Add("POST", "/api/agents/{agent_id}/invoke",
             [&deps](Request& r) -> asio::awaitable<Response> {
               // Authentication comes before the body is judged, so an anonymous caller learns
               // nothing.
               auto caller = co_await Authenticate(deps.tenants, CallerHeadersOf(r));
               if (!caller) co_return ErrorResponse(caller.error());
               auto body = ParseJsonBody(r);
               if (!body) co_return ErrorResponse(body.error());
               auto request = ParseInvokeRequest(*body);
               if (!request) co_return ErrorResponse(request.error());
               const std::string agent_id = r.Param("agent_id");

               std::optional<std::string> key;
               if (auto header = r.Header("idempotency-key")) {
                 key = std::string(*header);
                 if (auto valid = governance::ValidateIdempotencyKey(*key); !valid)
                   co_return ErrorResponse(valid.error());
               }
               const std::string fingerprint =
                   Idempotency::Fingerprint("invoke", agent_id, json_text::WriteCanonical(*body));
               const InvokeRenderer render = [](const Result<InvokeResult>& result) {
                 return result ? JsonResponse(200, InvokeResultJson(*result))
                               : ErrorResponse(result.error());
               };
               co_return co_await InvokeOnce(deps, *caller, agent_id, std::move(*request), key,
                                             fingerprint, render);
             });
}

}  // namespace agentgate::http
