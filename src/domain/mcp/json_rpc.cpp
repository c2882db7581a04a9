#include "domain/mcp/json_rpc.hpp"

#include "domain/json_text.hpp"
#include "domain/sse.hpp"

#include <boost/json/parse.hpp>

namespace agentgate::mcp {
namespace json = boost::json;

bool IsLegacyVersion(std::string_view version) {
  return version == "2025-11-25" || version == "2025-06-18" || version == "2025-03-26";
}

json::object ModernMeta(std::string_view client_name, std::string_view client_version) {
  return json::object{{"io.modelcontextprotocol/protocolVersion", kModernVersion},
                      {"io.modelcontextprotocol/clientInfo",
                       json::object{{"name", client_name}, {"version", client_version}}},
                      // A server may ask the user of the turn a form's question (docs/mcp.md).
                      {"io.modelcontextprotocol/clientCapabilities",
                       json::object{{"elicitation", json::object{{"form", json::object{}}}}}}};
}

std::string RequestBody(std::int64_t id, std::string_view method, json::object params) {
  return json_text::Write(json::object{
      {"jsonrpc", "2.0"}, {"id", id}, {"method", method}, {"params", std::move(params)}});
}

std::string NotificationBody(std::string_view method, json::object params) {
  return json_text::Write(
      json::object{{"jsonrpc", "2.0"}, {"method", method}, {"params", std::move(params)}});
}

std::vector<std::string> SseEvents(std::string_view stream) {
  SseDecoder decoder;
  auto read = decoder.Feed(stream);
  for (auto& last : decoder.Finish()) read.push_back(std::move(last));  // a cut stream's last event
  std::vector<std::string> events;
  events.reserve(read.size());
  for (auto& event : read) events.push_back(std::move(event.data));
  return events;
}

namespace {

std::optional<RpcError> ErrorOf(const json::object& message) {
  const auto* e = message.if_contains("error");
  if (e == nullptr || !e->is_object()) return std::nullopt;
  RpcError error;
  const auto& o = e->get_object();
  if (const auto* c = o.if_contains("code"); c != nullptr && c->is_int64())
    error.code = c->as_int64();
  if (const auto* m = o.if_contains("message"); m != nullptr && m->is_string())
    error.message = std::string(m->get_string());
  if (const auto* d = o.if_contains("data")) error.data = *d;
  return error;
}

bool HasId(const json::object& message, std::int64_t id) {
  const auto* v = message.if_contains("id");
  if (v == nullptr) return false;
  if (v->is_int64()) return v->as_int64() == id;
  if (v->is_uint64()) return v->as_uint64() == static_cast<std::uint64_t>(id);
  if (v->is_string()) return v->get_string() == std::to_string(id);
  return false;
}

// Folds one message into the reply; true once the response to `id` is in.
bool Take(const json::value& v, std::int64_t id, RpcReply& reply) {
  if (!v.is_object()) return false;
  const auto& message = v.get_object();
  if (const auto* method = message.if_contains("method"); method != nullptr) {
    if (*method == "notifications/tools/list_changed") reply.tools_list_changed = true;
    return false;  // a notification (progress, logging) or a request we do not serve
  }
  if (!HasId(message, id)) return false;
  if (auto error = ErrorOf(message)) {
    reply.error = std::move(error);
    return true;
  }
  if (const auto* result = message.if_contains("result")) {
    reply.result = *result;
    return true;
  }
  return false;
}

}  // namespace

Result<RpcReply> ReadReply(std::string_view content_type, std::string_view body, std::int64_t id) {
  RpcReply reply;
  if (content_type.starts_with("text/event-stream")) {
    for (const auto& event : SseEvents(body)) {
      boost::system::error_code ec;
      const auto v = json::parse(event, ec);
      if (!ec && Take(v, id, reply)) return reply;
    }
    return Error(ErrorCode::kUnavailable, "the event stream ended without the response");
  }
  boost::system::error_code ec;
  const auto v = json::parse(body, ec);
  if (ec) return Error(ErrorCode::kUnavailable, "the response is not JSON");
  if (v.is_array()) {  // a batch from an older server
    for (const auto& item : v.get_array())
      if (Take(item, id, reply)) return reply;
  } else if (Take(v, id, reply)) {
    return reply;
  }
  return Error(ErrorCode::kUnavailable, "the response is not the JSON-RPC reply to the request");
}

std::optional<RpcError> ErrorInBody(std::string_view body) {
  boost::system::error_code ec;
  const auto v = json::parse(body, ec);
  if (ec || !v.is_object()) return std::nullopt;
  return ErrorOf(v.get_object());
}

bool IsModernError(const RpcError& error) {
  return error.code == kHeaderMismatch || error.code == kMissingClientCapability ||
         error.code == kUnsupportedProtocolVersion || error.code == kMethodNotFound;
}

}  // namespace agentgate::mcp
