#include "domain/mcp/mcp_server.hpp"

#include "domain/json_text.hpp"

#include <boost/json/parse.hpp>
#include <boost/json/serialize.hpp>
#include <boost/json/value_from.hpp>

#include <algorithm>

namespace agentgate::mcp {
namespace json = boost::json;
namespace {

constexpr std::string_view kMetaVersion = "io.modelcontextprotocol/protocolVersion";
constexpr std::string_view kServerInfo = "io.modelcontextprotocol/serverInfo";

Refusal Refuse(int status, std::int64_t code, std::string message, json::value data = nullptr) {
  return Refusal{status, RpcError{code, std::move(message), std::move(data)}};
}

std::optional<std::string> MetaVersion(const json::object& params) {
  const auto* meta = params.if_contains("_meta");
  if (meta == nullptr || !meta->is_object()) return std::nullopt;
  const auto* v = meta->get_object().if_contains(kMetaVersion);
  if (v == nullptr || !v->is_string()) return std::nullopt;
  return std::string(v->get_string());
}

int Base64Value(char c) {
  if (c >= 'A' && c <= 'Z') return c - 'A';
  if (c >= 'a' && c <= 'z') return c - 'a' + 26;
  if (c >= '0' && c <= '9') return c - '0' + 52;
  if (c == '+') return 62;
  if (c == '/') return 63;
  return -1;
}

// A header value as sent: decoded when it uses the "=?base64?...?=" sentinel.
std::optional<std::string> DecodedHeader(std::string_view value) {
  if (!(value.starts_with("=?base64?") && value.ends_with("?=") && value.size() >= 11))
    return std::string(value);
  value = value.substr(9, value.size() - 11);
  std::string out;
  std::uint32_t bits = 0;
  int count = 0;
  for (char c : value) {
    if (c == '=') break;
    const int v = Base64Value(c);
    if (v < 0) return std::nullopt;
    bits = (bits << 6) | static_cast<std::uint32_t>(v);
    count += 6;
    if (count >= 8) {
      count -= 8;
      out += static_cast<char>((bits >> count) & 0xff);
    }
  }
  return out;
}

json::object ServerInfo(std::string_view server_version) {
  return json::object{{"name", "agentgate"}, {"version", server_version}};
}

}  // namespace

const std::vector<std::string>& SupportedVersions() {
  static const std::vector<std::string> kVersions{std::string(kModernVersion), "2025-11-25",
                                                  "2025-06-18", "2025-03-26"};
  return kVersions;
}

std::variant<IncomingMessage, Refusal> ReadIncoming(std::string_view body) {
  boost::system::error_code ec;
  auto v = json::parse(body, ec);
  if (ec) return Refuse(400, kParseError, "the body is not JSON");
  if (v.is_array())
    return Refuse(400, kInvalidRequest, "batches are not supported; send one message per POST");
  if (!v.is_object()) return Refuse(400, kInvalidRequest, "the body must be a JSON-RPC object");
  auto& o = v.get_object();
  if (o.if_contains("jsonrpc") == nullptr || o.at("jsonrpc") != "2.0")
    return Refuse(400, kInvalidRequest, "jsonrpc must be \"2.0\"");
  const auto* method = o.if_contains("method");
  if (method == nullptr && (o.contains("result") || o.contains("error"))) {
    const auto* id = o.if_contains("id");
    if (id == nullptr || (!id->is_string() && !id->is_int64()))
      return Refuse(400, kInvalidRequest, "a response's id must be a string or an integer");
    IncomingMessage response;
    response.response = true;
    response.id = *id;
    if (const auto* result = o.if_contains("result"); result != nullptr && result->is_object())
      response.result = *result;
    return response;
  }
  if (method == nullptr || !method->is_string())
    return Refuse(400, kInvalidRequest, "method must be a string");
  IncomingMessage message;
  message.method = std::string(method->get_string());
  if (const auto* id = o.if_contains("id")) {
    if (!id->is_string() && !id->is_int64() && !id->is_uint64())
      return Refuse(400, kInvalidRequest, "id must be a string or an integer");
    message.id = *id;
  } else {
    message.notification = true;
  }
  if (const auto* params = o.if_contains("params"); params != nullptr && !params->is_null()) {
    if (!params->is_object()) return Refuse(400, kInvalidParams, "params must be an object");
    message.params = params->get_object();
  }
  return message;
}

std::variant<Era, Refusal> EraOf(const IncomingMessage& message, const TransportHeaders& headers) {
  const auto meta_version = MetaVersion(message.params);
  const bool modern = meta_version.has_value() ||
                      (headers.protocol_version && *headers.protocol_version == kModernVersion);
  if (!modern) {
    // The initialize handshake names its version in its body; later requests in the header (an
    // older client that sends none speaks 2025-03-26).
    const std::string version = headers.protocol_version.value_or("2025-03-26");
    if (message.method != "initialize" && !IsLegacyVersion(version)) {
      return Refuse(400, kUnsupportedProtocolVersion, "Unsupported protocol version",
                    json::object{{"supported", json::value_from(SupportedVersions())},
                                 {"requested", version}});
    }
    return Era{false, version};
  }
  if (!meta_version) {
    return Refuse(
        400, kInvalidParams,
        "a 2026-07-28 request carries params._meta[\"" + std::string(kMetaVersion) + "\"]");
  }
  if (*meta_version != kModernVersion) {
    return Refuse(400, kUnsupportedProtocolVersion, "Unsupported protocol version",
                  json::object{{"supported", json::value_from(SupportedVersions())},
                               {"requested", *meta_version}});
  }
  if (!headers.protocol_version || *headers.protocol_version != *meta_version)
    return Refuse(400, kHeaderMismatch,
                  "Header mismatch: MCP-Protocol-Version does not match the body's _meta");
  if (!message.notification && (!headers.method || *headers.method != message.method))
    return Refuse(400, kHeaderMismatch, "Header mismatch: Mcp-Method does not match the method");
  if (message.method == "tools/call" || message.method == "resources/read" ||
      message.method == "prompts/get") {
    const auto* name =
        message.params.if_contains(message.method == "resources/read" ? "uri" : "name");
    const auto decoded = headers.name ? DecodedHeader(*headers.name) : std::nullopt;
    if (name == nullptr || !name->is_string() || !decoded || *decoded != name->get_string())
      return Refuse(400, kHeaderMismatch, "Header mismatch: Mcp-Name does not match the body");
  }
  return Era{true, std::string(kModernVersion)};
}

json::object InitializeResult(const json::object& params, std::string_view server_version) {
  const auto* asked = params.if_contains("protocolVersion");
  std::string version(kLegacyVersion);
  if (asked != nullptr && asked->is_string() && IsLegacyVersion(asked->get_string()))
    version = std::string(asked->get_string());
  return json::object{
      {"protocolVersion", version},
      {"capabilities", json::object{{"tools", json::object{{"listChanged", false}}}}},
      {"serverInfo", ServerInfo(server_version)},
      {"instructions",
       "Each tool is an agent. Call it with a message; pass the conversation_id a "
       "stateful call returns to continue a conversation."}};
}

json::object DiscoverResult(std::string_view server_version) {
  return json::object{{"supportedVersions", json::value_from(SupportedVersions())},
                      {"capabilities", json::object{{"tools", json::object{}}}},
                      {"_meta", json::object{{kServerInfo, ServerInfo(server_version)}}}};
}

json::object ToolsListResult(const std::vector<ToolDescription>& tools) {
  json::array listed;
  for (const auto& t : tools) {
    json::object tool{
        {"name", t.name}, {"description", t.description}, {"inputSchema", t.input_schema}};
    if (t.output_schema) tool["outputSchema"] = *t.output_schema;
    listed.push_back(std::move(tool));
  }
  // Grants can change at any moment: clients should not cache the list.
  return json::object{{"tools", std::move(listed)}, {"ttlMs", 0}, {"cacheScope", "private"}};
}

json::value AgentInputSchema(bool per_instance) {
  json::object properties{
      {"message",
       json::object{
           {"type", "string"}, {"minLength", 1}, {"description", "What to say to the agent."}}},
      {"stateful",
       json::object{
           {"type", "boolean"},
           {"description", "Keep a conversation: the result's conversation_id continues it."}}},
      {"conversation_id",
       json::object{{"type", json::array{"string", "null"}},
                    {"description", "A conversation to continue (with stateful: true)."}}},
      {"host_context", json::object{{"type", json::array{"object", "null"}},
                                    {"description", "Data for this call only."}}},
      {"additional_instructions",
       json::object{{"type", json::array{"string", "null"}},
                    {"description", "Instructions for this call only."}}},
      {"group_key", json::object{{"type", "string"},
                                 {"pattern", "^[A-Za-z0-9._@-]{1,128}$"},
                                 {"description", "The memory group (shared-memory agents)."}}},
  };
  json::array required{"message"};
  if (per_instance) {
    properties["instance_id"] =
        json::object{{"type", "string"}, {"description", "The agent instance to talk to."}};
    required.push_back("instance_id");
  }
  return json::object{{"type", "object"},
                      {"properties", std::move(properties)},
                      {"required", std::move(required)},
                      {"additionalProperties", false}};
}

json::value AgentOutputSchema(const json::value& answer_schema) {
  const json::object nullable_string{{"type", json::array{"string", "null"}}};
  return json::object{
      {"type", "object"},
      {"properties",
       json::object{
           {"output",
            json::object{{"anyOf", json::array{answer_schema, json::object{{"type", "null"}}}}}},
           {"blocked", json::object{{"type", "boolean"}}},
           {"conversation_id", nullable_string},
           {"terminated_reason", nullable_string},
           {"usage", json::object{{"type", "object"}}}}},
      {"required", json::array{"output"}}};
}

json::object CallToolResult(std::string text, json::object structured, bool is_error) {
  json::object result{
      {"content", json::array{json::object{{"type", "text"}, {"text", std::move(text)}}}},
      {"isError", is_error}};
  if (!structured.empty()) result["structuredContent"] = std::move(structured);
  return result;
}

json::object Finished(json::object result, const Era& era) {
  if (era.modern) result["resultType"] = "complete";
  return result;
}

std::string ResultBody(const json::value& id, json::object result) {
  return json_text::Write(
      json::object{{"jsonrpc", "2.0"}, {"id", id}, {"result", std::move(result)}});
}

std::string ErrorBody(const json::value& id, const RpcError& error) {
  json::object e{{"code", error.code}, {"message", error.message}};
  if (!error.data.is_null()) e["data"] = error.data;
  return json_text::Write(json::object{{"jsonrpc", "2.0"}, {"id", id}, {"error", std::move(e)}});
}

std::optional<json::value> ProgressToken(const json::object& params) {
  const auto* meta = params.if_contains("_meta");
  if (meta == nullptr || !meta->is_object()) return std::nullopt;
  const auto* token = meta->get_object().if_contains("progressToken");
  if (token == nullptr || !(token->is_string() || token->is_int64() || token->is_uint64()))
    return std::nullopt;
  return *token;
}

std::optional<std::string> ProgressMessage(std::string_view event_type, std::string_view data) {
  boost::system::error_code ec;
  const json::value parsed = json::parse(data, ec);
  const json::object* o = ec ? nullptr : parsed.if_object();
  if (o == nullptr) return std::nullopt;
  const auto text = [o](std::string_view key) -> std::string {
    const auto* v = o->if_contains(key);
    if (v == nullptr) return "";
    if (v->is_string()) return std::string(v->get_string());
    if (v->is_int64()) return std::to_string(v->get_int64());
    return "";
  };
  if (event_type == "model.started") return "model call " + text("call") + " started";
  if (event_type == "model.finished") {
    const std::string failure = text("failure");
    return "model call " + text("call") +
           (failure.empty() ? " finished" : " failed (" + failure + ")");
  }
  if (event_type == "tool.started") return "tool " + text("name") + " started";
  if (event_type == "tool.finished") {
    const auto* ok = o->if_contains("ok");
    const bool succeeded = ok != nullptr && ok->is_bool() && ok->get_bool();
    return "tool " + text("name") + (succeeded ? " finished" : " failed");
  }
  if (event_type == "tool.progress")
    return "tool " + text("name") + ": " + text("state") + ", " + text("chars") + " characters";
  if (event_type == "text.delta") return "reply written";
  return std::nullopt;
}

std::string ProgressNotification(const json::value& token, std::int64_t progress,
                                 std::string_view message) {
  return json::serialize(json::object{{"jsonrpc", "2.0"},
                                      {"method", "notifications/progress"},
                                      {"params", json::object{{"progressToken", token},
                                                              {"progress", progress},
                                                              {"message", std::string(message)}}}});
}

std::string SseMessage(std::string_view json_rpc) {
  std::string frame = "event: message\ndata: ";
  frame.append(json_rpc);
  frame.append("\n\n");
  return frame;
}

}  // namespace agentgate::mcp
