// The Responses API (docs/openai.md, "Responses"): POST /v1/responses runs one turn of the agent
// `model` names, stored as a conversation that `previous_response_id` continues, answered whole,
// streamed as the API's typed events, or run in the background; GET /v1/responses/{id} reads a
// background or streamed response back from its run, and POST .../cancel cancels it. Every rule of
// the invoke holds; errors are OpenAI's, `param` in the Responses API's names.
#include "adapters/http_server/handlers/openai_common.hpp"
#include "adapters/http_server/handlers/run_stream.hpp"
#include "adapters/http_server/responses.hpp"
#include "app/openai/conversations.hpp"
#include "app/openai/input_references.hpp"
#include "app/openai/responses.hpp"
#include "app/turn/idempotency.hpp"
#include "domain/governance/governance.hpp"
#include "domain/json_text.hpp"
#include "domain/openai/response_events.hpp"
#include "domain/openai/response_request.hpp"
#include "domain/resource_ids.hpp"

#include <boost/json/object.hpp>
#include <boost/json/parse.hpp>

namespace agentgate::http {

namespace asio = boost::asio;
namespace json = boost::json;

namespace {

// What a POST asks for, read before its turn runs.
struct ResponseCall {
  ResponseRequest asked;
  std::optional<std::string> key;  // Idempotency-Key
  std::string fingerprint;
};

Result<ResponseCall> ReadResponseCall(const Request& r) {
  AG_TRY(auto body, ParseJsonBody(r));
  AG_TRY(auto asked, ParseResponseRequest(body));
  ResponseCall call{std::move(asked), std::nullopt, ""};
  if (auto header = r.Header("idempotency-key")) {
    call.key = std::string(*header);
    AG_TRYV(governance::ValidateIdempotencyKey(*call.key));
    call.fingerprint =
        Idempotency::Fingerprint("responses", call.asked.agent_id, json_text::WriteCanonical(body));
  }
  return call;
}

openai::ResponseHeader HeaderOf(const ResponseRequest& asked) {
  openai::ResponseHeader header;
  header.model = asked.model;
  header.created_at = NowSeconds();
  header.instructions = asked.instructions;
  header.previous_response_id = asked.previous_response_id;
  header.conversation = asked.conversation;
  header.background = asked.background;
  header.store = asked.store;
  header.text_format = asked.text_format;
  header.metadata = asked.metadata;
  return header;
}

// What a stored response was asked, kept for its read-back (none for a stateless one, or for the
// default ask).
std::optional<ResponseAsk> AskOf(const Caller& caller, const openai::ResponseHeader& header) {
  if (!header.store) return std::nullopt;
  auto asked = openai::AskedOf(header);
  if (!asked) return std::nullopt;
  return ResponseAsk{header.id, caller.org_id, caller.env, std::move(*asked),
                     header.created_at * 1000};
}

// Keeps the ask before the response is answered, so a read that follows the answer sees it. The
// response stands if it cannot be kept: its turn ran, and only the echo of what it was asked is
// lost.
asio::awaitable<void> KeepAsk(RouteDeps& deps, const Caller& caller,
                              const openai::ResponseHeader& header) {
  const auto ask = AskOf(caller, header);
  if (!ask) co_return;
  (void)co_await deps.store.Run([&](Store& s) { return s.PutResponseAsk(*ask); });
}

// A background response: queued as a background run; the answer is the response as queued (a
// replay of its key, the response as it stands).
asio::awaitable<Response> Background(RouteDeps& deps, const InvokeCall& call,
                                     openai::ResponseHeader header) {
  QueueAnswer answer = co_await deps.runs.Queue(call, /*notify=*/true);
  if (auto* replay = std::get_if<StoredResponse>(&answer)) {
    boost::system::error_code ec;
    const json::value stored = json::parse(replay->body, ec);
    const json::value* run_id =
        !ec && stored.is_object() ? stored.get_object().if_contains("run_id") : nullptr;
    if (run_id == nullptr || !run_id->is_string())
      co_return ResponsesError(Error(ErrorCode::kIdempotencyKeyReused,
                                     "field 'Idempotency-Key': was used by another kind of call"));
    auto read = co_await ReadResponse(deps.store, deps.runs, call.caller,
                                      ids::ResponseOf(std::string_view(run_id->get_string())));
    if (!read) co_return ResponsesError(read.error());
    Response replayed = JsonResponse(200, *read);
    replayed.headers.emplace_back("Idempotent-Replayed", "true");
    co_return replayed;
  }
  const auto& run = std::get<Result<RunRecord>>(answer);
  if (!run) co_return ResponsesError(run.error());
  header.id = ids::ResponseOf(run->id);
  co_await KeepAsk(deps, call.caller, header);
  Response response = JsonResponse(200, ResponseOfRun(*run, header));
  response.headers.emplace_back("Location", RunLocation(deps, run->id));
  co_return response;
}

// A streamed response: a streamed run (docs/runs.md), its events sent as the Responses API's.
asio::awaitable<Response> Streamed(RouteDeps& deps, Request& r, InvokeCall call,
                                   openai::ResponseHeader header) {
  // The stream's run is named as it starts: its ask is kept then, without holding the stream.
  auto format_of = [header, &deps, caller = call.caller](const std::string& run_id) {
    openai::ResponseHeader named = header;
    named.id = ids::ResponseOf(run_id);
    if (auto ask = AskOf(caller, named))
      deps.store.Post([ask = std::move(*ask)](Store& s) { (void)s.PutResponseAsk(ask); });
    return std::make_shared<OpenAiStreamFrames<openai::ResponseEventWriter>>(
        openai::ResponseEventWriter(std::move(named)));
  };
  // With a key, the turn's commit stores the whole stream its end makes, to replay.
  call.answer = WholeStreamAnswer(
      [format_of](const InvokeResult& result) { return format_of(RunIdOf(result)); });
  co_return co_await StreamCall(deps, r, call, OpenAiStreamShape(ResponsesError, format_of));
}

asio::awaitable<Response> CreateResponse(RouteDeps& deps, Request& r) {
  auto caller = co_await Authenticate(deps.tenants, CallerHeadersOf(r));
  if (!caller) co_return ResponsesError(caller.error());
  auto read = ReadResponseCall(r);
  if (!read) co_return ResponsesError(read.error());
  r.ReleasePayload();
  ResponseCall& asked = *read;
  InvokeRequest& request = asked.asked.request;
  if (!asked.asked.resolve.empty()) {
    auto read_in = co_await ReadReferences(deps.store, deps.tenants, *caller, asked.asked);
    if (!read_in) co_return ResponsesError(read_in.error());
  }
  // previous_response_id, or the stored message the input last names (an item_reference, a
  // reply resent with its id): its conversation is continued.
  std::optional<std::pair<std::string, std::string>> continuing;
  if (const auto& previous = asked.asked.previous_response_id) {
    continuing.emplace(*previous, "previous_response_id");
  } else if (const auto& reference = asked.asked.continues) {
    continuing.emplace(ids::ResponseOf(reference->message_id), reference->field);
  }
  if (continuing) {
    auto continued = co_await ContinuedFrom(deps.store, deps.runs, *caller, continuing->first,
                                            continuing->second);
    if (!continued) {
      // An input item naming a message that is not there is a bad item, as a reference read into
      // the history is (previous_response_id keeps its 404).
      if (continued.error().code == ErrorCode::kNotFound && asked.asked.continues &&
          !asked.asked.previous_response_id) {
        co_return ResponsesError(
            InvalidField(continuing->second,
                         "names no stored message this key may read (unknown, another "
                         "environment's, or past its retention)"));
      }
      co_return ResponsesError(continued.error());
    }
    request.conversation_id = std::move(continued->conversation_id);
    request.after_turn_id = std::move(continued->turn_id);
  }
  if (const auto& conversation = asked.asked.conversation) {
    OpenAiConversations conversations(deps.store, deps.tenants, *caller);
    const std::string instance_id = request.instance_id.value_or("");
    auto bound =
        co_await conversations.BindForResponse(*conversation, asked.asked.agent_id, instance_id);
    if (!bound) co_return ResponsesError(bound.error());
    request.conversation_id = *conversation;
  }
  openai::ResponseHeader header = HeaderOf(asked.asked);
  const InvokeCall call{.caller = *caller,
                        .agent_id = asked.asked.agent_id,
                        .request = request,
                        .key = asked.key,
                        .fingerprint = asked.fingerprint,
                        .trace = r.trace};
  if (asked.asked.stream) co_return co_await Streamed(deps, r, call, std::move(header));
  // A queued run's key stores its 202: the call's own answer renders nothing.
  if (asked.asked.background) co_return co_await Background(deps, call, std::move(header));
  auto answered = std::make_shared<std::optional<openai::ResponseHeader>>();
  // The whole response of a plain call: the turn's id names it, or its run's when it paused.
  const InvokeRenderer render = [header, answered](const Result<InvokeResult>& result) {
    if (!result) return ResponsesError(result.error());
    auto& named = answered->emplace(header);
    named.id = ids::ResponseOf(result->run_id.empty() ? result->turn_id : result->run_id);
    return JsonResponse(200, openai::AnsweredResponse(named, InvokeBody(*result)));
  };
  Response response = co_await InvokeOnce(deps, call, render);
  if (*answered) co_await KeepAsk(deps, *caller, **answered);
  co_return response;
}

// GET /v1/responses/{id} and its cancel: the response as its run stands.
template <typename Use>
asio::awaitable<Response> OnStoredResponse(RouteDeps& deps, Request& r, Use use) {
  auto caller = co_await Authenticate(deps.tenants, CallerHeadersOf(r));
  if (!caller) co_return ResponsesError(caller.error());
  auto response = co_await use(deps.runs, *caller, r.Param("response_id"));
  if (!response) co_return ResponsesError(response.error());
  co_return JsonResponse(200, *response);
}

asio::awaitable<Response> InputItems(RouteDeps& deps, Request& r) {
  auto caller = co_await Authenticate(deps.tenants, CallerHeadersOf(r));
  if (!caller) co_return ResponsesError(caller.error());
  auto query = ListQueryOf(r);
  if (!query) co_return ResponsesError(query.error());
  auto items = co_await ReadInputItems(deps.store, deps.tenants, deps.runs, *caller,
                                       r.Param("response_id"), *query);
  if (!items) co_return ResponsesError(items.error());
  co_return JsonResponse(200, *items);
}

}  // namespace

void AddOpenAiResponseRoutes(Router& router, RouteDeps& deps) {
  router.Add(
      "POST", "/v1/responses", [&deps](Request& r) { return CreateResponse(deps, r); },
      ResponsesError);
  router.Add(
      "GET", "/v1/responses/{response_id}",
      [&deps](Request& r) {
        return OnStoredResponse(
            deps, r, [&deps](Runs& runs, const Caller& caller, const std::string& id) {
              return ReadStoredResponse(deps.store, deps.tenants, runs, caller, id);
            });
      },
      ResponsesError);
  router.Add(
      "POST", "/v1/responses/{response_id}/cancel",
      [&deps](Request& r) {
        return OnStoredResponse(deps, r,
                                [&deps](Runs& runs, const Caller& caller, const std::string& id) {
                                  return CancelResponse(deps.store, runs, caller, id);
                                });
      },
      ResponsesError);
  router.Add(
      "GET", "/v1/responses/{response_id}/input_items",
      [&deps](Request& r) { return InputItems(deps, r); }, ResponsesError);
}

}  // namespace agentgate::http
