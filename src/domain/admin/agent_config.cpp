#include "domain/admin/agent_config.hpp"

#include "domain/json_fields.hpp"
#include "domain/schema/json_schema.hpp"

#include <re2/re2.h>

#include <algorithm>
#include <cctype>
#include <set>
#include <string_view>

namespace agentgate {
namespace {

using boost::json::object;
namespace jf = json_fields;

constexpr std::string_view kRoot = "config";

std::string Indexed(std::string_view path, std::size_t i) {
  return std::string(path) + "[" + std::to_string(i) + "]";
}

bool IsValidToolName(std::string_view s) {
  if (s.empty() || s.size() > 64) return false;
  for (char c : s) {
    const bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                    c == '_' || c == '-';
    if (!ok) return false;
  }
  return true;
}

bool IsHttpUrl(std::string_view s) {
  return (s.starts_with("http://") && s.size() > 7) || (s.starts_with("https://") && s.size() > 8);
}

Result<const boost::json::array*> OptionalArray(const object& o, std::string_view key,
                                                std::string_view path) {
  const auto* v = o.if_contains(key);
  if (v == nullptr || v->is_null()) return static_cast<const boost::json::array*>(nullptr);
  if (!v->is_array()) return InvalidField(jf::Join(path, key), "must be an array");
  return &v->get_array();
}

Result<boost::json::value> SchemaObject(const object& o, std::string_view path) {
  const auto* v = o.if_contains("parameters");
  if (v == nullptr || v->is_null()) return boost::json::value(object{{"type", "object"}});
  if (!v->is_object()) {
    return InvalidField(jf::Join(path, "parameters"), "must be a JSON Schema object");
  }
  return *v;
}

constexpr std::size_t kMaxFallbacks = 5;

// model.fallbacks: [{provider, name}], each a model other than the ones before it.
Result<std::vector<ModelRef>> ParseFallbacks(const object& model, const std::string& path,
                                             const ModelSettings& primary) {
  std::vector<ModelRef> fallbacks;
  AG_TRY(const auto* list, OptionalArray(model, "fallbacks", path));
  if (list == nullptr) return fallbacks;
  const std::string list_path = path + ".fallbacks";
  if (list->size() > kMaxFallbacks)
    return InvalidField(list_path, "may list at most " + std::to_string(kMaxFallbacks) + " models");
  for (std::size_t i = 0; i < list->size(); ++i) {
    const std::string at = list_path + "[" + std::to_string(i) + "]";
    AG_TRY(const object* o, jf::AsObject((*list)[i], at));
    AG_TRYV(jf::RejectUnknownKeys(*o, at, {"provider", "name"}));
    ModelRef ref;
    AG_TRY(ref.provider, jf::RequiredString(*o, "provider", at));
    AG_TRY(ref.name, jf::RequiredString(*o, "name", at));
    if (ref.provider.empty()) return InvalidField(at + ".provider", "must not be empty");
    if (ref.name.empty()) return InvalidField(at + ".name", "must not be empty");
    const auto same = [&](const ModelRef& other) {
      return other.provider == ref.provider && other.name == ref.name;
    };
    if ((ref.provider == primary.provider && ref.name == primary.name) ||
        std::any_of(fallbacks.begin(), fallbacks.end(), same))
      return InvalidField(at, "names a model the chain already has");
    fallbacks.push_back(std::move(ref));
  }
  return fallbacks;
}

Result<ModelSettings> ParseModel(const object& root) {
  const std::string path = jf::Join(kRoot, "model");
  const auto* v = root.if_contains("model");
  if (v == nullptr) return InvalidField(path, "is required");
  AG_TRY(const object* o, jf::AsObject(*v, path));
  AG_TRYV(jf::RejectUnknownKeys(*o, path,
                                {"provider", "name", "temperature", "max_output_tokens",
                                 "context_tokens", "fallbacks", "prompt_caching"}));
  ModelSettings m;
  AG_TRY(m.provider, jf::RequiredString(*o, "provider", path));
  AG_TRY(m.name, jf::RequiredString(*o, "name", path));
  if (m.provider.empty()) return InvalidField(path + ".provider", "must not be empty");
  if (m.name.empty()) return InvalidField(path + ".name", "must not be empty");
  AG_TRY(m.temperature, jf::OptionalNumber(*o, "temperature", path));
  if (m.temperature && (*m.temperature < 0 || *m.temperature > 2)) {
    return InvalidField(path + ".temperature", "must be between 0 and 2");
  }
  AG_TRY(auto max_out, jf::OptionalInteger(*o, "max_output_tokens", path));
  if (max_out) {
    if (*max_out < 1 || *max_out > 1000000) {
      return InvalidField(path + ".max_output_tokens", "must be between 1 and 1000000");
    }
    m.max_output_tokens = static_cast<int>(*max_out);
  }
  AG_TRY(auto context, jf::OptionalInteger(*o, "context_tokens", path));
  if (context) {
    if (*context < 256 || *context > 10000000) {
      return InvalidField(path + ".context_tokens", "must be between 256 and 10000000");
    }
    m.context_tokens = static_cast<int>(*context);
  }
  AG_TRY(auto caching, jf::OptionalBool(*o, "prompt_caching", path));
  if (caching) m.prompt_caching = *caching;
  AG_TRY(m.fallbacks, ParseFallbacks(*o, path, m));
  return m;
}

Result<HistorySettings> ParseHistory(const object& root) {
  const std::string path = jf::Join(kRoot, "history");
  HistorySettings h;
  const auto* v = root.if_contains("history");
  if (v == nullptr) return h;
  AG_TRY(const object* o, jf::AsObject(*v, path));
  AG_TRYV(jf::RejectUnknownKeys(*o, path, {"strategy", "max_input_tokens"}));
  AG_TRY(auto strategy, jf::OptionalString(*o, "strategy", path));
  if (strategy && *strategy == "summarize") {
    h.strategy = HistoryStrategy::kSummarize;
  } else if (strategy && *strategy != "window") {
    return InvalidField(path + ".strategy", "must be \"window\" or \"summarize\"");
  }
  AG_TRY(auto max_input, jf::OptionalInteger(*o, "max_input_tokens", path));
  if (max_input) {
    if (*max_input < 256 || *max_input > 10000000)
      return InvalidField(path + ".max_input_tokens", "must be between 256 and 10000000");
    h.max_input_tokens = static_cast<int>(*max_input);
  }
  return h;
}

bool IsEnvName(std::string_view s) {
  if (s.empty() || s.size() > 128 || (s.front() >= '0' && s.front() <= '9')) return false;
  return std::all_of(s.begin(), s.end(), [](char c) {
    return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_';
  });
}

// "headers": {"Name": "literal" | {"env": "VARIABLE"}}.
Result<std::map<std::string, HeaderValue>> ParseHeaders(const object& o, const std::string& path) {
  std::map<std::string, HeaderValue> out;
  const auto* h = o.if_contains("headers");
  if (h == nullptr || h->is_null()) return out;
  AG_TRY(const object* headers, jf::AsObject(*h, path + ".headers"));
  for (const auto& kv : *headers) {
    const std::string field = path + ".headers." + std::string(kv.key());
    if (kv.key().empty() || !std::all_of(kv.key().begin(), kv.key().end(), [](char c) {
          return std::isalnum(static_cast<unsigned char>(c)) != 0 || c == '-' || c == '_';
        })) {
      return InvalidField(field, "is not a valid header name");
    }
    HeaderValue value;
    value.field = field;
    if (kv.value().is_string()) {
      value.literal = std::string(kv.value().get_string());
      if (value.literal.find_first_of("\r\n") != std::string::npos)
        return InvalidField(field, "must not contain line breaks");
    } else if (kv.value().is_object()) {
      const auto& ref = kv.value().get_object();
      AG_TRYV(jf::RejectUnknownKeys(ref, field, {"env", "secret"}));
      if (ref.size() != 1) return InvalidField(field, "must name one of \"env\" or \"secret\"");
      if (ref.contains("env")) {
        AG_TRY(value.env, jf::RequiredString(ref, "env", field));
        if (!IsEnvName(value.env))
          return InvalidField(field + ".env", "must be an environment variable name");
      } else {
        AG_TRY(value.secret, jf::RequiredString(ref, "secret", field));
        if (!IsValidToolName(value.secret))
          return InvalidField(field + ".secret", "must be a secret name ([A-Za-z0-9_-]{1,64})");
      }
    } else {
      return InvalidField(field, "must be a string, {\"env\": VARIABLE} or {\"secret\": NAME}");
    }
    out[std::string(kv.key())] = std::move(value);
  }
  return out;
}

Result<int> ParseTimeout(const object& o, const std::string& path, int fallback) {
  AG_TRY(auto timeout, jf::OptionalInteger(o, "timeout_seconds", path));
  if (!timeout) return fallback;
  if (*timeout < 1 || *timeout > 120)
    return InvalidField(path + ".timeout_seconds", "must be between 1 and 120");
  return static_cast<int>(*timeout);
}

// "approval": "never" (default) | "always" | "writes".
Result<Approval> ParseApproval(const object& o, const std::string& path) {
  AG_TRY(auto approval, jf::OptionalString(o, "approval", path));
  if (!approval || *approval == "never") return Approval::kNever;
  if (*approval == "always") return Approval::kAlways;
  if (*approval == "writes") return Approval::kWrites;
  return InvalidField(path + ".approval", "must be \"never\", \"always\" or \"writes\"");
}

Result<HttpTool> ParseHttpTool(const object& o, const std::string& path) {
  AG_TRYV(jf::RejectUnknownKeys(o, path,
                                {"type", "name", "description", "parameters", "url", "method",
                                 "headers", "timeout_seconds", "approval"}));
  HttpTool t;
  AG_TRY(t.name, jf::RequiredString(o, "name", path));
  AG_TRY(t.description, jf::RequiredString(o, "description", path));
  AG_TRY(t.parameters, SchemaObject(o, path));
  AG_TRY(t.url, jf::RequiredString(o, "url", path));
  if (!IsHttpUrl(t.url)) return InvalidField(path + ".url", "must be an http or https URL");
  AG_TRY(auto method, jf::OptionalString(o, "method", path));
  if (method) {
    static const std::set<std::string> kMethods{"GET", "POST", "PUT", "PATCH", "DELETE"};
    if (!kMethods.contains(*method)) {
      return InvalidField(path + ".method", "must be one of GET, POST, PUT, PATCH, DELETE");
    }
    t.method = *method;
  }
  AG_TRY(t.headers, ParseHeaders(o, path));
  AG_TRY(t.timeout_seconds, ParseTimeout(o, path, t.timeout_seconds));
  AG_TRY(t.approval, ParseApproval(o, path));
  return t;
}

Result<McpServerTool> ParseMcpTool(const object& o, const std::string& path) {
  AG_TRYV(jf::RejectUnknownKeys(
      o, path, {"type", "name", "url", "headers", "allowed_tools", "timeout_seconds", "approval"}));
  McpServerTool t;
  AG_TRY(t.name, jf::RequiredString(o, "name", path));
  // The name prefixes the server's tools ("<name>__<tool>"), so it may not hold "__" itself.
  if (t.name.empty() || t.name.size() > 32 || !IsValidToolName(t.name) ||
      t.name.find("__") != std::string::npos) {
    return InvalidField(path + ".name", "must match [A-Za-z0-9_-]{1,32} without \"__\"");
  }
  AG_TRY(t.url, jf::RequiredString(o, "url", path));
  if (!IsHttpUrl(t.url)) return InvalidField(path + ".url", "must be an http or https URL");
  AG_TRY(t.headers, ParseHeaders(o, path));
  AG_TRY(const auto* allowed, OptionalArray(o, "allowed_tools", path));
  if (allowed != nullptr) {
    if (allowed->empty())
      return InvalidField(path + ".allowed_tools", "must list at least one tool");
    std::set<std::string> seen;
    t.allowed_tools.emplace();
    for (std::size_t i = 0; i < allowed->size(); ++i) {
      const std::string item = Indexed(path + ".allowed_tools", i);
      const auto& v = (*allowed)[i];
      if (!v.is_string() || v.get_string().empty() || v.get_string().size() > 128)
        return InvalidField(item, "must be a tool name of 1-128 characters");
      if (!seen.insert(std::string(v.get_string())).second)
        return InvalidField(item, "lists '" + std::string(v.get_string()) + "' twice");
      t.allowed_tools->emplace_back(v.get_string());
    }
  }
  AG_TRY(t.timeout_seconds, ParseTimeout(o, path, t.timeout_seconds));
  AG_TRY(t.approval, ParseApproval(o, path));
  return t;
}

Result<A2aAgentTool> ParseA2aAgentTool(const object& o, const std::string& path) {
  AG_TRYV(jf::RejectUnknownKeys(
      o, path, {"type", "name", "card_url", "headers", "timeout_seconds", "approval"}));
  A2aAgentTool t;
  AG_TRY(t.name, jf::RequiredString(o, "name", path));
  AG_TRY(t.card_url, jf::RequiredString(o, "card_url", path));
  if (!IsHttpUrl(t.card_url) || t.card_url.size() > 2048)
    return InvalidField(path + ".card_url", "must be an http or https URL of its agent card");
  AG_TRY(t.headers, ParseHeaders(o, path));
  AG_TRY(t.timeout_seconds, ParseTimeout(o, path, t.timeout_seconds));
  AG_TRY(t.approval, ParseApproval(o, path));
  return t;
}

Result<CrmMetadataTool> ParseCrmMetadataTool(const object& o, const std::string& path) {
  AG_TRYV(jf::RejectUnknownKeys(o, path, {"type", "methods", "approval"}));
  CrmMetadataTool tool;
  AG_TRY(tool.approval, ParseApproval(o, path));
  AG_TRY(const auto* methods, OptionalArray(o, "methods", path));
  if (methods == nullptr) return tool;
  if (methods->empty()) return InvalidField(path + ".methods", "must list at least one method");
  tool.methods.clear();
  static const std::set<std::string> kMethods{"GET", "POST", "PATCH", "PUT", "DELETE"};
  for (std::size_t i = 0; i < methods->size(); ++i) {
    const auto& m = (*methods)[i];
    const std::string item = Indexed(path + ".methods", i);
    if (!m.is_string() || !kMethods.contains(std::string(m.get_string())))
      return InvalidField(item, "must be one of GET, POST, PATCH, PUT, DELETE");
    std::string method(m.get_string());
    if (tool.Allows(method)) return InvalidField(item, "lists " + method + " twice");
    tool.methods.push_back(std::move(method));
  }
  return tool;
}

Result<void> ParseTools(const object& root, AgentConfig& c) {
  const std::string path = jf::Join(kRoot, "tools");
  AG_TRY(const auto* tools, OptionalArray(root, "tools", kRoot));
  if (tools == nullptr) return {};
  for (std::size_t i = 0; i < tools->size(); ++i) {
    const std::string item = Indexed(path, i);
    AG_TRY(const object* o, jf::AsObject((*tools)[i], item));
    AG_TRY(std::string type, jf::RequiredString(*o, "type", item));
    if (type == "http") {
      AG_TRY(HttpTool t, ParseHttpTool(*o, item));
      c.http_tools.push_back(std::move(t));
    } else if (type == "mcp") {
      AG_TRY(McpServerTool t, ParseMcpTool(*o, item));
      for (const auto& other : c.mcp_servers) {
        if (other.name == t.name)
          return InvalidField(item + ".name", "'" + t.name + "' names another mcp server");
      }
      c.mcp_servers.push_back(std::move(t));
    } else if (type == "a2a") {
      AG_TRY(A2aAgentTool t, ParseA2aAgentTool(*o, item));
      // Its name is the model's tool: unique among the tools (its field named here, where it
      // is known; CheckNamesUnique checks the rest).
      if (!IsValidToolName(t.name))
        return InvalidField(item + ".name", "must match [A-Za-z0-9_-]{1,64}");
      for (const auto& other : c.a2a_agents) {
        if (other.name == t.name)
          return InvalidField(item + ".name", "'" + t.name + "' names another a2a agent");
      }
      c.a2a_agents.push_back(std::move(t));
    } else if (type == "crm_metadata") {
      if (c.crm_metadata_tool) return InvalidField(item + ".type", "crm_metadata is listed twice");
      AG_TRY(c.crm_metadata_tool, ParseCrmMetadataTool(*o, item));
    } else {
      return InvalidField(item + ".type", "must be \"http\", \"mcp\", \"a2a\" or \"crm_metadata\"");
    }
  }
  return {};
}

Result<void> ParseActions(const object& root, AgentConfig& c) {
  AG_TRY(const auto* actions, OptionalArray(root, "actions", kRoot));
  if (actions == nullptr) return {};
  for (std::size_t i = 0; i < actions->size(); ++i) {
    const std::string item = Indexed(jf::Join(kRoot, "actions"), i);
    AG_TRY(const object* o, jf::AsObject((*actions)[i], item));
    AG_TRYV(jf::RejectUnknownKeys(*o, item, {"name", "description", "parameters"}));
    ActionSpec a;
    AG_TRY(a.name, jf::RequiredString(*o, "name", item));
    AG_TRY(a.description, jf::RequiredString(*o, "description", item));
    AG_TRY(a.parameters, SchemaObject(*o, item));
    c.actions.push_back(std::move(a));
  }
  return {};
}

Result<void> ParseResources(const object& root, AgentConfig& c) {
  AG_TRY(const auto* resources, OptionalArray(root, "resources", kRoot));
  if (resources == nullptr) return {};
  std::set<std::string> ids;
  for (std::size_t i = 0; i < resources->size(); ++i) {
    const std::string item = Indexed(jf::Join(kRoot, "resources"), i);
    AG_TRY(const object* o, jf::AsObject((*resources)[i], item));
    AG_TRYV(jf::RejectUnknownKeys(*o, item, {"id", "title", "text"}));
    TrustedResource r;
    AG_TRY(r.id, jf::RequiredString(*o, "id", item));
    AG_TRY(r.title, jf::RequiredString(*o, "title", item));
    AG_TRY(r.text, jf::RequiredString(*o, "text", item));
    if (r.id.empty()) return InvalidField(item + ".id", "must not be empty");
    if (!ids.insert(r.id).second) return InvalidField(item + ".id", "duplicates another resource");
    c.resources.push_back(std::move(r));
  }
  return {};
}

// A block pattern: its RE2 text, or {"pattern", "max_match_bytes"}.
Result<BlockPattern> ParseBlockPattern(const boost::json::value& given, const std::string& item) {
  std::string at = item;
  BlockPattern out{""};
  if (given.is_object()) {
    const object& o = given.get_object();
    AG_TRYV(jf::RejectUnknownKeys(o, item, {"pattern", "max_match_bytes"}));
    AG_TRY(out.pattern, jf::RequiredString(o, "pattern", item));
    at = jf::Join(item, "pattern");
    if (const boost::json::value* max = o.if_contains("max_match_bytes");
        max != nullptr && !max->is_null()) {
      if (!max->is_int64() || max->get_int64() < 1 || max->get_int64() > 4096)
        return InvalidField(jf::Join(item, "max_match_bytes"), "must be an integer from 1 to 4096");
      out.max_match_bytes = static_cast<std::size_t>(max->get_int64());
    }
  } else if (given.is_string()) {
    out.pattern = std::string(given.get_string());
  } else {
    return InvalidField(item, "must be a string, or {\"pattern\", \"max_match_bytes\"}");
  }
  RE2 compiled(out.pattern, RE2::Quiet);
  if (!compiled.ok()) return InvalidField(at, "is not a valid RE2 pattern: " + compiled.error());
  return out;
}

Result<void> ParseSafety(const object& root, AgentConfig& c) {
  const std::string path = jf::Join(kRoot, "safety");
  const auto* v = root.if_contains("safety");
  if (v == nullptr || v->is_null()) return {};
  AG_TRY(const object* o, jf::AsObject(*v, path));
  AG_TRYV(jf::RejectUnknownKeys(*o, path, {"block_patterns", "detect", "placeholder"}));
  AG_TRY(const auto* patterns, OptionalArray(*o, "block_patterns", path));
  if (patterns != nullptr) {
    for (std::size_t i = 0; i < patterns->size(); ++i) {
      AG_TRY(auto pattern, ParseBlockPattern((*patterns)[i], Indexed(path + ".block_patterns", i)));
      c.safety.block_patterns.push_back(std::move(pattern));
    }
  }
  AG_TRY(const auto* detect, OptionalArray(*o, "detect", path));
  if (detect != nullptr) {
    for (std::size_t i = 0; i < detect->size(); ++i) {
      const std::string item = Indexed(path + ".detect", i);
      const auto& d = (*detect)[i];
      if (d == "credit_card") {
        c.safety.detect_credit_card = true;
      } else if (d == "secret") {
        c.safety.detect_secret = true;
      } else {
        return InvalidField(item, "must be \"credit_card\" or \"secret\"");
      }
    }
  }
  AG_TRY(auto placeholder, jf::OptionalString(*o, "placeholder", path));
  if (placeholder) {
    if (placeholder->empty()) return InvalidField(path + ".placeholder", "must not be empty");
    c.safety.placeholder = *placeholder;
  }
  return {};
}

// Tool and action names share one namespace with the built-in tools the model is offered.
Result<void> CheckNamesUnique(const AgentConfig& c) {
  std::set<std::string> seen{"search_resources", "remember", "crm_metadata", "ask_user",
                             std::string(schema::kAnswerToolName)};
  auto claim = [&](const std::string& name, const std::string& field) -> Result<void> {
    if (!IsValidToolName(name)) return InvalidField(field, "must match [A-Za-z0-9_-]{1,64}");
    if (!seen.insert(name).second) {
      return InvalidField(field, "'" + name + "' is already used by another tool or action");
    }
    return {};
  };
  for (std::size_t i = 0; i < c.http_tools.size(); ++i) {
    AG_TRYV(claim(c.http_tools[i].name, Indexed("config.tools", i) + ".name"));
  }
  for (const auto& agent : c.a2a_agents) AG_TRYV(claim(agent.name, "config.tools[].name"));
  for (std::size_t i = 0; i < c.actions.size(); ++i) {
    AG_TRYV(claim(c.actions[i].name, Indexed("config.actions", i) + ".name"));
  }
  return {};
}

}  // namespace

Result<AgentConfig> ParseAgentConfig(const boost::json::value& config) {
  AG_TRY(const object* root, jf::AsObject(config, kRoot));
  AG_TRYV(jf::RejectUnknownKeys(
      *root, kRoot,
      {"name", "description", "instructions", "model", "memory", "per_instance",
       "monthly_spend_limit_usd", "max_iterations", "tools", "actions", "resources", "safety",
       "history", "output_schema", "ask_user"}));
  AgentConfig c;
  AG_TRY(c.name, jf::RequiredString(*root, "name", kRoot));
  if (c.name.empty() || c.name.size() > 200) {
    return InvalidField("config.name", "must be 1-200 characters");
  }
  AG_TRY(auto description, jf::OptionalString(*root, "description", kRoot));
  c.description = description.value_or("");
  if (c.description.size() > 2000)
    return InvalidField("config.description", "must be at most 2000 characters");
  AG_TRY(auto instructions, jf::OptionalString(*root, "instructions", kRoot));
  c.instructions = instructions.value_or("");
  AG_TRY(c.model, ParseModel(*root));
  AG_TRY(auto memory, jf::OptionalString(*root, "memory", kRoot));
  if (memory && *memory == "shared") {
    c.memory = MemoryMode::kShared;
  } else if (memory && *memory != "none") {
    return InvalidField("config.memory", "must be \"none\" or \"shared\"");
  }
  AG_TRY(c.history, ParseHistory(*root));
  AG_TRY(auto ask_user, jf::OptionalBool(*root, "ask_user", kRoot));
  c.ask_user = ask_user.value_or(false);
  AG_TRY(auto per_instance, jf::OptionalBool(*root, "per_instance", kRoot));
  c.per_instance = per_instance.value_or(false);
  AG_TRY(c.monthly_spend_limit_usd, jf::OptionalNumber(*root, "monthly_spend_limit_usd", kRoot));
  if (c.monthly_spend_limit_usd && *c.monthly_spend_limit_usd < 0) {
    return InvalidField("config.monthly_spend_limit_usd", "must be >= 0 or null");
  }
  AG_TRY(auto max_iterations, jf::OptionalInteger(*root, "max_iterations", kRoot));
  if (max_iterations) {
    if (*max_iterations < 1 || *max_iterations > 100) {
      return InvalidField("config.max_iterations", "must be between 1 and 100");
    }
    c.max_iterations = static_cast<int>(*max_iterations);
  }
  AG_TRYV(ParseTools(*root, c));
  AG_TRYV(ParseActions(*root, c));
  AG_TRYV(ParseResources(*root, c));
  AG_TRYV(ParseSafety(*root, c));
  AG_TRYV(CheckNamesUnique(c));
  if (const auto* schema = root->if_contains("output_schema"); schema && !schema->is_null()) {
    AG_TRY(c.output_schema, schema::ReadAnswerSchema(*schema, "config.output_schema"));
  }
  return c;
}

bool McpServerTool::Allows(std::string_view tool) const {
  return !allowed_tools ||
         std::find(allowed_tools->begin(), allowed_tools->end(), tool) != allowed_tools->end();
}

bool CrmMetadataTool::Allows(std::string_view method) const {
  return std::find(methods.begin(), methods.end(), method) != methods.end();
}

}  // namespace agentgate
