// POST /api/flow-actions/invoke-agent: the Daemon shaped for Salesforce Flow (SPEC §6). Outputs
// are camelCase; isComplete is false whenever a stop reason is set or the reply was blocked; every
// failure keeps the Daemon's status with {"message": "<status>: <text>"} so a fault path can
// branch on a contains-test.
#include "adapters/http_server/handlers/invoke_common.hpp"
#include "adapters/http_server/responses.hpp"
#include "domain/agent/flow_request.hpp"
#include "domain/governance/governance.hpp"
#include "domain/json_fields.hpp"
#include "domain/json_text.hpp"

#include <boost/json/object.hpp>

namespace agentgate::http {

namespace asio = boost::asio;
namespace json = boost::json;

namespace {

Response FlowFault(const Error& error) {
  const int status = HttpStatusOf(error.code);
  Response response = JsonResponse(
      status, json::object{{"message", std::to_string(status) + ": " + error.message}});
  if (error.retry_after_seconds)
    response.headers.emplace_back("Retry-After", std::to_string(*error.retry_after_seconds));
  return response;
}

Response FlowResult(const InvokeResult& result) {
  const auto reason = StopReasonName(result.stop_reason);
  json::object out{{"response", result.response},
                   {"isComplete", !reason && !result.blocked},
                   {"blocked", result.blocked}};
  out["conversationId"] =
      result.conversation_id ? json::value(*result.conversation_id) : json::value(nullptr);
  out["stoppedBecause"] = reason ? json::value(std::string(*reason)) : json::value(nullptr);
  // A Flow reads text: the parsed answer as JSON text, for Read Agent Output Field.
  out["outputJson"] =
      result.output ? json::value(json_text::Write(*result.output)) : json::value(nullptr);
  // A pause (approval_required, input_required): the run that waits, and what it waits for as
  // JSON text, so a Flow can branch on it (answering from a Flow is done elsewhere).
  out["runId"] = result.run_id.empty() ? json::value(nullptr) : json::value(result.run_id);
  out["pendingActionsJson"] = nullptr;
  if (!result.run_id.empty())
    out["pendingActionsJson"] = json_text::Write(json::value(PendingActionsOf(result)));
  return JsonResponse(200, out);
}

Result<InvokeInput> ReadFlowCall(const Request& r) {
  AG_TRY(auto body, ParseJsonBody(r));
  AG_TRY(auto flow, ParseFlowInvokeRequest(body));
  // The flow input wins; the header is accepted too for HTTP callers.
  std::optional<std::string> key = flow.idempotency_key;
  if (!key) {
    if (auto header = r.Header("idempotency-key")) key = std::string(*header);
  }
  if (key && !governance::ValidateIdempotencyKey(*key))
    return InvalidField("idempotencyKey", "must be 1-255 visible ASCII characters");
  std::string fingerprint;
  if (key) {
    json::object fingerprinted = body.as_object();
    fingerprinted.erase("idempotencyKey");
    fingerprinted.erase("ifBusy");  // not part of the request, as a plain call's if_busy
    fingerprint =
        Idempotency::Fingerprint("flow", flow.agent_id, json_text::WriteCanonical(fingerprinted));
  }
  return InvokeInput{std::move(flow.agent_id), std::move(flow.request), std::move(key),
                     std::move(fingerprint)};
}

Response RenderFlow(const Result<InvokeResult>& result) {
  return result ? FlowResult(*result) : FlowFault(result.error());
}

}  // namespace

void AddFlowActionRoutes(Router& router, RouteDeps& deps) {
  router.Add("POST", "/api/flow-actions/invoke-agent", [&deps](Request& r) {
    static const InvokeRenderer render = RenderFlow;
    return InvokeFromRequest(deps, r, ReadFlowCall, FlowFault, render);
  });
}

}  // namespace agentgate::http
