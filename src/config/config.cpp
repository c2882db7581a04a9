#include "config/config.hpp"

#include "config/otel_env.hpp"

#include <toml++/toml.h>

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <fstream>
#include <set>
#include <sstream>

namespace agentgate {
namespace {

constexpr const char* kDefaults = R"toml(
[[providers]]
name = "offline"
kind = "offline"
)toml";

Error ConfigError(const std::string& key, const std::string& problem) {
  return MakeError(ErrorCode::kInvalidRequest, "config key '" + key + "': " + problem);
}

// [server] public_url: an absolute http(s) URL with a host, no query or fragment; a trailing
// slash is dropped so paths are appended to it.
Result<void> NormalizePublicUrl(std::string& url) {
  if (url.empty()) return {};
  const auto scheme_end = url.find("://");
  const std::string scheme = scheme_end == std::string::npos ? "" : url.substr(0, scheme_end);
  const std::size_t host_at = scheme_end == std::string::npos ? 0 : scheme_end + 3;
  const bool bad_char = std::any_of(url.begin(), url.end(), [](char c) {
    return c == '?' || c == '#' || c == '@' || std::isspace(static_cast<unsigned char>(c)) ||
           static_cast<unsigned char>(c) < 0x20;
  });
  if ((scheme != "http" && scheme != "https") || bad_char || host_at >= url.size() ||
      url[host_at] == '/' || url[host_at] == ':') {
    return ConfigError("server.public_url",
                       "must be an absolute http(s) URL with a host and no query, fragment or "
                       "credentials, e.g. https://agentgate.example.com");
  }
  while (url.size() > host_at + 1 && url.back() == '/') url.pop_back();
  return {};
}

std::string EnvName(const std::string& section, const std::string& key) {
  std::string name = "AGENTGATE_" + section + "_" + key;
  for (auto& c : name) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return name;
}

// One scalar key of a section, read from TOML then overridden by its environment variable.
class SectionReader {
 public:
  SectionReader(const toml::table* table, std::string section, const EnvLookup& env)
      : table_(table), section_(std::move(section)), env_(env) {}

  Result<void> String(const std::string& key, std::string& out) {
    seen_.insert(key);
    if (table_ != nullptr) {
      if (const auto* node = table_->get(key)) {
        const auto v = node->value<std::string>();
        if (!v) return ConfigError(Name(key), "must be a string");
        out = *v;
      }
    }
    if (auto e = env_(EnvName(section_, key))) out = *e;
    return {};
  }

  template <class Int>
  Result<void> Integer(const std::string& key, Int& out, long long min, long long max) {
    seen_.insert(key);
    std::optional<long long> value;
    if (table_ != nullptr) {
      if (const auto* node = table_->get(key)) {
        value = node->value<long long>();
        if (!value || !node->is_integer()) return ConfigError(Name(key), "must be an integer");
      }
    }
    if (auto e = env_(EnvName(section_, key))) {
      char* end = nullptr;
      const long long parsed = std::strtoll(e->c_str(), &end, 10);
      if (e->empty() || *end != '\0') {
        return ConfigError(
            Name(key), "environment variable " + EnvName(section_, key) + " must be an integer");
      }
      value = parsed;
    }
    if (value) {
      if (*value < min || *value > max) {
        return ConfigError(
            Name(key), "must be between " + std::to_string(min) + " and " + std::to_string(max));
      }
      out = static_cast<Int>(*value);
    }
    return {};
  }

  Result<void> Number(const std::string& key, double& out, double min, double max) {
    seen_.insert(key);
    std::optional<double> value;
    if (table_ != nullptr) {
      if (const auto* node = table_->get(key)) {
        value = node->value<double>();
        if (!value) return ConfigError(Name(key), "must be a number");
      }
    }
    if (auto e = env_(EnvName(section_, key))) {
      char* end = nullptr;
      const double parsed = std::strtod(e->c_str(), &end);
      if (e->empty() || *end != '\0') {
        return ConfigError(Name(key),
                           "environment variable " + EnvName(section_, key) + " must be a number");
      }
      value = parsed;
    }
    if (value) {
      if (!(*value >= min && *value <= max)) {
        std::ostringstream range;
        range << "must be from " << min << " to " << max;
        return ConfigError(Name(key), range.str());
      }
      out = *value;
    }
    return {};
  }

  Result<void> Boolean(const std::string& key, bool& out) {
    seen_.insert(key);
    if (table_ != nullptr) {
      if (const auto* node = table_->get(key)) {
        const auto v = node->value<bool>();
        if (!v || !node->is_boolean()) return ConfigError(Name(key), "must be true or false");
        out = *v;
      }
    }
    if (auto e = env_(EnvName(section_, key))) {
      if (*e != "true" && *e != "false") {
        return ConfigError(
            Name(key), "environment variable " + EnvName(section_, key) + " must be true or false");
      }
      out = *e == "true";
    }
    return {};
  }

  // A TOML array of non-empty strings; its variable holds them comma-separated.
  Result<void> Strings(const std::string& key, std::vector<std::string>& out) {
    seen_.insert(key);
    if (table_ != nullptr) {
      if (const auto* node = table_->get(key)) {
        const auto* arr = node->as_array();
        if (arr == nullptr) return ConfigError(Name(key), "must be an array of strings");
        out.clear();
        for (std::size_t i = 0; i < arr->size(); ++i) {
          const auto s = arr->get(i)->value<std::string>();
          if (!s || s->empty() || !arr->get(i)->is_string())
            return ConfigError(Name(key) + "[" + std::to_string(i) + "]",
                               "must be a non-empty string");
          out.push_back(*s);
        }
      }
    }
    if (auto e = env_(EnvName(section_, key))) {
      out.clear();
      std::size_t start = 0;
      while (start <= e->size()) {
        const std::size_t comma = std::min(e->find(',', start), e->size());
        if (comma > start) out.push_back(e->substr(start, comma - start));
        start = comma + 1;
      }
    }
    return {};
  }

  Result<void> RejectUnknown() const {
    if (table_ == nullptr) return {};
    for (const auto& [k, v] : *table_) {
      if (!seen_.contains(std::string(k.str())))
        return ConfigError(Name(std::string(k.str())), "unknown key");
    }
    return {};
  }

 private:
  std::string Name(const std::string& key) const { return section_ + "." + key; }

  const toml::table* table_;
  std::string section_;
  const EnvLookup& env_;
  std::set<std::string> seen_;
};

bool IsHttpUrl(const std::string& s) {
  return s.starts_with("http://") || s.starts_with("https://");
}

// A TOML array of strings.
Result<std::vector<std::string>> StringList(const toml::node& node, const std::string& key) {
  const auto* arr = node.as_array();
  if (arr == nullptr) return ConfigError(key, "must be an array of strings");
  std::vector<std::string> out;
  for (std::size_t i = 0; i < arr->size(); ++i) {
    const auto s = arr->get(i)->value<std::string>();
    if (!s || s->empty())
      return ConfigError(key + "[" + std::to_string(i) + "]", "must be a non-empty string");
    out.push_back(*s);
  }
  return out;
}

Result<void> ReadProviders(const toml::table& root, Config& c) {
  const auto* node = root.get("providers");
  if (node == nullptr) return {};
  const auto* arr = node->as_array();
  if (arr == nullptr) return ConfigError("providers", "must be an array of tables [[providers]]");
  std::set<std::string> names;
  for (std::size_t i = 0; i < arr->size(); ++i) {
    const std::string key = "providers[" + std::to_string(i) + "]";
    const auto* t = arr->get(i)->as_table();
    if (t == nullptr) return ConfigError(key, "must be a table");
    ProviderConfig p;
    for (const auto& [k, v] : *t) {
      const std::string field(k.str());
      const std::string at = key + "." + field;
      if (field == "api_key_envs") {
        AG_TRY(p.api_key_envs, StringList(v, at));
        if (p.api_key_envs.empty()) return ConfigError(at, "must list at least one variable");
        continue;
      }
      if (field == "api_keys_sealed") {
        AG_TRY(p.api_keys_sealed, StringList(v, at));
        if (p.api_keys_sealed.empty()) return ConfigError(at, "must list at least one key");
        continue;
      }
      if (field == "structured_output_models") {
        AG_TRY(p.structured_output_models, StringList(v, at));
        continue;
      }
      if (field == "breaker_failures" || field == "breaker_cooldown_seconds") {
        const auto n = v.value<long long>();
        const long long max = field == "breaker_failures" ? 100 : 3600;
        if (!n || !v.is_integer() || *n < 1 || *n > max)
          return ConfigError(at, "must be an integer from 1 to " + std::to_string(max));
        (field == "breaker_failures" ? p.breaker_failures : p.breaker_cooldown_seconds) =
            static_cast<int>(*n);
        continue;
      }
      const auto s = v.value<std::string>();
      if (!s) return ConfigError(at, "must be a string");
      if (field == "name")
        p.name = *s;
      else if (field == "kind")
        p.kind = *s;
      else if (field == "base_url")
        p.base_url = *s;
      else if (field == "api_key_env")
        p.api_key_env = *s;
      else if (field == "api_key")
        return ConfigError(
            key + ".api_key",
            "secrets never go in the TOML; name an environment variable with api_key_env");
      else
        return ConfigError(at, "unknown key");
    }
    if (p.name.empty()) return ConfigError(key + ".name", "is required");
    if (!names.insert(p.name).second)
      return ConfigError(key + ".name", "duplicates provider '" + p.name + "'");
    if (p.kind != "openai" && p.kind != "anthropic" && p.kind != "offline") {
      return ConfigError(key + ".kind", "must be openai, anthropic or offline");
    }
    if (!p.structured_output_models.empty() && p.kind != "anthropic") {
      return ConfigError(key + ".structured_output_models",
                         "applies to anthropic providers (OpenAI-compatible ones are always asked "
                         "with response_format)");
    }
    if (p.kind != "offline" && !IsHttpUrl(p.base_url)) {
      return ConfigError(key + ".base_url", "must be an http or https URL");
    }
    c.providers.push_back(std::move(p));
  }
  return {};
}

Result<void> ReadPrices(const toml::table& root, Config& c) {
  const auto* node = root.get("prices");
  if (node == nullptr) return {};
  const auto* t = node->as_table();
  if (t == nullptr) return ConfigError("prices", "must be a table");
  for (const auto& [model, v] : *t) {
    const std::string key = "prices.\"" + std::string(model.str()) + "\"";
    const auto* pt = v.as_table();
    if (pt == nullptr) return ConfigError(key, "must be a table");
    Price price;
    for (const auto& [k, pv] : *pt) {
      const auto d = pv.value<double>();
      if (!d || *d < 0)
        return ConfigError(key + "." + std::string(k.str()), "must be a number >= 0");
      if (k.str() == "input_per_mtok")
        price.input_per_mtok = *d;
      else if (k.str() == "output_per_mtok")
        price.output_per_mtok = *d;
      else if (k.str() == "cached_input_per_mtok")
        price.cached_input_per_mtok = *d;
      else if (k.str() == "cache_write_per_mtok")
        price.cache_write_per_mtok = *d;
      else
        return ConfigError(key + "." + std::string(k.str()), "unknown key");
    }
    c.prices[std::string(model.str())] = price;
  }
  return {};
}

// [tracing] over what the standard OTEL_* variables say (docs/tracing.md).
Result<void> ReadTracing(const toml::table* table, const EnvLookup& env, TracingConfig& t) {
  AG_TRYV(ApplyOtelEnvironment(env, t));
  SectionReader tracing(table, "tracing", env);
  AG_TRYV(tracing.String("endpoint", t.endpoint));
  AG_TRYV(tracing.String("headers_env", t.headers_env));
  AG_TRYV(tracing.String("headers_sealed", t.headers_sealed));
  AG_TRYV(tracing.Number("sample_ratio", t.sample_ratio, 0.0, 1.0));
  AG_TRYV(tracing.Boolean("parent_based", t.parent_based));
  AG_TRYV(tracing.String("service_name", t.service_name));
  std::string attributes;
  AG_TRYV(tracing.String("resource_attributes", attributes));
  AG_TRYV(tracing.Boolean("capture_content", t.capture_content));
  AG_TRYV(tracing.String("compression", t.compression));
  AG_TRYV(tracing.RejectUnknown());
  if (t.compression != "gzip" && t.compression != "none")
    return ConfigError("tracing.compression", "must be gzip or none");
  if (!attributes.empty()) {
    AG_TRY(t.resource_attributes,
           ParseKeyValueList(attributes, "config key 'tracing.resource_attributes'"));
  }
  if (!t.endpoint.empty() && !IsHttpUrl(t.endpoint))
    return ConfigError("tracing.endpoint", "must be an http or https URL");
  if (t.service_name.empty()) return ConfigError("tracing.service_name", "must not be empty");
  if (!t.headers_env.empty()) {
    const auto headers = env(t.headers_env);
    if (!headers) {
      return ConfigError("tracing.headers_env",
                         "environment variable " + t.headers_env + " is not set");
    }
    // The variable's value is a secret: its errors never quote it.
    AG_TRY(t.headers,
           ParseKeyValueList(*headers, "config key 'tracing.headers_env' (" + t.headers_env + ")"));
  }
  return {};
}

Result<void> ReadSections(const toml::table& root, const EnvLookup& env, Config& c) {
  static const std::set<std::string> kTopLevel{
      "server", "store",    "admin",   "secrets",   "crm",    "upstream", "retention",
      "runs",   "webhooks", "tracing", "providers", "prices", "tools",    "oauth"};
  for (const auto& [k, v] : root) {
    if (!kTopLevel.contains(std::string(k.str())))
      return ConfigError(std::string(k.str()), "unknown section");
  }
  SectionReader server(root["server"].as_table(), "server", env);
  AG_TRYV(server.String("listen", c.server.listen));
  AG_TRYV(server.String("agent_platform_listen", c.server.agent_platform_listen));
  AG_TRYV(server.String("public_url", c.server.public_url));
  AG_TRYV(NormalizePublicUrl(c.server.public_url));
  AG_TRYV(server.Strings("allowed_origins", c.server.allowed_origins));
  for (const auto& origin : c.server.allowed_origins) {
    if (!origin.starts_with("http://") && !origin.starts_with("https://"))
      return ConfigError("server.allowed_origins",
                         "must list origins such as https://console.example.com");
  }
  AG_TRYV(server.Integer("turn_timeout_seconds", c.server.turn_timeout_seconds, 1, 3600));
  AG_TRYV(server.Integer("answer_early_seconds", c.server.answer_early_seconds, 1, 3600));
  AG_TRYV(server.Integer("max_body_bytes", c.server.max_body_bytes, 1024, 1LL << 30));
  AG_TRYV(server.Integer("max_header_bytes", c.server.max_header_bytes, 1024, 1LL << 20));
  AG_TRYV(server.Integer("read_timeout_seconds", c.server.read_timeout_seconds, 1, 3600));
  AG_TRYV(server.Integer("idle_timeout_seconds", c.server.idle_timeout_seconds, 1, 3600));
  AG_TRYV(server.Integer("header_timeout_seconds", c.server.header_timeout_seconds, 1, 3600));
  AG_TRYV(server.Integer("max_connections", c.server.max_connections, 1, 1000000));
  AG_TRYV(server.Integer("max_requests_per_connection", c.server.max_requests_per_connection, 1,
                         1000000000));
  AG_TRYV(server.Integer("io_threads", c.server.io_threads, 0, 256));
  AG_TRYV(server.Integer("blocking_threads", c.server.blocking_threads, 1, 1024));
  AG_TRYV(
      server.Integer("handoff_spin_microseconds", c.server.handoff_spin_microseconds, 0, 100000));
  AG_TRYV(server.RejectUnknown());

  SectionReader store(root["store"].as_table(), "store", env);
  AG_TRYV(store.String("url", c.store.url));
  AG_TRYV(store.RejectUnknown());

  SectionReader admin(root["admin"].as_table(), "admin", env);
  AG_TRYV(admin.String("token_env", c.admin.token_env));
  AG_TRYV(admin.String("token_file", c.admin.token_file));
  AG_TRYV(admin.RejectUnknown());

  SectionReader secrets(root["secrets"].as_table(), "secrets", env);
  AG_TRYV(secrets.String("master_key_env", c.secrets.master_key_env));
  AG_TRYV(secrets.String("master_key_file", c.secrets.master_key_file));
  AG_TRYV(secrets.RejectUnknown());

  SectionReader crm(root["crm"].as_table(), "crm", env);
  AG_TRYV(crm.Boolean("allow_http", c.crm.allow_http));
  AG_TRYV(crm.Integer("call_timeout_seconds", c.crm.call_timeout_seconds, 1, 600));
  AG_TRYV(crm.RejectUnknown());

  SectionReader upstream(root["upstream"].as_table(), "upstream", env);
  AG_TRYV(upstream.String("ca_file", c.upstream.ca_file));
  AG_TRYV(upstream.Integer("max_connections_per_origin", c.upstream.max_connections_per_origin, 1,
                           1000000));
  AG_TRYV(upstream.RejectUnknown());

  SectionReader retention(root["retention"].as_table(), "retention", env);
  AG_TRYV(retention.Integer("turn_days", c.retention.turn_days, 1, 36500));
  AG_TRYV(retention.Integer("conversation_days", c.retention.conversation_days, 1, 36500));
  AG_TRYV(retention.Integer("memory_days", c.retention.memory_days, 1, 36500));
  AG_TRYV(retention.RejectUnknown());

  SectionReader oauth(root["oauth"].as_table(), "oauth", env);
  AG_TRYV(oauth.Integer("access_token_lifetime_seconds", c.oauth.access_token_lifetime_seconds, 1,
                        3600));
  AG_TRYV(oauth.RejectUnknown());

  SectionReader runs(root["runs"].as_table(), "runs", env);
  AG_TRYV(runs.Integer("max_concurrent", c.runs.max_concurrent, 1, 100000));
  AG_TRYV(runs.Integer("max_running_per_org", c.runs.max_running_per_org, 1, 100000));
  if (c.runs.max_running_per_org == 0)
    c.runs.max_running_per_org = (3 * c.runs.max_concurrent + 3) / 4;
  AG_TRYV(runs.Integer("max_queued_per_org", c.runs.max_queued_per_org, 1, 10000000));
  AG_TRYV(runs.Integer("poll_milliseconds", c.runs.poll_milliseconds, 10, 60000));
  AG_TRYV(runs.Integer("max_events", c.runs.max_events, 16, 1000000));
  AG_TRYV(runs.Integer("retention_hours", c.runs.retention_hours, 1, 876000));
  AG_TRYV(runs.Integer("approval_timeout_seconds", c.runs.approval_timeout_seconds, 1, 2592000));
  AG_TRYV(runs.Integer("max_followers_per_run", c.runs.max_followers_per_run, 1, 1000000));
  AG_TRYV(runs.Integer("max_streams_per_token", c.runs.max_streams_per_token, 1, 1000000));
  AG_TRYV(runs.Integer("max_followers_per_run_per_token", c.runs.max_followers_per_run_per_token, 1,
                       1000000));
  AG_TRYV(runs.RejectUnknown());

  SectionReader webhooks(root["webhooks"].as_table(), "webhooks", env);
  AG_TRYV(webhooks.Boolean("allow_private", c.webhooks.allow_private));
  AG_TRYV(webhooks.Integer("first_retry_milliseconds", c.webhooks.first_retry_milliseconds, 100,
                           10000));
  AG_TRYV(
      webhooks.Integer("max_in_flight_per_webhook", c.webhooks.max_in_flight_per_webhook, 1, 1000));
  AG_TRYV(webhooks.Integer("max_in_flight_per_org", c.webhooks.max_in_flight_per_org, 1, 10000));
  AG_TRYV(webhooks.RejectUnknown());
  SectionReader tools(root["tools"].as_table(), "tools", env);
  AG_TRYV(tools.Strings("header_env", c.tools.header_env));
  AG_TRYV(tools.RejectUnknown());
  AG_TRYV(ReadTracing(root["tracing"].as_table(), env, c.tracing));

  AG_TRYV(ReadProviders(root, c));
  AG_TRYV(ReadPrices(root, c));
  // The offline model is built in: always there unless the operator claims its name.
  const bool has_offline = std::any_of(c.providers.begin(), c.providers.end(),
                                       [](const ProviderConfig& p) { return p.name == "offline"; });
  if (!has_offline) {
    ProviderConfig offline;
    offline.name = "offline";
    offline.kind = "offline";
    c.providers.push_back(std::move(offline));
  }
  return {};
}

Result<void> Validate(const Config& c) {
  if (c.server.answer_early_seconds >= c.server.turn_timeout_seconds) {
    return ConfigError("server.answer_early_seconds",
                       "must be less than server.turn_timeout_seconds");
  }
  if (c.server.listen.find(':') == std::string::npos) {
    return ConfigError("server.listen", "must be HOST:PORT");
  }
  if (!c.server.agent_platform_listen.empty() &&
      c.server.agent_platform_listen.find(':') == std::string::npos) {
    return ConfigError("server.agent_platform_listen", "must be HOST:PORT or empty");
  }
  if (!c.store.url.starts_with("sqlite:") && !c.store.url.starts_with("postgresql://") &&
      !c.store.url.starts_with("postgres://")) {
    return ConfigError("store.url", "must start with sqlite: or postgresql://");
  }
  if (c.store.url == "sqlite:") return ConfigError("store.url", "sqlite: needs a file path");
  for (const auto& [model, price] : c.prices) {
    if (model.find('/') == std::string::npos) {
      return ConfigError("prices.\"" + model + "\"", "must be named \"provider/model\"");
    }
  }
  return {};
}

}  // namespace

EnvLookup ProcessEnv() {
  return [](const std::string& name) -> std::optional<std::string> {
    const char* v = std::getenv(name.c_str());
    if (v == nullptr) return std::nullopt;
    return std::string(v);
  };
}

Result<Config> LoadConfig(const std::string& toml_text, const EnvLookup& env) {
  toml::table root;
  try {
    root =
        toml::parse(toml_text.empty() ? std::string_view(kDefaults) : std::string_view(toml_text));
  } catch (const toml::parse_error& e) {
    std::ostringstream msg;
    msg << "config is not valid TOML at line " << e.source().begin.line << ": " << e.description();
    return MakeError(ErrorCode::kInvalidRequest, msg.str());
  }
  Config c;
  AG_TRYV(ReadSections(root, env, c));
  AG_TRYV(Validate(c));
  const bool sqlite = c.store.url.starts_with("sqlite:");
  c.store.kind = sqlite ? StoreKind::kSqlite : StoreKind::kPostgres;
  c.store.sqlite_path = sqlite ? c.store.url.substr(7) : "";
  return c;
}

Result<Config> LoadConfigFile(const std::string& path, const EnvLookup& env) {
  std::ifstream in(path);
  if (!in) return MakeError(ErrorCode::kInvalidRequest, "cannot read config file " + path);
  std::stringstream buffer;
  buffer << in.rdbuf();
  std::string text = buffer.str();
  if (text.find_first_not_of(" \t\r\n") == std::string::npos) text = kDefaults;
  return LoadConfig(text, env);
}

Result<std::optional<std::string>> ResolveSecret(const std::string& env_name,
                                                 const std::string& file_path,
                                                 const EnvLookup& env) {
  if (!env_name.empty()) {
    if (auto v = env(env_name); v && !v->empty()) return std::optional<std::string>(*v);
  }
  if (!file_path.empty()) {
    std::ifstream in(file_path);
    if (!in) return MakeError(ErrorCode::kInvalidRequest, "cannot read secret file " + file_path);
    std::string line;
    std::getline(in, line);
    while (!line.empty() && (line.back() == '\r' || line.back() == ' ')) line.pop_back();
    if (line.empty())
      return MakeError(ErrorCode::kInvalidRequest, "secret file " + file_path + " is empty");
    return std::optional<std::string>(line);
  }
  return std::optional<std::string>{};
}

}  // namespace agentgate

namespace agentgate {

HeaderEnvPolicy HeaderEnvPolicyOf(const Config& config) {
  HeaderEnvPolicy policy;
  policy.allowed = config.tools.header_env;
  auto reserve = [&](const std::string& name) {
    if (!name.empty()) policy.reserved.insert(name);
  };
  reserve(config.admin.token_env);
  reserve(config.secrets.master_key_env);
  reserve(config.tracing.headers_env);
  for (const auto& provider : config.providers) {
    reserve(provider.api_key_env);
    for (const auto& name : provider.api_key_envs) reserve(name);
  }
  return policy;
}

bool ListensOnLoopbackOnly(const ServerConfig& server) {
  const auto loopback = [](std::string_view listen) {
    const auto colon = listen.rfind(':');
    const std::string_view host =
        colon == std::string_view::npos ? listen : listen.substr(0, colon);
    if (host == "localhost" || host == "[::1]" || host == "::1") return true;
    return host.starts_with("127.") &&
           host.find_first_not_of("0123456789.") == std::string_view::npos;
  };
  return loopback(server.listen) &&
         (server.agent_platform_listen.empty() || loopback(server.agent_platform_listen));
}

}  // namespace agentgate
