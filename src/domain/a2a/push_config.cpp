#include "domain/a2a/push_config.hpp"

#include "domain/runs/webhook_rules.hpp"

#include <boost/json/array.hpp>

namespace agentgate::a2a {

namespace json = boost::json;

namespace {

constexpr std::size_t kMaxId = 128;
constexpr std::size_t kMaxToken = 1024;
constexpr std::size_t kMaxCredentials = 4096;
constexpr std::size_t kMaxScheme = 64;

std::string Named(std::string_view prefix, std::string_view key) {
  return prefix.empty() ? std::string(key) : std::string(prefix) + "." + std::string(key);
}

ProtocolError Invalid(std::string field, std::string_view problem) {
  return ProtocolError{Fault::kInvalidParams, "field '" + field + "': " + std::string(problem),
                       std::move(field)};
}

// A header value's text: printable ASCII and spaces, no line breaks (it is sent in a header).
bool HeaderSafe(std::string_view text) {
  for (char c : text) {
    if ((c < 0x20 || c > 0x7e) && c != '\t') return false;
  }
  return true;
}

// An HTTP token (RFC 9110 §5.6.2): what an auth scheme's name is made of.
bool Token(std::string_view text) {
  if (text.empty()) return false;
  for (char c : text) {
    const bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                    std::string_view("!#$%&'*+-.^_`|~").find(c) != std::string_view::npos;
    if (!ok) return false;
  }
  return true;
}

bool IdText(std::string_view text) {
  for (char c : text) {
    const bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                    c == '-' || c == '_' || c == '.' || c == ':';
    if (!ok) return false;
  }
  return true;
}

// A string member: absent, null or "" (proto3's default) is "".
std::variant<std::string, ProtocolError> StringMember(const json::object& o, std::string_view key,
                                                      const std::string& field,
                                                      std::size_t max_bytes) {
  const auto* v = o.if_contains(key);
  if (v == nullptr || v->is_null()) return std::string();
  if (!v->is_string()) return Invalid(field, "must be a string");
  if (v->get_string().size() > max_bytes)
    return Invalid(field, "must be at most " + std::to_string(max_bytes) + " bytes");
  return std::string(v->get_string());
}

std::variant<std::string, ProtocolError> IdMember(const json::object& o, std::string_view key,
                                                  const std::string& field) {
  auto read = StringMember(o, key, field, kMaxId);
  if (auto* id = std::get_if<std::string>(&read); id != nullptr && !IdText(*id))
    return Invalid(field, "must be letters, digits, '-', '_', '.' or ':'");
  return read;
}

// authentication: {scheme, credentials}, or 0.3's {schemes: [...], credentials}.
std::optional<ProtocolError> ReadAuthentication(const json::object& config, std::string_view prefix,
                                                PushConfigAsked& out) {
  const auto* auth = config.if_contains("authentication");
  if (auth == nullptr || auth->is_null()) return std::nullopt;
  const std::string field = Named(prefix, "authentication");
  if (!auth->is_object()) return Invalid(field, "must be an object");
  const auto& a = auth->get_object();
  auto scheme = StringMember(a, "scheme", field + ".scheme", kMaxScheme);
  if (auto* refused = std::get_if<ProtocolError>(&scheme)) return std::move(*refused);
  out.scheme = std::move(std::get<std::string>(scheme));
  if (const auto* schemes = a.if_contains("schemes");
      out.scheme.empty() && schemes != nullptr && schemes->is_array() &&
      !schemes->get_array().empty() && schemes->get_array().front().is_string()) {
    out.scheme = std::string(schemes->get_array().front().get_string());
  }
  if (!Token(out.scheme) || out.scheme.size() > kMaxScheme)
    return Invalid(field + ".scheme", "must be an HTTP authentication scheme such as Bearer");
  auto credentials = StringMember(a, "credentials", field + ".credentials", kMaxCredentials);
  if (auto* refused = std::get_if<ProtocolError>(&credentials)) return std::move(*refused);
  out.credentials = std::move(std::get<std::string>(credentials));
  if (!HeaderSafe(out.credentials))
    return Invalid(field + ".credentials", "must be printable text without line breaks");
  return std::nullopt;
}

}  // namespace

std::variant<PushConfigAsked, ProtocolError> ReadPushConfig(const json::value& config,
                                                            std::string_view field,
                                                            bool allow_private, bool needs_task) {
  const std::string named = field.empty() ? "params" : std::string(field);
  if (!config.is_object()) return Invalid(named, "must be a TaskPushNotificationConfig object");
  const auto& c = config.get_object();
  PushConfigAsked out;
  auto task = IdMember(c, "taskId", Named(field, "taskId"));
  if (auto* refused = std::get_if<ProtocolError>(&task)) return std::move(*refused);
  out.task_id = std::move(std::get<std::string>(task));
  if (needs_task && out.task_id.empty())
    return Invalid(Named(field, "taskId"), "must be the task's id");
  auto id = IdMember(c, "id", Named(field, "id"));
  if (auto* refused = std::get_if<ProtocolError>(&id)) return std::move(*refused);
  out.id = std::move(std::get<std::string>(id));
  const std::string url_field = Named(field, "url");
  const auto* url = c.if_contains("url");
  if (url == nullptr || !url->is_string() || url->get_string().empty())
    return Invalid(url_field, "must be the URL notifications are posted to");
  out.url = std::string(url->get_string());
  if (auto checked = webhooks::CheckUrl(out.url, allow_private); !checked) {
    std::string problem = checked.error().message;
    if (problem.starts_with("field 'url': ")) problem.erase(0, 13);
    return Invalid(url_field, problem);
  }
  auto token = StringMember(c, "token", Named(field, "token"), kMaxToken);
  if (auto* refused = std::get_if<ProtocolError>(&token)) return std::move(*refused);
  out.token = std::move(std::get<std::string>(token));
  if (!HeaderSafe(out.token))
    return Invalid(Named(field, "token"), "must be printable text without line breaks");
  if (auto refused = ReadAuthentication(c, field, out)) return std::move(*refused);
  return out;
}

std::variant<PushConfigNamed, ProtocolError> ReadPushConfigName(const json::value& params,
                                                                bool needs_id) {
  if (!params.is_object()) return Invalid("params", "must be an object");
  const auto& p = params.get_object();
  PushConfigNamed out;
  auto task = IdMember(p, "taskId", "taskId");
  if (auto* refused = std::get_if<ProtocolError>(&task)) return std::move(*refused);
  out.task_id = std::move(std::get<std::string>(task));
  if (out.task_id.empty()) return Invalid("taskId", "must be the task's id");
  auto id = IdMember(p, "id", "id");
  if (auto* refused = std::get_if<ProtocolError>(&id)) return std::move(*refused);
  out.id = std::move(std::get<std::string>(id));
  if (needs_id && out.id.empty()) return Invalid("id", "must be the push config's id");
  return out;
}

json::object PushConfigJson(std::string_view task_id, std::string_view id, std::string_view url,
                            std::string_view scheme) {
  json::object config{{"taskId", task_id}, {"id", id}, {"url", url}};
  if (!scheme.empty()) config["authentication"] = json::object{{"scheme", scheme}};
  return config;
}

}  // namespace agentgate::a2a
