#include "adapters/mcp_client/mcp_client.hpp"

#include "domain/mcp/mcp_tools.hpp"

#include <boost/asio/co_spawn.hpp>
#include <boost/asio/detached.hpp>
#include <boost/asio/this_coro.hpp>
#include <boost/json/parse.hpp>

#include <algorithm>

namespace agentgate {
namespace {

namespace asio = boost::asio;
namespace json = boost::json;
using std::chrono::milliseconds;
using SteadyClock = std::chrono::steady_clock;

constexpr std::string_view kClientName = "agentgate";
constexpr std::string_view kClientVersion = "1";

milliseconds Left(SteadyClock::time_point deadline) {
  return std::max(milliseconds(1), std::chrono::ceil<milliseconds>(deadline - SteadyClock::now()));
}

std::string ContentType(const HttpClientResponse& response) {
  return std::string(response.Header("content-type").value_or(""));
}

std::string Status(const HttpClientResponse& response) {
  return "the MCP server answered HTTP " + std::to_string(response.status);
}

bool ListsLegacyVersion(const json::value& data) {
  const auto* supported = data.is_object() ? data.get_object().if_contains("supported") : nullptr;
  if (supported == nullptr || !supported->is_array()) return false;
  return std::any_of(
      supported->get_array().begin(), supported->get_array().end(),
      [](const json::value& v) { return v.is_string() && mcp::IsLegacyVersion(v.get_string()); });
}

json::object WithMeta(json::object params, json::object meta) {
  auto* existing = params.if_contains("_meta");
  if (existing != nullptr && existing->is_object()) {
    for (auto& kv : meta) existing->get_object()[kv.key()] = kv.value();
  } else {
    params["_meta"] = std::move(meta);
  }
  return params;
}

// The MCP conventions' client span: "{mcp.method.name} {tool}", with the server it calls.
Span StartCallSpan(const Tracer& tracer, const McpEndpoint& endpoint, const McpCall& call) {
  const auto* tool = call.method == "tools/call" ? call.params.if_contains("name") : nullptr;
  const bool named = tool != nullptr && tool->is_string();
  std::string name = call.method;
  if (named) name += " " + std::string(tool->get_string());
  Span span = tracer.Start(std::move(name), tracing::SpanKind::kClient, call.trace);
  if (!span.recording()) return span;
  span.Set("mcp.method.name", call.method);
  if (named) {
    span.Set("gen_ai.operation.name", std::string("execute_tool"));
    span.Set("gen_ai.tool.name", std::string(tool->get_string()));
  }
  span.Set("network.transport", std::string("tcp"));
  span.Set("network.protocol.name", std::string("http"));
  DescribeServer(span, endpoint.url);
  return span;
}

// How the request went: a transport failure, the server's JSON-RPC error, or a tool's own error.
void DescribeOnSpan(Span& span, const Result<mcp::RpcReply>& reply) {
  if (!reply) {
    const std::string kind(ErrorCodeName(reply.error().code));
    span.Set("error.type", kind);
    span.Fail(kind);
    return;
  }
  if (reply->error) {
    const std::string code = std::to_string(reply->error->code);
    span.Set("rpc.response.status_code", code);
    span.Set("error.type", code);
    span.Fail(code);
    return;
  }
  const auto* is_error = reply->result && reply->result->is_object()
                             ? reply->result->get_object().if_contains("isError")
                             : nullptr;
  if (is_error != nullptr && is_error->is_bool() && is_error->get_bool()) {
    span.Set("error.type", std::string("tool_error"));
    span.Fail("tool_error");
  }
}

}  // namespace

std::size_t McpClient::ServersKnown() {
  std::lock_guard lock(mutex_);
  return servers_.size();
}

McpClient::ServerState McpClient::StateOf(const std::string& key) {
  std::lock_guard lock(mutex_);
  auto it = servers_.find(key);
  return it == servers_.end() ? ServerState{} : it->second;
}

void McpClient::Remember(const std::string& key, ServerState state) {
  std::lock_guard lock(mutex_);
  if (servers_.size() >= max_servers_ && !servers_.contains(key)) servers_.clear();
  servers_[key] = std::move(state);
}

asio::awaitable<Result<HttpClientResponse>> McpClient::Post(const McpEndpoint& endpoint,
                                                            const std::string& body,
                                                            const HeaderList& headers,
                                                            Deadline deadline) {
  HttpClientRequest request;
  request.method = "POST";
  request.url = endpoint.url;  // exactly the operator's URL
  request.headers = endpoint.headers;
  request.headers.emplace_back("content-type", "application/json");
  request.headers.emplace_back("accept", "application/json, text/event-stream");
  for (const auto& h : headers) request.headers.push_back(h);
  request.body = body;
  request.timeout = Left(deadline);
  request.max_response_bytes = kMaxResponseBytes;
  co_return co_await http_.Send(std::move(request));
}

asio::awaitable<Result<mcp::RpcReply>> McpClient::Request(const McpEndpoint& endpoint,
                                                          const McpCall& call,
                                                          milliseconds timeout) {
  if (tracer_ == nullptr || !tracer_->enabled() || call.trace == nullptr)
    co_return co_await Send(endpoint, call, timeout);
  Span span = StartCallSpan(*tracer_, endpoint, call);
  // The trace context in the header and, as the MCP conventions propagate it, in params._meta.
  McpCall traced = call;
  if (const auto* context = span.context_ptr()) {
    json::object meta{{"traceparent", context->Traceparent()}};
    if (!context->trace_state.empty()) meta["tracestate"] = context->trace_state;
    traced.params = WithMeta(std::move(traced.params), std::move(meta));
    traced.extra_headers.emplace_back("traceparent", context->Traceparent());
  }
  auto reply = co_await Send(endpoint, traced, timeout);
  if (span.recording()) {
    const ServerState state = StateOf(endpoint.Key());
    span.Set("mcp.protocol.version",
             state.era == Era::kLegacy ? state.version : std::string(mcp::kModernVersion));
    if (!state.session_id.empty()) span.Set("mcp.session.id", state.session_id);
    DescribeOnSpan(span, reply);
  }
  co_return reply;
}

asio::awaitable<Result<mcp::RpcReply>> McpClient::Send(const McpEndpoint& endpoint,
                                                       const McpCall& call, milliseconds timeout) {
  const Deadline deadline = SteadyClock::now() + timeout;
  const std::string key = endpoint.Key();
  ServerState state = StateOf(key);
  if (state.era == Era::kLegacy) co_return co_await SendLegacy(endpoint, call, deadline);

  const std::int64_t id = next_id_++;
  HeaderList headers{{"MCP-Protocol-Version", std::string(mcp::kModernVersion)},
                     {"Mcp-Method", call.method}};
  for (const auto& h : call.extra_headers) headers.push_back(h);
  const std::string body = mcp::RequestBody(
      id, call.method, WithMeta(call.params, mcp::ModernMeta(kClientName, kClientVersion)));
  AG_CO_TRY(auto response, co_await Post(endpoint, body, headers, deadline));
  if (response.status >= 200 && response.status < 300) {
    auto reply = mcp::ReadReply(ContentType(response), response.body, id);
    if (reply && state.era == Era::kUnknown) Remember(key, ServerState{Era::kModern, "", ""});
    co_return reply;
  }
  const bool refused = response.status == 400 || response.status == 404 || response.status == 405;
  if (!refused) co_return Error(ErrorCode::kUnavailable, Status(response));
  const auto error = mcp::ErrorInBody(response.body);
  if (error && mcp::IsModernError(*error)) {
    const bool legacy_only =
        error->code == mcp::kUnsupportedProtocolVersion && ListsLegacyVersion(error->data);
    if (!legacy_only) {
      if (state.era == Era::kUnknown) Remember(key, ServerState{Era::kModern, "", ""});
      mcp::RpcReply reply;
      reply.error = *error;
      co_return reply;
    }
  }
  // Not a modern server: the initialize handshake, then the request in the legacy revision.
  co_return co_await SendLegacy(endpoint, call, deadline);
}

asio::awaitable<Result<McpClient::ServerState>> McpClient::Initialize(const McpEndpoint& endpoint,
                                                                      Deadline deadline) {
  const std::int64_t id = next_id_++;
  const json::object params{
      {"protocolVersion", mcp::kLegacyVersion},
      {"capabilities", json::object{}},
      {"clientInfo", json::object{{"name", kClientName}, {"version", kClientVersion}}}};
  const std::string body = mcp::RequestBody(id, "initialize", params);
  const HeaderList no_headers;
  AG_CO_TRY(auto response, co_await Post(endpoint, body, no_headers, deadline));
  if (response.status < 200 || response.status >= 300)
    co_return Error(ErrorCode::kUnavailable, Status(response) + " to initialize");
  AG_CO_TRY(auto reply, mcp::ReadReply(ContentType(response), response.body, id));
  if (reply.error)
    co_return Error(ErrorCode::kUnavailable, "initialize failed: " + reply.error->message);
  const auto* version = reply.result && reply.result->is_object()
                            ? reply.result->get_object().if_contains("protocolVersion")
                            : nullptr;
  if (version == nullptr || !version->is_string() || !mcp::IsLegacyVersion(version->get_string()))
    co_return Error(ErrorCode::kUnavailable,
                    "the MCP server speaks no protocol version agentgate supports");
  ServerState state{Era::kLegacy, std::string(version->get_string()),
                    std::string(response.Header("mcp-session-id").value_or(""))};
  HeaderList headers{{"MCP-Protocol-Version", state.version}};
  if (!state.session_id.empty()) headers.emplace_back("Mcp-Session-Id", state.session_id);
  const std::string initialized_body =
      mcp::NotificationBody("notifications/initialized", json::object());
  AG_CO_TRY(auto initialized, co_await Post(endpoint, initialized_body, headers, deadline));
  if (initialized.status < 200 || initialized.status >= 300)
    co_return Error(ErrorCode::kUnavailable, Status(initialized) + " to notifications/initialized");
  co_return state;
}

asio::awaitable<Result<mcp::RpcReply>> McpClient::SendLegacy(const McpEndpoint& endpoint,
                                                             const McpCall& call,
                                                             Deadline deadline) {
  const std::string key = endpoint.Key();
  const auto executor = co_await asio::this_coro::executor;
  for (int attempt = 0;; ++attempt) {
    ServerState state = StateOf(key);
    if (state.era != Era::kLegacy) {
      AG_CO_TRY(state, co_await Initialize(endpoint, deadline));
      Remember(key, state);
    }
    const std::int64_t id = next_id_++;
    HeaderList headers{{"MCP-Protocol-Version", state.version}};
    if (!state.session_id.empty()) headers.emplace_back("Mcp-Session-Id", state.session_id);
    // Of the current revision's headers a legacy server gets only the trace context.
    for (const auto& h : call.extra_headers)
      if (h.first == "traceparent") headers.push_back(h);
    const std::string body = mcp::RequestBody(id, call.method, call.params);
    auto response = co_await Post(endpoint, body, headers, deadline);
    if (!response) {
      // The request may be running there: tell the server it is abandoned (also when the turn
      // was canceled, so nothing is awaited here).
      if (call.method == "tools/call") {
        asio::co_spawn(
            executor,
            [this, endpoint, state, id]() -> asio::awaitable<void> {
              HeaderList h{{"MCP-Protocol-Version", state.version}};
              if (!state.session_id.empty()) h.emplace_back("Mcp-Session-Id", state.session_id);
              const json::object params{{"requestId", id}, {"reason", "the agent's turn ended"}};
              const std::string notice = mcp::NotificationBody("notifications/cancelled", params);
              const Deadline soon = SteadyClock::now() + std::chrono::seconds(5);
              co_await Post(endpoint, notice, h, soon);
            },
            asio::detached);
      }
      co_return response.error();
    }
    if (response->status == 404 && !state.session_id.empty() && attempt == 0) {
      Remember(key, ServerState{});  // the session expired: a new handshake, once
      continue;
    }
    if (response->status < 200 || response->status >= 300) {
      if (auto error = mcp::ErrorInBody(response->body)) {
        mcp::RpcReply reply;
        reply.error = std::move(error);
        co_return reply;
      }
      co_return Error(ErrorCode::kUnavailable, Status(*response));
    }
    co_return mcp::ReadReply(ContentType(*response), response->body, id);
  }
}

}  // namespace agentgate
