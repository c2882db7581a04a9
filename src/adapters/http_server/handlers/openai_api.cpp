// The OpenAI-compatible API (docs/openai.md): POST /v1/chat/completions runs one stateless turn of
// the agent `model` names, under every rule of the invoke, answered in OpenAI's shapes; GET
// /v1/models lists the agents the credential may chat with. An OpenAI SDK's API key
// (`Authorization: Bearer agk_...`) or the fl-api headers authenticate.
#include "adapters/http_server/handlers/openai_common.hpp"
#include "adapters/http_server/handlers/run_stream.hpp"
#include "adapters/http_server/responses.hpp"
#include "app/openai/openai_body.hpp"
#include "app/turn/idempotency.hpp"
#include "domain/governance/governance.hpp"
#include "domain/json_text.hpp"
#include "domain/openai/chat_chunks.hpp"
#include "domain/openai/chat_request.hpp"
#include "domain/resource_ids.hpp"

#include <boost/json/array.hpp>
#include <boost/json/object.hpp>

namespace agentgate::http {

namespace asio = boost::asio;
namespace json = boost::json;

namespace {

// The model named after the agent, and the call's Idempotency-Key as on invoke.
Result<InvokeInput> ReadChatCall(const Request& r) {
  AG_TRY(auto body, ParseJsonBody(r));
  AG_TRY(auto chat, ParseChatCompletionRequest(body));
  InvokeInput call{std::move(chat.agent_id), std::move(chat.request), std::nullopt, "", {}};
  call.delivery.stream = chat.stream;
  call.stream_usage = chat.include_usage;
  if (auto header = r.Header("idempotency-key")) {
    call.key = std::string(*header);
    AG_TRYV(governance::ValidateIdempotencyKey(*call.key));
    call.fingerprint =
        Idempotency::Fingerprint("chat", call.agent_id, json_text::WriteCanonical(body));
  }
  return call;
}

// A streamed chat completion: a streamed run (docs/runs.md), its events sent as OpenAI's chunks.
asio::awaitable<Response> StreamedChat(RouteDeps& deps, Request& r, const AuthenticatedCall& ok) {
  const std::int64_t created = NowSeconds();
  auto format_of = [model = ModelOf(ok.call), created,
                    usage = ok.call.stream_usage](const std::string& run_id) {
    return std::make_shared<OpenAiStreamFrames<openai::ChatChunkWriter>>(openai::ChatChunkWriter(
        openai::ChunkStream{ids::ChatCompletionOf(run_id), model, created, usage}));
  };
  InvokeCall call = CallOf(ok, r.trace);
  // With a key, the turn's commit stores the whole stream its end makes, to replay.
  call.answer = WholeStreamAnswer(
      [format_of](const InvokeResult& result) { return format_of(RunIdOf(result)); });
  co_return co_await StreamCall(deps, r, call, OpenAiStreamShape(OpenAiError, format_of));
}

asio::awaitable<Response> ChatCompletion(RouteDeps& deps, Request& r) {
  auto read = co_await AuthenticateAndRead(deps, r, ReadChatCall, OpenAiError);
  if (auto* refused = std::get_if<Response>(&read)) co_return std::move(*refused);
  const AuthenticatedCall& ok = std::get<AuthenticatedCall>(read);
  if (ok.call.delivery.stream) co_return co_await StreamedChat(deps, r, ok);
  const InvokeRenderer render = [model = ModelOf(ok.call)](const Result<InvokeResult>& result) {
    if (!result) return OpenAiError(result.error());
    return JsonTextResponse(200, ChatCompletionText(*result, model, NowSeconds()));
  };
  co_return co_await InvokeOnce(deps, CallOf(ok, r.trace), render);
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
  // Every /v1 answer is in OpenAI's shape, on unrouted paths too (the SDKs read no other).
  router.AddErrorShape("/v1/", OpenAiError);
  router.Add(
      "POST", "/v1/chat/completions", [&deps](Request& r) { return ChatCompletion(deps, r); },
      OpenAiError);
  router.Add(
      "GET", "/v1/models", [&deps](Request& r) { return ListModels(deps, r); }, OpenAiError);
}

}  // namespace agentgate::http
