#include "adapters/http_server/handlers/mcp_elicitation.hpp"

#include "app/turn/invoke_body.hpp"
#include "domain/json_text.hpp"
#include "domain/mcp/elicitation.hpp"
#include "domain/runs/run_events.hpp"

#include <boost/json/parse.hpp>

namespace agentgate::http::mcp_elicitation {

namespace asio = boost::asio;
namespace json = boost::json;

namespace {

constexpr std::string_view kLegacyIdPrefix = "agentgate-elicit:";
constexpr auto kLookEvery = std::chrono::seconds(10);  // a quiet stream's keep-alive

std::string Str(const json::object& o, std::string_view key) {
  const auto* v = o.if_contains(key);
  return v != nullptr && v->is_string() ? std::string(v->get_string()) : std::string();
}

std::string PausedText(const json::object& body, std::string_view reason) {
  std::size_t approvals = 0;
  std::size_t questions = 0;
  for (const auto& need : body.at("pending_actions").as_array()) {
    if (need.is_object())
      (Str(need.get_object(), "kind") == "question" ? questions : approvals) += 1;
  }
  const std::string run_id = Str(body, "run_id");
  // Without elicitation the client is told what the run waits for and where it is met.
  return "paused (" + std::string(reason.empty() ? "approval_required" : reason) + "): run " +
         run_id + " waits for " +
         (approvals > 0 ? std::to_string(approvals) + " tool call approval(s)" : "") +
         (approvals > 0 && questions > 0 ? " and " : "") +
         (questions > 0 ? std::to_string(questions) + " answer(s) to the agent's question" : "") +
         "; decide or answer at POST /api/runs/" + run_id +
         "/approvals (the run's pending_actions say what).\n\n";
}

json::object ErrorAsToolResult(int status, std::string_view code, std::string_view message) {
  return mcp::CallToolResult(
      std::to_string(status) + " " + std::string(code) + ": " + std::string(message), {}, true);
}

// A run.failed event's error body ({status, error: {code, message}}) as a tool result.
json::object FailedAsToolResult(std::string_view data) {
  boost::system::error_code ec;
  const json::value v = json::parse(data, ec);
  const auto* o = ec ? nullptr : v.if_object();
  const auto* status = o != nullptr ? o->if_contains("status") : nullptr;
  const auto* error = o != nullptr ? o->if_contains("error") : nullptr;
  if (status == nullptr || !status->is_int64() || error == nullptr || !error->is_object())
    return ErrorAsToolResult(500, "internal", "the run failed");
  return ErrorAsToolResult(static_cast<int>(status->get_int64()), Str(error->get_object(), "code"),
                           Str(error->get_object(), "message"));
}

// The elicitation/create request a 2025 client is sent for a pause with one need, its id the
// sealed state; nullopt when the pause has several (they are told as text).
std::optional<std::string> LegacyRequest(const Elicits& elicits, const json::object& body) {
  const auto* listed = body.if_contains("pending_actions");
  if (listed == nullptr || !listed->is_array() || listed->get_array().size() != 1)
    return std::nullopt;
  const auto& pending = listed->get_array();
  auto elicitation = mcp::ElicitationOf(elicits.agent_id, pending);
  const std::string call_id = elicitation.needs.front().call_id;
  const std::string state = elicits.states->Seal(McpRequestState{
      Str(body, "run_id"), elicits.agent_id, elicits.caller, 0, std::move(elicitation.needs)});
  const auto& request = elicitation.input_requests.at(call_id).as_object();
  return json_text::Write(
      json::object{{"jsonrpc", "2.0"},
                   {"id", std::string(kLegacyIdPrefix) + state},
                   {"method", "elicitation/create"},
                   {"params", mcp::LegacyElicitParams(request, elicits.era.version)}});
}

// What the stream that asked writes next for a run event: the call's result at the run's end,
// another question at its next pause (else its result as text), nothing for the rest.
struct NextMessage {
  std::string message;
  bool last = false;
};
std::optional<NextMessage> AfterEvent(const json::value& id, const Elicits& elicits,
                                      const RunEvent& event) {
  if (event.type == "run.failed") {
    return NextMessage{
        mcp::ResultBody(id, mcp::Finished(FailedAsToolResult(event.data), elicits.era)), true};
  }
  if (event.type != "run.completed" && event.type != "run.requires_action") return std::nullopt;
  boost::system::error_code ec;
  json::value parsed = json::parse(event.data, ec);
  if (ec || !parsed.is_object()) return std::nullopt;  // (the run's own writing: never so)
  json::object body = std::move(parsed.get_object());
  if (event.type == "run.requires_action") {
    if (auto asked = LegacyRequest(elicits, body)) return NextMessage{mcp::SseMessage(*asked)};
  }
  return NextMessage{
      mcp::ResultBody(id, mcp::Finished(BodyAsToolResult(std::move(body)), elicits.era)), true};
}

// A 2025 call's stream after its turn paused: the question, then the run followed (wherever it
// goes on) to its end, each later pause asked again. The client leaving ends only the stream.
asio::awaitable<void> AskAndFollow(RouteDeps& deps, ResponseStream& out, json::value id,
                                   Elicits elicits, std::string run_id, std::string asked) {
  RunCursor cursor{std::move(run_id), 0, nullptr, nullptr};
  // What the run wrote until its pause is not this stream's to say.
  if (!co_await deps.runs.NextEvents(cursor, std::chrono::milliseconds(0), [](const RunEvent&) {}))
    co_return;
  if (!co_await out.Write(mcp::SseMessage(asked))) co_return;
  for (;;) {
    std::vector<NextMessage> next;
    auto read = co_await deps.runs.NextEvents(cursor, kLookEvery, [&](const RunEvent& event) {
      if (auto message = AfterEvent(id, elicits, event)) next.push_back(std::move(*message));
    });
    if (!read) {
      const auto& e = read.error();
      co_await out.WriteLast(mcp::SseMessage(mcp::ResultBody(
          id,
          mcp::Finished(ErrorAsToolResult(HttpStatusOf(e.code), ErrorCodeName(e.code), e.message),
                        elicits.era))));
      co_return;
    }
    std::string frames;
    for (auto& message : next) {
      if (message.last) {
        co_await out.WriteLast(frames + mcp::SseMessage(message.message));
        co_return;
      }
      frames += message.message;
    }
    if (frames.empty()) frames = ": keep-alive\n\n";
    if (!co_await out.Write(std::move(frames))) co_return;
  }
}

}  // namespace

Response RpcResponse(int status, std::string body) {
  Response response;
  response.status = status;
  response.body = std::move(body);
  return response;
}

json::object BodyAsToolResult(json::object body) {
  std::string text = Str(body, "response");
  const auto* reason_value = body.if_contains("terminated_reason");
  const std::string reason =
      reason_value != nullptr && reason_value->is_string() ? Str(body, "terminated_reason") : "";
  const auto* blocked_value = body.if_contains("blocked");
  const bool blocked =
      blocked_value != nullptr && blocked_value->is_bool() && blocked_value->get_bool();
  const auto* pending = body.if_contains("pending_actions");
  if (blocked) {
    text = "blocked: the agent's safety policy withheld the reply.\n\n" + text;
  } else if (pending != nullptr && pending->is_array() && !pending->get_array().empty()) {
    text = PausedText(body, reason) + text;
  } else if (!reason.empty()) {
    text = "stopped early (" + reason + "): the reply may be incomplete.\n\n" + text;
  }
  body.erase("response");  // (the text says it)
  return mcp::CallToolResult(std::move(text), std::move(body), blocked || !reason.empty());
}

json::object TurnAsToolResult(const Result<InvokeResult>& result) {
  if (!result) {
    const auto& e = result.error();
    return ErrorAsToolResult(HttpStatusOf(e.code), ErrorCodeName(e.code), e.message);
  }
  return BodyAsToolResult(InvokeBody(*result));
}

Elicits ElicitsOf(const RouteDeps& deps, const Request& r, const Caller& caller,
                  const std::string& agent_id, const mcp::IncomingMessage& message,
                  const mcp::Era& era) {
  Elicits elicits{nullptr, !era.modern, caller, agent_id, era};
  if (deps.mcp_request_states == nullptr || !deps.mcp_request_states->enabled()) return elicits;
  bool takes = false;
  if (era.modern) {
    takes = mcp::AcceptsFormElicitation(message.params);
  } else {
    // A 2025 client is asked on the call's stream, so it must take one.
    const auto accept = r.Header("accept");
    const auto session = r.Header("mcp-session-id");
    takes = accept && accept->find("text/event-stream") != std::string_view::npos && session &&
            mcp::LegacySessionTakesForms(*session);
  }
  if (takes) elicits.states = deps.mcp_request_states;
  return elicits;
}

std::optional<Response> Elicited(RouteDeps& deps, const json::value& id, const Elicits& elicits,
                                 const Result<InvokeResult>& result) {
  if (elicits.states == nullptr || !result || result->run_id.empty() ||
      result->pending_actions.empty() || !Pauses(result->stop_reason))
    return std::nullopt;
  if (elicits.legacy) {
    auto asked = LegacyRequest(elicits, InvokeBody(*result));
    if (!asked) return std::nullopt;
    Response streamed;
    streamed.content_type = "text/event-stream";
    streamed.stream = [&deps, id, elicits, run_id = result->run_id,
                       asked = std::move(*asked)](ResponseStream& out) -> asio::awaitable<void> {
      co_await AskAndFollow(deps, out, id, elicits, run_id, asked);
    };
    return streamed;
  }
  auto elicitation = mcp::ElicitationOf(elicits.agent_id, PendingActionsOf(*result));
  const std::string state = elicits.states->Seal(McpRequestState{
      result->run_id, elicits.agent_id, elicits.caller, 0, std::move(elicitation.needs)});
  return RpcResponse(200, mcp::ResultBody(id, mcp::InputRequiredResult(
                                                  std::move(elicitation.input_requests), state)));
}

asio::awaitable<Response> AnswerInput(RouteDeps& deps, const Caller& caller,
                                      const std::string& agent_id,
                                      const mcp::IncomingMessage& message,
                                      const InvokeRenderer& render) {
  const auto invalid = [&message](const Error& e) {
    return RpcResponse(
        200, mcp::ErrorBody(message.id, mcp::RpcError{mcp::kInvalidParams, e.message, nullptr}));
  };
  const auto* sealed = message.params.if_contains("requestState");
  if (!sealed->is_string())
    co_return invalid(InvalidField("params.requestState", "must be a string"));
  if (deps.mcp_request_states == nullptr)
    co_return invalid(InvalidField("params.requestState", "is not one this server gave"));
  auto state = deps.mcp_request_states->Open(sealed->get_string(), caller);
  if (!state) co_return invalid(state.error());
  if (state->agent_id != agent_id)
    co_return invalid(InvalidField("params.requestState", "was given for another tool"));
  auto decisions =
      mcp::ReadInputResponses(message.params.if_contains("inputResponses"), state->needs);
  if (!decisions) co_return invalid(decisions.error());
  auto decided = co_await deps.runs.Decide(caller, state->run_id, std::move(*decisions));
  if (!decided) co_return render(decided.error());  // expired, decided already, not allowed
  if (auto* result = std::get_if<InvokeResult>(&*decided)) co_return render(std::move(*result));
  co_return render(Error(ErrorCode::kInternal, "the run went on in the background"));
}

asio::awaitable<Response> AnswerElicitation(RouteDeps& deps, const Caller& caller,
                                            const mcp::IncomingMessage& response) {
  const auto refused = [](int status, const Error& e) {
    return RpcResponse(
        status, mcp::ErrorBody(nullptr, mcp::RpcError{mcp::kInvalidParams, e.message, nullptr}));
  };
  const std::string id = response.id.is_string() ? std::string(response.id.get_string()) : "";
  if (!id.starts_with(kLegacyIdPrefix) || deps.mcp_request_states == nullptr) {
    co_return refused(
        400, Error(ErrorCode::kInvalidRequest, "this response answers no request of this server"));
  }
  auto state =
      deps.mcp_request_states->Open(std::string_view(id).substr(kLegacyIdPrefix.size()), caller);
  if (!state) co_return refused(400, state.error());
  // A client that failed to ask its user answered nothing: as a cancel.
  const json::value result = response.result.is_object()
                                 ? response.result
                                 : json::value(json::object{{"action", "cancel"}});
  const json::value responses = json::object{{state->needs.front().call_id, result}};
  auto decisions = mcp::ReadInputResponses(&responses, state->needs);
  if (!decisions) co_return refused(400, decisions.error());
  decisions->background = true;  // any server goes on with it; the stream that asked follows
  auto decided = co_await deps.runs.Decide(caller, state->run_id, std::move(*decisions));
  if (!decided) co_return refused(HttpStatusOf(decided.error().code), decided.error());
  co_return RpcResponse(202, "");
}

}  // namespace agentgate::http::mcp_elicitation
