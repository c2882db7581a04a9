#include "domain/mcp/mcp_tools.hpp"

#include "domain/json_text.hpp"

#include <algorithm>
#include <cctype>
#include <set>

namespace agentgate::mcp {
namespace json = boost::json;
namespace {

bool IsTokenChar(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) != 0 ||
         std::string_view("!#$%&'*+-.^_`|~").find(c) != std::string_view::npos;
}

std::string Lower(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

// Collects x-mcp-header annotations; an annotation that breaks a rule of the transport fails.
struct HeaderScan {
  std::vector<HeaderParam> params;
  std::set<std::string> seen;  // lower-cased
  std::string problem;

  void Scan(const json::value& v, std::vector<std::string>& path, bool reachable, bool property) {
    if (!problem.empty()) return;
    if (v.is_array()) {
      for (const auto& item : v.get_array()) Scan(item, path, false, false);
      return;
    }
    if (!v.is_object()) return;
    const auto& o = v.get_object();
    if (const auto* h = o.if_contains("x-mcp-header"))
      Annotation(*h, o, path, reachable && property);
    for (const auto& kv : o) {
      if (kv.key() == "properties" && reachable && kv.value().is_object()) {
        for (const auto& prop : kv.value().get_object()) {
          path.emplace_back(prop.key());
          Scan(prop.value(), path, true, true);
          path.pop_back();
        }
      } else if (kv.key() != "x-mcp-header") {
        Scan(kv.value(), path, false, false);
      }
    }
  }

  void Annotation(const json::value& h, const json::object& schema,
                  const std::vector<std::string>& path, bool allowed) {
    if (!allowed) {
      problem = "x-mcp-header is only allowed on properties reached through 'properties'";
    } else if (!h.is_string() || h.get_string().empty() ||
               !std::all_of(h.get_string().begin(), h.get_string().end(), IsTokenChar)) {
      problem = "x-mcp-header must be a non-empty header token";
    } else if (const auto* type = schema.if_contains("type");
               type == nullptr ||
               !(*type == "string" || *type == "integer" || *type == "boolean")) {
      problem = "x-mcp-header is only allowed on string, integer and boolean parameters";
    } else if (!seen.insert(Lower(h.get_string())).second) {
      problem = "x-mcp-header '" + std::string(h.get_string()) + "' is used twice";
    } else {
      params.push_back(HeaderParam{path, std::string(h.get_string())});
    }
  }
};

std::string Base64(std::string_view in) {
  static constexpr char kAlphabet[] =
      "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  std::string out;
  out.reserve((in.size() + 2) / 3 * 4);
  for (std::size_t i = 0; i < in.size(); i += 3) {
    const std::size_t n = std::min<std::size_t>(3, in.size() - i);
    std::uint32_t chunk = 0;
    for (std::size_t k = 0; k < 3; ++k)
      chunk = (chunk << 8) | (k < n ? static_cast<unsigned char>(in[i + k]) : 0u);
    for (std::size_t k = 0; k < 4; ++k)
      out += k <= n ? kAlphabet[(chunk >> (18 - 6 * k)) & 0x3f] : '=';
  }
  return out;
}

std::string Truncated(std::string text, std::size_t max) {
  if (text.size() > max) text = text.substr(0, max) + "\n[truncated]";
  return text;
}

std::string StringField(const json::object& o, std::string_view key) {
  const auto* v = o.if_contains(key);
  return v != nullptr && v->is_string() ? std::string(v->get_string()) : "";
}

// A content block as the model reads it; binary content is described, never forwarded.
std::string RenderBlock(const json::object& block) {
  const std::string type = StringField(block, "type");
  if (type == "text") return StringField(block, "text");
  if (type == "image" || type == "audio") {
    const std::size_t bytes = StringField(block, "data").size() * 3 / 4;
    return "[" + type + " (" + StringField(block, "mimeType") + ", about " + std::to_string(bytes) +
           " bytes) not shown]";
  }
  if (type == "resource_link") {
    return "[resource link: " + StringField(block, "uri") +
           (block.contains("name") ? " (" + StringField(block, "name") + ")" : "") + "]";
  }
  if (type == "resource") {
    const auto* r = block.if_contains("resource");
    if (r == nullptr || !r->is_object()) return "[resource]";
    const auto& resource = r->get_object();
    if (resource.contains("text"))
      return "[resource " + StringField(resource, "uri") + "]\n" + StringField(resource, "text");
    return "[resource " + StringField(resource, "uri") + " (" + StringField(resource, "mimeType") +
           ", binary) not shown]";
  }
  return "[" + (type.empty() ? std::string("unknown") : type) + " content not shown]";
}

}  // namespace

Result<ToolPage> ParseToolList(const json::value& result) {
  if (!result.is_object())
    return Error(ErrorCode::kUnavailable, "tools/list: result is not an object");
  const auto& o = result.get_object();
  const auto* tools = o.if_contains("tools");
  if (tools == nullptr || !tools->is_array())
    return Error(ErrorCode::kUnavailable, "tools/list: result has no 'tools' array");
  ToolPage page;
  for (const auto& t : tools->get_array()) {
    if (!t.is_object()) continue;
    const auto& tool = t.get_object();
    McpTool parsed;
    parsed.name = StringField(tool, "name");
    if (parsed.name.empty()) continue;
    parsed.description = StringField(tool, "description");
    if (parsed.description.empty()) parsed.description = StringField(tool, "title");
    const auto* schema = tool.if_contains("inputSchema");
    parsed.input_schema = schema != nullptr && schema->is_object()
                              ? *schema
                              : json::value(json::object{{"type", "object"}});
    HeaderScan scan;
    std::vector<std::string> path;
    scan.Scan(parsed.input_schema, path, true, false);
    if (!scan.problem.empty()) {
      page.rejected.push_back(parsed.name + ": " + scan.problem);
      continue;
    }
    parsed.header_params = std::move(scan.params);
    if (const auto* notes = tool.if_contains("annotations");
        notes != nullptr && notes->is_object()) {
      const auto hint = [&](const char* key) {
        const auto* v = notes->get_object().if_contains(key);
        return v != nullptr && v->is_bool() && v->get_bool();
      };
      parsed.read_only_hint = hint("readOnlyHint");
      parsed.destructive_hint = hint("destructiveHint");
    }
    page.tools.push_back(std::move(parsed));
  }
  if (const auto* c = o.if_contains("nextCursor"); c != nullptr && c->is_string())
    page.next_cursor = std::string(c->get_string());
  if (const auto* ttl = o.if_contains("ttlMs"); ttl != nullptr && ttl->is_int64())
    page.ttl_ms = ttl->as_int64();
  return page;
}

std::optional<std::string> ModelToolName(std::string_view server, std::string_view tool) {
  std::string name = std::string(server) + "__" + std::string(tool);
  for (char& c : name) {
    const bool ok = std::isalnum(static_cast<unsigned char>(c)) != 0 || c == '_' || c == '-';
    if (!ok) c = '_';
  }
  if (name.size() > 64) return std::nullopt;
  return name;
}

std::string EncodedHeaderValue(std::string_view value) {
  const bool plain = std::all_of(value.begin(), value.end(),
                                 [](char c) { return (c >= 0x20 && c <= 0x7e) || c == '\t'; }) &&
                     (value.empty() || (value.front() != ' ' && value.front() != '\t' &&
                                        value.back() != ' ' && value.back() != '\t'));
  const bool sentinel_like = value.starts_with("=?base64?") && value.ends_with("?=");
  if (plain && !sentinel_like) return std::string(value);
  return "=?base64?" + Base64(value) + "?=";
}

std::vector<std::pair<std::string, std::string>> ParamHeaders(const McpTool& tool,
                                                              const json::object& arguments) {
  std::vector<std::pair<std::string, std::string>> headers;
  for (const auto& param : tool.header_params) {
    const json::value* v = nullptr;
    const json::object* at = &arguments;
    for (const auto& key : param.path) {
      v = at != nullptr ? at->if_contains(key) : nullptr;
      if (v == nullptr) break;
      at = v->is_object() ? &v->get_object() : nullptr;
    }
    if (v == nullptr || v->is_null()) continue;
    std::string text;
    if (v->is_string()) {
      text = std::string(v->get_string());
    } else if (v->is_bool()) {
      text = v->get_bool() ? "true" : "false";
    } else if (v->is_int64() || v->is_uint64()) {
      text = json_text::Write(*v);
    } else {
      continue;  // the server's schema said otherwise; the server will say so
    }
    headers.emplace_back("Mcp-Param-" + param.header, EncodedHeaderValue(text));
  }
  return headers;
}

std::string RenderCallResult(const json::value& result, std::size_t max_chars) {
  if (!result.is_object()) return "error: the MCP server's result is not an object";
  const auto& o = result.get_object();
  std::string text;
  std::vector<std::string> texts;
  if (const auto* content = o.if_contains("content"); content != nullptr && content->is_array()) {
    for (const auto& block : content->get_array()) {
      if (!block.is_object()) continue;
      const std::string rendered = RenderBlock(block.get_object());
      if (block.get_object().if_contains("type") != nullptr && block.at("type") == "text")
        texts.push_back(rendered);
      text += (text.empty() ? "" : "\n") + rendered;
    }
  }
  if (const auto* structured = o.if_contains("structuredContent");
      structured != nullptr && !structured->is_null()) {
    // Servers often repeat structured content as text; the model needs it once.
    const std::string compact = json_text::Write(*structured);
    if (std::find(texts.begin(), texts.end(), compact) == texts.end())
      text += (text.empty() ? "" : "\n") + compact;
  }
  const auto* is_error = o.if_contains("isError");
  const bool failed = is_error != nullptr && is_error->is_bool() && is_error->get_bool();
  if (failed) text = "error: " + (text.empty() ? std::string("the tool failed") : text);
  return Truncated(std::move(text), max_chars);
}

}  // namespace agentgate::mcp
