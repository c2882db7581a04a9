// /a2a/{org}/{env}/{agent}/: each agent of each environment as an A2A 1.0 agent (docs/a2a.md).
// Its card at .well-known/agent-card.json; JSON-RPC 2.0 at the interface URL itself; HTTP+JSON at
// its suffix paths (message:send, tasks/{id}, ...). Both bindings answer the same operations
// (a2a_operations) and render them their way: JSON-RPC's errors are 200s with an error object,
// HTTP+JSON's are google.rpc.Status bodies with the error's HTTP status.
#include "adapters/http_server/handlers/a2a_operations.hpp"
#include "adapters/http_server/responses.hpp"
#include "domain/a2a/legacy.hpp"
#include "domain/json_text.hpp"

#include <boost/json/object.hpp>
#include <boost/json/parse.hpp>

namespace agentgate::http {

namespace asio = boost::asio;
namespace json = boost::json;
using a2a::Fault;
using a2a::ProtocolError;

namespace {

constexpr const char* kBase = "/a2a/{org}/{env}/{agent}";

// Errors the HTTP layer raises on these paths (404, 405, 413), in HTTP+JSON's shape.
Response A2aHttpError(const Error& error) {
  ProtocolError said = a2a::FromError(error);
  if (said.fault == Fault::kInternal) said.fault = Fault::kInvalidRequest;
  return JsonResponse(HttpStatusOf(error.code), a2a::RestErrorBody(said));
}

// --- JSON-RPC ------------------------------------------------------------------------------

Response RpcError(const json::value& id, ProtocolError error) {
  // Errors of the protocol ride a 200, as JSON-RPC over HTTP does; the client reads the object.
  return JsonResponse(200, a2a::JsonRpcErrorBody(id, error));
}

asio::awaitable<A2aAnswer> Dispatch(RouteDeps& deps, Request& r, const A2aInterface& at,
                                    std::string_view method, const json::value& params) {
  if (method == "SendMessage") co_return co_await SendMessageOp(deps, r, at, params, false);
  if (method == "SendStreamingMessage") co_return co_await SendMessageOp(deps, r, at, params, true);
  if (method == "GetTask") co_return co_await GetTaskOp(deps, at, params);
  if (method == "CancelTask") co_return co_await CancelTaskOp(deps, at, params);
  if (method == "SubscribeToTask") co_return co_await SubscribeOp(deps, r, at, params);
  if (method == "ListTasks") co_return co_await ListTasksOp(deps, at, params);
  if (method.find("TaskPushNotificationConfig") != std::string_view::npos)
    co_return co_await PushConfigOp(deps, at, method, params);
  if (method == "GetExtendedAgentCard") co_return NotOffered(method);
  co_return ProtocolError{Fault::kMethodNotFound, "Method not found: " + std::string(method)};
}

// The version a JSON-RPC request is served in: 1.0 for its method names under `A2A-Version: 1.0`;
// 0.3 for 0.3's names, sent with no A2A-Version (which means 0.3) or with 0.3's.
std::optional<ProtocolError> CheckRpcVersion(const Request& r, bool legacy) {
  const auto version = A2aVersionAsked(r);
  if (!legacy) return a2a::CheckVersion(version);
  if (!version || version->empty() || *version == a2a::legacy::kVersion ||
      version->starts_with("0.3."))
    return std::nullopt;
  return ProtocolError{Fault::kVersionNotSupported,
                       "0.3's method names are served under A2A-Version 0.3 (or none); this "
                       "request names " +
                           std::string(version->substr(0, 32))};
}

asio::awaitable<Response> ServeRpc(RouteDeps& deps, Request& r) {
  auto admitted = co_await AdmitA2aCaller(deps, r, /*rpc=*/true, /*any_version=*/true);
  if (auto* refused = std::get_if<Response>(&admitted)) co_return std::move(*refused);
  A2aInterface& at = std::get<A2aInterface>(admitted);
  boost::system::error_code ec;
  const json::value body = json::parse(r.body, ec);
  if (ec) co_return RpcError(nullptr, {Fault::kParseError, "the body is not JSON"});
  const json::object* request = body.if_object();
  const json::value* version = request != nullptr ? request->if_contains("jsonrpc") : nullptr;
  const json::value* method = request != nullptr ? request->if_contains("method") : nullptr;
  const json::value* id = request != nullptr ? request->if_contains("id") : nullptr;
  if (version == nullptr || *version != "2.0" || method == nullptr || !method->is_string() ||
      id == nullptr || !(id->is_string() || id->is_int64() || id->is_uint64())) {
    co_return RpcError(id != nullptr && (id->is_string() || id->is_number()) ? *id : nullptr,
                       {Fault::kInvalidRequest,
                        "a JSON-RPC 2.0 request needs \"jsonrpc\": \"2.0\", a string method and "
                        "a string or integer id"});
  }
  const json::value* params = request->if_contains("params");
  if (params != nullptr && !params->is_object())
    co_return RpcError(*id, {Fault::kInvalidParams, "params must be an object", "params"});
  at.rpc_id = *id;
  // 0.3's names are read into 1.0's, and the answer written back in 0.3's shapes.
  const auto v1_method = a2a::legacy::V1Method(method->get_string());
  at.legacy = v1_method.has_value();
  if (auto refused = CheckRpcVersion(r, at.legacy)) co_return RpcError(*id, std::move(*refused));
  auto read = a2a::legacy::V1Params(v1_method.value_or(""),
                                    params != nullptr ? *params : json::value(json::object{}));
  if (auto* refused = std::get_if<ProtocolError>(&read))
    co_return RpcError(*id, std::move(*refused));
  const std::string name = v1_method.value_or(std::string(method->get_string()));
  A2aAnswer answer = co_await Dispatch(deps, r, at, name, std::get<json::value>(read));
  if (auto* result = std::get_if<json::value>(&answer)) {
    if (at.legacy) {
      *result = name.find("PushNotificationConfig") != std::string::npos
                    ? a2a::legacy::LegacyPushConfigResult(name, *result)
                    : a2a::legacy::LegacyResult(*result);
    }
    co_return JsonResponse(200, a2a::JsonRpcResultBody(*id, std::move(*result)));
  }
  if (auto* error = std::get_if<ProtocolError>(&answer)) co_return RpcError(*id, std::move(*error));
  co_return std::move(std::get<Response>(answer));
}

// --- HTTP+JSON -----------------------------------------------------------------------------

Response RestAnswer(const Request& r, A2aAnswer answer) {
  if (auto* stream = std::get_if<Response>(&answer)) return std::move(*stream);
  Response response;
  if (auto* result = std::get_if<json::value>(&answer)) {
    response = JsonResponse(200, *result);
  } else {
    const auto& error = std::get<ProtocolError>(answer);
    response = JsonResponse(a2a::HttpStatusOf(error.fault), a2a::RestErrorBody(error));
  }
  response.content_type = RestContentType(r);
  return response;
}

// A REST route: the caller admitted, then `op` with the request's params.
using RestOp = asio::awaitable<A2aAnswer> (*)(RouteDeps&, Request&, const A2aInterface&,
                                              const json::value& params);

asio::awaitable<Response> ServeRest(RouteDeps& deps, Request& r, RestOp op,
                                    const json::value& params) {
  auto admitted = co_await AdmitA2aCaller(deps, r, /*rpc=*/false);
  if (auto* refused = std::get_if<Response>(&admitted)) co_return std::move(*refused);
  co_return RestAnswer(r, co_await op(deps, r, std::get<A2aInterface>(admitted), params));
}

// The request's JSON body as params ({} when empty), or why not.
std::variant<json::value, ProtocolError> BodyParams(const Request& r) {
  if (r.body.empty()) return json::value(json::object{});
  boost::system::error_code ec;
  json::value body = json::parse(r.body, ec);
  if (ec || !body.is_object())
    return ProtocolError{Fault::kParseError, "the body is not a JSON object"};
  return body;
}

asio::awaitable<A2aAnswer> SendOp(RouteDeps& deps, Request& r, const A2aInterface& at,
                                  const json::value& params) {
  return SendMessageOp(deps, r, at, params, false);
}
asio::awaitable<A2aAnswer> StreamOp(RouteDeps& deps, Request& r, const A2aInterface& at,
                                    const json::value& params) {
  return SendMessageOp(deps, r, at, params, true);
}
asio::awaitable<A2aAnswer> GetOp(RouteDeps& deps, Request&, const A2aInterface& at,
                                 const json::value& params) {
  return GetTaskOp(deps, at, params);
}
asio::awaitable<A2aAnswer> CancelOp(RouteDeps& deps, Request&, const A2aInterface& at,
                                    const json::value& params) {
  return CancelTaskOp(deps, at, params);
}
// GET tasks: the request's fields are the query's parameters, as text.
asio::awaitable<A2aAnswer> ListOp(RouteDeps& deps, Request& r, const A2aInterface& at,
                                  const json::value&) {
  json::object params;
  for (const char* name : {"contextId", "status", "pageSize", "pageToken", "historyLength",
                           "statusTimestampAfter", "includeArtifacts"}) {
    if (auto value = r.QueryParam(name)) params[name] = *value;
  }
  co_return co_await ListTasksOp(deps, at, params);
}
asio::awaitable<A2aAnswer> SubscribeRestOp(RouteDeps& deps, Request& r, const A2aInterface& at,
                                           const json::value& params) {
  return SubscribeOp(deps, r, at, params);
}

// tasks/{task}/pushNotificationConfigs[/{config}]: the task and config from the path.
json::object ConfigParams(const Request& r, bool named) {
  json::object params{{"taskId", r.Param("task")}};
  if (named) params["id"] = r.Param("config");
  return params;
}
asio::awaitable<A2aAnswer> CreateConfigOp(RouteDeps& deps, Request& r, const A2aInterface& at,
                                          const json::value& params) {
  json::value config = params;
  config.as_object()["taskId"] = r.Param("task");  // the path's task, whatever the body says
  co_return co_await PushConfigOp(deps, at, "CreateTaskPushNotificationConfig", config);
}
asio::awaitable<A2aAnswer> GetConfigOp(RouteDeps& deps, Request& r, const A2aInterface& at,
                                       const json::value&) {
  const json::value params = ConfigParams(r, true);  // kept for the coroutine it awaits
  co_return co_await PushConfigOp(deps, at, "GetTaskPushNotificationConfig", params);
}
asio::awaitable<A2aAnswer> ListConfigsOp(RouteDeps& deps, Request& r, const A2aInterface& at,
                                         const json::value&) {
  const json::value params = ConfigParams(r, false);
  co_return co_await PushConfigOp(deps, at, "ListTaskPushNotificationConfigs", params);
}
asio::awaitable<A2aAnswer> DeleteConfigOp(RouteDeps& deps, Request& r, const A2aInterface& at,
                                          const json::value&) {
  const json::value params = ConfigParams(r, true);
  co_return co_await PushConfigOp(deps, at, "DeleteTaskPushNotificationConfig", params);
}

asio::awaitable<A2aAnswer> BadBodyOp(RouteDeps&, Request&, const A2aInterface&,
                                     const json::value&) {
  co_return ProtocolError{Fault::kParseError, "the body is not a JSON object"};
}

// POST message:send and message:stream: the body is the SendMessageRequest.
asio::awaitable<Response> ServeMessage(RouteDeps& deps, Request& r, RestOp op) {
  auto params = BodyParams(r);
  if (std::holds_alternative<ProtocolError>(params)) {
    // Refused after the caller is, so an anonymous caller learns nothing of the body.
    co_return co_await ServeRest(deps, r, BadBodyOp, json::value());
  }
  co_return co_await ServeRest(deps, r, op, std::get<json::value>(params));
}

// tasks/{id}, tasks/{id}:cancel and tasks/{id}:subscribe: one path segment, the verb after ':'.
asio::awaitable<Response> ServeTask(RouteDeps& deps, Request& r, bool post) {
  const std::string& segment = r.Param("task");
  const auto colon = segment.rfind(':');
  const std::string id = colon == std::string::npos ? segment : segment.substr(0, colon);
  const std::string verb = colon == std::string::npos ? "" : segment.substr(colon + 1);
  json::object params{{"id", id}};
  if (verb == "subscribe") co_return co_await ServeRest(deps, r, SubscribeRestOp, params);
  if (post && verb == "cancel") co_return co_await ServeRest(deps, r, CancelOp, params);
  if (!post && verb.empty()) co_return co_await ServeRest(deps, r, GetOp, params);
  co_return A2aHttpError(Error(post ? ErrorCode::kNotFound : ErrorCode::kMethodNotAllowed,
                               "no such operation on a task: " + segment));
}

// What this release does not offer, in the protocol's error for it (after the caller).
Handler NotOfferedRoute(RouteDeps& deps, std::string operation) {
  return [&deps, operation](Request& r) -> asio::awaitable<Response> {
    auto admitted = co_await AdmitA2aCaller(deps, r, /*rpc=*/false);
    if (auto* refused = std::get_if<Response>(&admitted)) co_return std::move(*refused);
    co_return RestAnswer(r, NotOffered(operation));
  };
}

}  // namespace

void AddA2aRoutes(Router& router, RouteDeps& deps) {
  const std::string base = kBase;
  const auto add = [&router](const char* method, const std::string& path, Handler handler) {
    router.Add(method, path, std::move(handler), A2aHttpError);
  };
  add("GET", base + "/.well-known/agent-card.json",
      [&deps](Request& r) { return AgentCardResponse(deps, r); });
  for (const std::string& path : {base + "/", base})
    add("POST", path, [&deps](Request& r) { return ServeRpc(deps, r); });
  add("POST", base + "/message:send",
      [&deps](Request& r) { return ServeMessage(deps, r, SendOp); });
  add("POST", base + "/message:stream",
      [&deps](Request& r) { return ServeMessage(deps, r, StreamOp); });
  add("GET", base + "/tasks/{task}", [&deps](Request& r) { return ServeTask(deps, r, false); });
  add("POST", base + "/tasks/{task}", [&deps](Request& r) { return ServeTask(deps, r, true); });
  add("GET", base + "/tasks",
      [&deps](Request& r) { return ServeRest(deps, r, ListOp, json::value()); });
  add("GET", base + "/extendedAgentCard", NotOfferedRoute(deps, "GetExtendedAgentCard"));
  const std::string configs = base + "/tasks/{task}/pushNotificationConfigs";
  add("GET", configs,
      [&deps](Request& r) { return ServeRest(deps, r, ListConfigsOp, json::value()); });
  add("POST", configs, [&deps](Request& r) { return ServeMessage(deps, r, CreateConfigOp); });
  add("GET", configs + "/{config}",
      [&deps](Request& r) { return ServeRest(deps, r, GetConfigOp, json::value()); });
  add("DELETE", configs + "/{config}",
      [&deps](Request& r) { return ServeRest(deps, r, DeleteConfigOp, json::value()); });
  router.AddErrorShape("/a2a/", A2aHttpError);
}

}  // namespace agentgate::http
