// POST /mcp: agentgate's agents as the tools of an MCP server (Streamable HTTP, docs/mcp.md). The
// fl-api headers, an API key or an access token of the built-in authorization server authenticate
// the caller (401/400 as for invoke, the 401 with a Bearer challenge) before any JSON-RPC is read;
// tools/list lists the agents the token may chat with in its environment, and tools/call runs one
// turn under every rule of the invoke route. Answers are single JSON bodies, but for a tools/call
// with `_meta.progressToken` from a client that accepts text/event-stream: an SSE stream of
// notifications/progress, one per step of the turn, then the result.
#include "domain/mcp/mcp_server.hpp"
#include "adapters/http_server/handlers/invoke_common.hpp"
#include "adapters/http_server/handlers/mcp_elicitation.hpp"
#include "adapters/http_server/handlers/oauth_common.hpp"
#include "adapters/http_server/responses.hpp"
#include "app/turn/invoke_body.hpp"
#include "crypto/crypto.hpp"
#include "domain/agent/invoke_request.hpp"
#include "domain/json_text.hpp"
#include "domain/mcp/elicitation.hpp"
#include "domain/mcp/mcp_origin.hpp"
#include "runtime/runs/turn_observer.hpp"
#include "runtime/tracer.hpp"
#include "runtime/turn_cancel.hpp"

#include <boost/asio/as_tuple.hpp>
#include <boost/asio/co_spawn.hpp>
#include <boost/asio/detached.hpp>
#include <boost/asio/experimental/awaitable_operators.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/this_coro.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <boost/json/object.hpp>

#include <map>
#include <memory>
#include <mutex>

namespace agentgate::http {

namespace asio = boost::asio;
namespace json = boost::json;

namespace {

using namespace mcp_elicitation;

constexpr std::string_view kServerVersion = "1";

// The tools/call requests running on this server, so a notifications/cancelled can end one. Keyed
// by the caller's token and session, so nobody else can cancel them.
class RunningCalls {
 public:
  std::string Add(const std::string& key, std::shared_ptr<TurnCancel> cancel) {
    std::lock_guard lock(mutex_);
    calls_[key] = std::move(cancel);
    return key;
  }
  void Remove(const std::string& key) {
    std::lock_guard lock(mutex_);
    calls_.erase(key);
  }
  void Cancel(const std::string& key) {
    std::lock_guard lock(mutex_);
    if (auto it = calls_.find(key); it != calls_.end()) it->second->Cancel();
  }

 private:
  std::mutex mutex_;
  std::map<std::string, std::shared_ptr<TurnCancel>> calls_;  // only while each call runs
};

std::string CallKey(const Caller& caller, const Request& r, const json::value& id) {
  return caller.token_id + "\n" + std::string(r.Header("mcp-session-id").value_or("")) + "\n" +
         json_text::Write(id);
}

// A tools/call's answer; its span (the MCP server span) says whether the tool result is an error.
// A paused turn is asked of a client that takes forms.
Response AnswerCall(RouteDeps& deps, const json::value& id, const mcp::Era& era,
                    const Result<InvokeResult>& result, Span* span, const Elicits& elicits) {
  if (auto elicited = Elicited(deps, id, elicits, result)) {
    if (span != nullptr && span->recording())
      span->Set("mcp.result.type", std::string("input_required"));
    return std::move(*elicited);
  }
  json::object tool_result = TurnAsToolResult(result);
  if (span != nullptr && span->recording()) {
    const auto* is_error = tool_result.if_contains("isError");
    if (is_error != nullptr && is_error->is_bool() && is_error->get_bool()) {
      span->Set("error.type", std::string("tool_error"));
      span->Fail("tool_error");
    }
  }
  return RpcResponse(200, mcp::ResultBody(id, mcp::Finished(std::move(tool_result), era)));
}

// The MCP conventions' server span: "{mcp.method.name} {agent}", under the trace context the
// client put in params._meta (the MCP convention), else under the HTTP request's span.
Span StartMcpSpan(const RouteDeps& deps, const Request& r, const mcp::IncomingMessage& message,
                  const mcp::Era& era) {
  if (deps.tracer == nullptr || !deps.tracer->enabled()) return Span();
  const auto* tool = message.method == "tools/call" ? message.params.if_contains("name") : nullptr;
  const bool named = tool != nullptr && tool->is_string();
  std::optional<SpanContext> parent;
  if (const auto* trace = r.trace) parent = *trace;
  const auto* meta = message.params.if_contains("_meta");
  const auto* traceparent = meta != nullptr && meta->is_object()
                                ? meta->get_object().if_contains("traceparent")
                                : nullptr;
  if (traceparent != nullptr && traceparent->is_string()) {
    const auto* state = meta->get_object().if_contains("tracestate");
    const std::string_view tracestate =
        state != nullptr && state->is_string() ? std::string_view(state->get_string()) : "";
    if (auto caller = tracing::ParseTraceparent(traceparent->get_string(), tracestate))
      parent = SpanContext::From(*caller);
  }
  std::string name = message.method;
  if (named) name += " " + std::string(tool->get_string());
  Span span = deps.tracer->Start(std::move(name), tracing::SpanKind::kServer, parent);
  if (!span.recording()) return span;
  span.Set("mcp.method.name", message.method);
  span.Set("mcp.protocol.version", era.version);
  span.Set("jsonrpc.request.id", json_text::Write(message.id));
  if (named) {
    span.Set("gen_ai.operation.name", std::string("execute_tool"));
    span.Set("gen_ai.tool.name", std::string(tool->get_string()));
  }
  if (const auto session = r.Header("mcp-session-id"))
    span.Set("mcp.session.id", std::string(*session));
  return span;
}

Response Refused(const mcp::Refusal& refusal, const json::value& id) {
  return RpcResponse(refusal.http_status, mcp::ErrorBody(id, refusal.error));
}

// When the client closes the connection the turn is canceled; the turn's end then wins the race.
asio::awaitable<Response> CancelOnClose(Request& r, const std::shared_ptr<TurnCancel>& cancel) {
  co_await r.client_closed();
  cancel->Cancel();
  asio::steady_timer forever(co_await asio::this_coro::executor,
                             asio::steady_timer::time_point::max());
  co_await forever.async_wait(asio::as_tuple(asio::use_awaitable));
  co_return Response{};
}

// A turn's steps as notifications/progress on the call's stream, written in order, one write in
// flight at a time; the turn never waits for them. Lives on the call's event loop.
class ProgressWriter final : public TurnObserver {
 public:
  ProgressWriter(ResponseStream& out, json::value token, asio::any_io_executor executor)
      : out_(out), token_(std::move(token)), executor_(executor), idle_(executor) {}

  void Report(RunEvent event) override {
    auto message = mcp::ProgressMessage(event.type, event.data);
    if (!message) return;
    unwritten_ += mcp::SseMessage(mcp::ProgressNotification(token_, ++progress_, *message));
    if (writing_) return;
    writing_ = true;
    asio::co_spawn(executor_, Drain(), asio::detached);
  }
  // Once what was reported is out.
  asio::awaitable<void> Idle() {
    while (writing_) {
      idle_.expires_at(asio::steady_timer::time_point::max());
      co_await idle_.async_wait(asio::as_tuple(asio::use_awaitable));
    }
  }
  // Then the result, and the end of the stream.
  asio::awaitable<void> Finish(std::string result) {
    co_await Idle();
    co_await out_.WriteLast(mcp::SseMessage(result));
  }

 private:
  asio::awaitable<void> Drain() {
    while (!unwritten_.empty()) {
      std::string frames = std::move(unwritten_);
      unwritten_.clear();
      if (!co_await out_.Write(std::move(frames))) break;  // the client left: the turn goes on
    }
    unwritten_.clear();
    writing_ = false;
    idle_.cancel();
  }

  ResponseStream& out_;
  const json::value token_;
  asio::any_io_executor executor_;
  asio::steady_timer idle_;
  std::string unwritten_;
  std::int64_t progress_ = 0;
  bool writing_ = false;
};

bool AcceptsEventStream(const Request& r) {
  const auto accept = r.Header("accept");
  return accept && accept->find("text/event-stream") != std::string_view::npos;
}

asio::awaitable<Response> CallTool(RouteDeps& deps, RunningCalls& running, Request& r,
                                   const Caller& caller, const mcp::IncomingMessage& message,
                                   const mcp::Era& era, Span& span) {
  using namespace asio::experimental::awaitable_operators;
  const auto* name = message.params.if_contains("name");
  if (name == nullptr || !name->is_string()) {
    co_return Refused(mcp::Refusal{400, {mcp::kInvalidParams, "params.name must be a string", {}}},
                      message.id);
  }
  // A tool the caller's tools/list does not hold (no such agent, not deployed, no chat grant) is
  // JSON-RPC's invalid params, found before its arguments are read; a listed tool's refusals are
  // the call's isError results.
  const std::string agent_id(name->get_string());
  const auto admitted = co_await deps.invoke.Admit(caller, agent_id);
  if (!admitted) {
    const ErrorCode code = admitted.error().code;
    if (code == ErrorCode::kAgentNotFound || code == ErrorCode::kForbidden ||
        code == ErrorCode::kNotFound) {
      co_return Refused(mcp::Refusal{200, {mcp::kInvalidParams, "unknown tool: " + agent_id, {}}},
                        message.id);
    }
  }
  const json::value id = message.id;
  const Elicits elicits = ElicitsOf(deps, r, caller, agent_id, message, era);
  const InvokeRenderer render = [&deps, &id, &era, &span,
                                 &elicits](const Result<InvokeResult>& result) {
    return AnswerCall(deps, id, era, result, &span, elicits);
  };
  // A retried call answers what the run asked; it starts no turn.
  if (era.modern && message.params.contains("requestState"))
    co_return co_await AnswerInput(deps, caller, agent_id, message, render);
  const auto* arguments = message.params.if_contains("arguments");
  const json::value args = arguments != nullptr ? *arguments : json::value(json::object{});
  auto request = ParseInvokeRequest(args);
  if (!request) co_return render(request.error());  // the client's model can correct itself

  const auto cancel = std::make_shared<TurnCancel>(co_await asio::this_coro::executor);
  const std::string key = running.Add(CallKey(caller, r, id), cancel);
  const std::optional<std::string> no_key;  // MCP has no Idempotency-Key
  const std::string no_fingerprint;
  auto token = mcp::ProgressToken(message.params);
  if (!token || !AcceptsEventStream(r)) {
    const SpanContext* trace = span.context_ptr();
    const InvokeCall call{.caller = caller,
                          .agent_id = agent_id,
                          .request = *request,
                          .key = no_key,
                          .fingerprint = no_fingerprint,
                          .cancel = cancel,
                          .trace = trace};
    auto raced = co_await (InvokeOnce(deps, call, render) || CancelOnClose(r, cancel));
    running.Remove(key);
    co_return std::visit([](Response& response) { return std::move(response); }, raced);
  }
  // The stream's head goes out with the first step; the turn runs inside the stream.
  Response streamed;
  streamed.content_type = "text/event-stream";
  // Its own copies of what the turn and its answer need: the call's frame is gone by then (the
  // span too: it ends with the stream).
  auto call_span = std::make_shared<Span>(std::move(span));
  streamed.stream = [&deps, &running, &r, caller, agent_id, request = std::move(*request), id, era,
                     cancel, key, token = std::move(*token), call_span,
                     elicits](ResponseStream& out) -> asio::awaitable<void> {
    using namespace asio::experimental::awaitable_operators;
    const InvokeRenderer answer = [&deps, &id, &era, &call_span,
                                   &elicits](const Result<InvokeResult>& result) {
      return AnswerCall(deps, id, era, result, call_span.get(), elicits);
    };
    const SpanContext* trace = call_span->context_ptr();
    ProgressWriter progress(out, token, co_await asio::this_coro::executor);
    const std::optional<std::string> none;
    const std::string unused;
    const InvokeCall call{.caller = caller,
                          .agent_id = agent_id,
                          .request = request,
                          .key = none,
                          .fingerprint = unused,
                          .cancel = cancel,
                          .observer = &progress,
                          .trace = trace};
    auto raced = co_await (InvokeOnce(deps, call, answer) || CancelOnClose(r, cancel));
    running.Remove(key);
    Response answered = std::visit([](Response& response) { return std::move(response); }, raced);
    if (answered.stream) {
      // A 2025 client asked on this stream: the question, then the run followed to its end.
      co_await progress.Idle();
      co_await answered.stream(out);
    } else {
      co_await progress.Finish(std::move(answered.body));
    }
    call_span->End();
  };
  co_return streamed;
}

asio::awaitable<Response> ListTools(RouteDeps& deps, const Caller& caller,
                                    const mcp::IncomingMessage& message, const mcp::Era& era) {
  auto agents = co_await deps.invoke.ChatAgents(caller);
  if (!agents) {
    co_return RpcResponse(
        500, mcp::ErrorBody(message.id,
                            mcp::RpcError{mcp::kInternalError, agents.error().message, nullptr}));
  }
  std::vector<mcp::ToolDescription> tools;
  for (const auto& a : *agents) {
    const auto& config = a.agent->config;
    mcp::ToolDescription tool{a.agent_id,
                              config.description.empty() ? config.name : config.description,
                              mcp::AgentInputSchema(config.per_instance)};
    if (config.output_schema) tool.output_schema = mcp::AgentOutputSchema(*config.output_schema);
    tools.push_back(std::move(tool));
  }
  co_return RpcResponse(
      200, mcp::ResultBody(message.id, mcp::Finished(mcp::ToolsListResult(tools), era)));
}

asio::awaitable<Response> Serve(RouteDeps& deps, RunningCalls& running, Request& r) {
  // A web page of another origin must not reach a local or internal server through its user's
  // browser (DNS rebinding): refused before any credential is looked at.
  if (const auto origin = r.Header("origin");
      origin && !mcp::OriginAllowed(*origin, deps.public_url, deps.allowed_origins)) {
    co_return RpcResponse(
        403, mcp::ErrorBody(nullptr, mcp::RpcError{mcp::kInvalidRequest,
                                                   "Origin '" + std::string(*origin) +
                                                       "' may not call this server ([server] "
                                                       "public_url, allowed_origins)",
                                                   nullptr}));
  }
  auto admitted = co_await AdmitMcpCaller(deps, r);
  if (auto* refused = std::get_if<Response>(&admitted)) co_return std::move(*refused);
  const auto* caller = &std::get<Caller>(admitted);
  auto read = mcp::ReadIncoming(r.body);
  if (auto* refusal = std::get_if<mcp::Refusal>(&read)) co_return Refused(*refusal, nullptr);
  const auto& message = std::get<mcp::IncomingMessage>(read);
  auto header = [&r](std::string_view name) -> std::optional<std::string> {
    auto v = r.Header(name);
    return v ? std::optional<std::string>(std::string(*v)) : std::nullopt;
  };
  const auto checked = mcp::EraOf(
      message, {header("mcp-protocol-version"), header("mcp-method"), header("mcp-name")});
  if (auto* refusal = std::get_if<mcp::Refusal>(&checked)) co_return Refused(*refusal, message.id);
  const auto& era = std::get<mcp::Era>(checked);

  // A 2025 client's answer to our elicitation/create.
  if (message.response) co_return co_await AnswerElicitation(deps, *caller, message);
  if (message.notification) {
    if (message.method == "notifications/cancelled") {
      if (const auto* id = message.params.if_contains("requestId"))
        running.Cancel(CallKey(*caller, r, *id));
    }
    co_return RpcResponse(202, "");
  }
  const auto answer = [&](json::object result) {
    return RpcResponse(200, mcp::ResultBody(message.id, mcp::Finished(std::move(result), era)));
  };
  Span span = StartMcpSpan(deps, r, message, era);
  if (message.method == "tools/call")
    co_return co_await CallTool(deps, running, r, *caller, message, era, span);
  if (message.method == "tools/list") co_return co_await ListTools(deps, *caller, message, era);
  if (message.method == "ping") co_return answer(json::object{});
  if (message.method == "server/discover") co_return answer(mcp::DiscoverResult(kServerVersion));
  if (message.method == "initialize" && !era.modern) {
    // A session id only names this client's calls for notifications/cancelled, and says whether
    // it takes form elicitations; nothing is kept.
    Response response = answer(mcp::InitializeResult(message.params, kServerVersion));
    response.headers.emplace_back(
        "Mcp-Session-Id", mcp::LegacySessionId(crypto::RandomBase64Url(18),
                                               mcp::InitializeDeclaresForms(message.params)));
    co_return response;
  }
  co_return RpcResponse(
      era.modern ? 404 : 200,
      mcp::ErrorBody(message.id, mcp::RpcError{mcp::kMethodNotFound,
                                               "Method not found: " + message.method, nullptr}));
}

}  // namespace

void AddMcpRoutes(Router& router, RouteDeps& deps) {
  auto running = std::make_shared<RunningCalls>();
  router.Add("POST", "/mcp", [&deps, running](Request& r) -> asio::awaitable<Response> {
    co_return co_await Serve(deps, *running, r);
  });
  // No standalone stream and no sessions to end: the current revision has neither.
  for (const char* method : {"GET", "DELETE"}) {
    router.Add(method, "/mcp", [](Request&) -> asio::awaitable<Response> {
      Response response =
          ErrorResponse(Error(ErrorCode::kMethodNotAllowed, "the MCP endpoint takes POST only"));
      response.status = 405;
      response.headers.emplace_back("Allow", "POST");
      co_return response;
    });
  }
}

}  // namespace agentgate::http
