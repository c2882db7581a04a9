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

namespace {

Result<InvokeInput> ReadInvokeCall(const Request& r) {
  AG_TRY(auto body, ParseJsonBody(r));
  AG_TRY(auto request, ParseInvokeRequest(body));
  InvokeInput call{r.Param("agent_id"), std::move(request), std::nullopt, ""};
  if (auto header = r.Header("idempotency-key")) {
    call.key = std::string(*header);
    AG_TRYV(governance::ValidateIdempotencyKey(*call.key));
    call.fingerprint =
        Idempotency::Fingerprint("invoke", call.agent_id, json_text::WriteCanonical(body));
  }
  return call;
}

Response RenderInvoke(const Result<InvokeResult>& result) {
  return result ? JsonResponse(200, InvokeResultJson(*result)) : ErrorResponse(result.error());
}

}  // namespace

void AddInvokeRoutes(Router& router, RouteDeps& deps) {
  router.Add("POST", "/api/agents/{agent_id}/invoke", [&deps](Request& r) {
    static const InvokeRenderer render = RenderInvoke;
    return InvokeFromRequest(deps, r, ReadInvokeCall, ErrorResponse, render);
  });
}

}  // namespace agentgate::http
