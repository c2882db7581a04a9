// The OpenAI-compatible API (docs/openai.md): POST /v1/chat/completions runs one stateless turn of
// the agent `model` names, under every rule of the invoke, answered in OpenAI's shapes; GET
// /v1/models lists the agents the credential may chat with. An OpenAI SDK's API key
// (`Authorization: Bearer agk_...`) or the fl-api headers authenticate.
#include "adapters/http_server/handlers/invoke_common.hpp"
#include "adapters/http_server/responses.hpp"
#include "app/idempotency.hpp"
#include "app/openai_body.hpp"
#include "domain/agent/openai_request.hpp"
#include "domain/governance/governance.hpp"
#include "domain/json_text.hpp"

#include <boost/json/array.hpp>
#include <boost/json/object.hpp>

#include <array>
#include <chrono>
#include <utility>

namespace agentgate::http {

namespace asio = boost::asio;
namespace json = boost::json;

namespace {

// An OpenAI error's type, by status (an SDK picks its error class by the status alone).
std::string_view TypeOf(int status) {
  switch (status) {
    case 401:
      return "authentication_error";
    case 402:
      return "insufficient_quota";
    case 403:
      return "permission_error";
    case 404:
      return "not_found_error";
    case 409:
      return "conflict_error";
    case 429:
      return "rate_limit_error";
    case 504:
      return "timeout_error";
    default:
      return status >= 500 ? "server_error" : "invalid_request_error";
  }
}

// The request field at fault in OpenAI's names: the invoke's own, where admission named one.
json::value ParamOf(const Error& error) {
  static constexpr std::array<std::pair<std::string_view, std::string_view>, 4> kOpenAiNames{
      {{"instance_id", "model"},
       {"message", "messages"},
       {"conversation_id", "metadata.conversation_id"},
       {"stateful", "metadata.conversation_id"}}};
  const auto field = error.field();
  if (!field) return nullptr;
  for (const auto& [ours, theirs] : kOpenAiNames) {
    if (*field == ours) return json::string(theirs);
  }
  return json::string(*field);
}

// OpenAI's error shape with agentgate's status. The SDKs retry 408, 409, 429 and 5xx on their own;
// a spend limit, a key already running and the turn cap say not to, or one call could pay for
// three turns.
Response OpenAiError(const Error& error) {
  const int status = HttpStatusOf(error.code);
  json::object body{{"message", error.message},
                    {"type", TypeOf(status)},
                    {"code", ErrorCodeName(error.code)},
                    {"param", ParamOf(error)}};
  for (const auto& [key, detail] : error.details) {
    if (const auto* text = std::get_if<std::string>(&detail)) {
      body[key] = *text;
    } else {
      body[key] = std::get<double>(detail);
    }
  }
  Response response = JsonResponse(status, json::object{{"error", std::move(body)}});
  if (error.retry_after_seconds)
    response.headers.emplace_back("Retry-After", std::to_string(*error.retry_after_seconds));
  if (status == 402 || status == 409 || status == 504)
    response.headers.emplace_back("x-should-retry", "false");
  return response;
}

std::int64_t NowSeconds() {
  return std::chrono::duration_cast<std::chrono::seconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

// The model named after the agent, and the call's Idempotency-Key as on invoke.
Result<InvokeInput> ReadChatCall(const Request& r) {
  AG_TRY(auto body, ParseJsonBody(r));
  AG_TRY(auto chat, ParseChatCompletionRequest(body));
  InvokeInput call{std::move(chat.agent_id), std::move(chat.request), std::nullopt, "", {}};
  if (auto header = r.Header("idempotency-key")) {
    call.key = std::string(*header);
    AG_TRYV(governance::ValidateIdempotencyKey(*call.key));
    call.fingerprint =
        Idempotency::Fingerprint("chat", call.agent_id, json_text::WriteCanonical(body));
  }
  return call;
}

// The model as the request named it: the agent, and its instance.
std::string ModelOf(const InvokeInput& call) {
  return call.request.instance_id ? call.agent_id + ":" + *call.request.instance_id : call.agent_id;
}

asio::awaitable<Response> ChatCompletion(RouteDeps& deps, Request& r) {
  auto read = co_await AuthenticateAndRead(deps, r, ReadChatCall, OpenAiError);
  if (auto* refused = std::get_if<Response>(&read)) co_return std::move(*refused);
  const AuthenticatedCall& ok = std::get<AuthenticatedCall>(read);
  const InvokeRenderer render = [model = ModelOf(ok.call)](const Result<InvokeResult>& result) {
    if (!result) return OpenAiError(result.error());
    return JsonResponse(200, ChatCompletionBody(*result, model, NowSeconds()));
  };
  co_return co_await InvokeOnce(deps, ok.caller, ok.call.agent_id, ok.call.request, ok.call.key,
                                ok.call.fingerprint, render, nullptr, nullptr, r.trace);
}

asio::awaitable<Response> ListModels(RouteDeps& deps, Request& r) {
  auto caller = co_await Authenticate(deps.tenants, CallerHeadersOf(r));
  if (!caller) co_return OpenAiError(caller.error());
  auto agents = co_await deps.invoke.ChatAgents(*caller);
  if (!agents) co_return OpenAiError(agents.error());
  json::array data;
  for (const auto& a : *agents) {
    data.push_back(json::object{{"id", a.agent_id},
                                {"object", "model"},
                                {"created", a.agent->created_at_ms / 1000},
                                {"owned_by", caller->org_id}});
  }
  co_return JsonResponse(200, json::object{{"object", "list"}, {"data", std::move(data)}});
}

}  // namespace

void AddOpenAiRoutes(Router& router, RouteDeps& deps) {
  router.Add("POST", "/v1/chat/completions",
             [&deps](Request& r) { return ChatCompletion(deps, r); });
  router.Add("GET", "/v1/models", [&deps](Request& r) { return ListModels(deps, r); });
}

}  // namespace agentgate::http
