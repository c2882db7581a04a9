#include "domain/admin/admin_requests.hpp"

#include "domain/admin/names.hpp"
#include "domain/json_fields.hpp"
#include "domain/json_text.hpp"

#include <boost/json/parse.hpp>

#include <chrono>

namespace agentgate {
namespace {

using boost::json::object;
namespace jf = json_fields;

bool IsHttpUrl(const std::string& s) {
  return (s.starts_with("https://") && s.size() > 8) || (s.starts_with("http://") && s.size() > 7);
}

Result<std::optional<double>> SpendLimit(const object& o) {
  AG_TRY(auto limit, jf::OptionalNumber(o, "monthly_spend_limit_usd", ""));
  if (limit && *limit < 0) return InvalidField("monthly_spend_limit_usd", "must be >= 0 or null");
  return limit;
}

Result<std::optional<std::string>> OptionalId(const object& o) {
  AG_TRY(auto id, jf::OptionalString(o, "id", ""));
  if (id && !names::IsValidId(*id)) return InvalidField("id", "must match [A-Za-z0-9_-]{1,64}");
  return id;
}

Result<CreateAgentCommand> ParseAgentBody(const boost::json::value& body, bool allow_id) {
  AG_TRY(const object* o, jf::AsObject(body, ""));
  if (allow_id) {
    AG_TRYV(jf::RejectUnknownKeys(*o, "", {"id", "config"}));
  } else {
    AG_TRYV(jf::RejectUnknownKeys(*o, "", {"config"}));
  }
  CreateAgentCommand c;
  if (allow_id) {
    AG_TRY(c.id, OptionalId(*o));
  }
  const auto* config = o->if_contains("config");
  if (config == nullptr || config->is_null()) return InvalidField("config", "is required");
  AG_TRY(c.config, ParseAgentConfig(*config));
  c.config_json = *config;
  return c;
}

}  // namespace

Result<CreateOrgCommand> ParseCreateOrg(const boost::json::value& body) {
  AG_TRY(const object* o, jf::AsObject(body, ""));
  AG_TRYV(jf::RejectUnknownKeys(*o, "", {"id", "name", "monthly_spend_limit_usd"}));
  CreateOrgCommand c;
  AG_TRY(c.id, OptionalId(*o));
  AG_TRY(c.name, jf::RequiredString(*o, "name", ""));
  if (!names::IsValidDisplayName(c.name))
    return InvalidField("name", "must be 1-128 printable characters");
  AG_TRY(c.monthly_spend_limit_usd, SpendLimit(*o));
  return c;
}

Result<SetOrgLimitCommand> ParseSetOrgLimit(const boost::json::value& body) {
  AG_TRY(const object* o, jf::AsObject(body, ""));
  AG_TRYV(jf::RejectUnknownKeys(*o, "", {"monthly_spend_limit_usd"}));
  if (!o->contains("monthly_spend_limit_usd")) {
    return InvalidField("monthly_spend_limit_usd", "is required (a number, or null for unlimited)");
  }
  SetOrgLimitCommand c;
  AG_TRY(c.monthly_spend_limit_usd, SpendLimit(*o));
  return c;
}

Result<std::string> ParseCreateEnvironment(const boost::json::value& body) {
  AG_TRY(const object* o, jf::AsObject(body, ""));
  AG_TRYV(jf::RejectUnknownKeys(*o, "", {"name"}));
  AG_TRY(std::string name, jf::RequiredString(*o, "name", ""));
  if (!names::IsValidEnvironment(name)) return InvalidField("name", "must match [a-z0-9_-]{1,32}");
  return name;
}

Result<std::int64_t> ParseIsoDay(std::string_view text, std::string_view field) {
  const auto digits = [&](std::size_t from, std::size_t count, int& out) {
    out = 0;
    for (std::size_t i = from; i < from + count; ++i) {
      if (text[i] < '0' || text[i] > '9') return false;
      out = out * 10 + (text[i] - '0');
    }
    return true;
  };
  int y = 0;
  int m = 0;
  int d = 0;
  if (text.size() != 10 || text[4] != '-' || text[7] != '-' || !digits(0, 4, y) ||
      !digits(5, 2, m) || !digits(8, 2, d)) {
    return InvalidField(field, "must be a day, YYYY-MM-DD");
  }
  const std::chrono::year_month_day day{std::chrono::year(y),
                                        std::chrono::month(static_cast<unsigned>(m)),
                                        std::chrono::day(static_cast<unsigned>(d))};
  if (!day.ok()) return InvalidField(field, "is not a day of the calendar");
  return std::chrono::duration_cast<std::chrono::milliseconds>(
             std::chrono::sys_days(day).time_since_epoch())
      .count();
}

Result<std::string> ParseConsoleSignIn(const boost::json::value& body) {
  AG_TRY(const object* o, jf::AsObject(body, ""));
  AG_TRYV(jf::RejectUnknownKeys(*o, "", {"admin_token"}));
  AG_TRY(std::string token, jf::RequiredString(*o, "admin_token", ""));
  if (token.empty()) return InvalidField("admin_token", "must not be empty");
  return token;
}

Result<CreateTokenCommand> ParseCreateToken(const boost::json::value& body) {
  AG_TRY(const object* o, jf::AsObject(body, ""));
  AG_TRYV(jf::RejectUnknownKeys(*o, "", {"name", "environments"}));
  CreateTokenCommand c;
  AG_TRY(c.name, jf::RequiredString(*o, "name", ""));
  if (!names::IsValidDisplayName(c.name))
    return InvalidField("name", "must be 1-128 printable characters");
  if (const auto* envs = o->if_contains("environments"); envs != nullptr && !envs->is_null()) {
    if (!envs->is_array())
      return InvalidField("environments", "must be an array of environment names");
    for (std::size_t i = 0; i < envs->get_array().size(); ++i) {
      const auto& e = envs->get_array()[i];
      const std::string field = "environments[" + std::to_string(i) + "]";
      if (!e.is_string() || !names::IsValidEnvironment(e.get_string())) {
        return InvalidField(field, "must be an environment name ([a-z0-9_-]{1,32})");
      }
      c.environments.emplace_back(e.get_string());
    }
    if (c.environments.empty())
      return InvalidField("environments", "must not be empty; omit it for every environment");
  }
  return c;
}

Result<CreateAgentCommand> ParseCreateAgent(const boost::json::value& body) {
  return ParseAgentBody(body, true);
}
Result<CreateAgentCommand> ParseAddVersion(const boost::json::value& body) {
  return ParseAgentBody(body, false);
}

Result<SetDeploymentCommand> ParseSetDeployment(const boost::json::value& body) {
  AG_TRY(const object* o, jf::AsObject(body, ""));
  AG_TRYV(jf::RejectUnknownKeys(*o, "", {"version"}));
  AG_TRY(auto version, jf::OptionalInteger(*o, "version", ""));
  if (!version) return InvalidField("version", "is required");
  if (*version < 1 || *version > 1000000000)
    return InvalidField("version", "must be a positive integer");
  return SetDeploymentCommand{static_cast<int>(*version)};
}

Result<CreateInstanceCommand> ParseCreateInstance(const boost::json::value& body) {
  AG_TRY(const object* o, jf::AsObject(body, ""));
  AG_TRYV(jf::RejectUnknownKeys(*o, "", {"instance_id", "instructions"}));
  CreateInstanceCommand c;
  AG_TRY(c.instance_id, jf::RequiredString(*o, "instance_id", ""));
  if (!names::IsValidInstanceId(c.instance_id)) {
    return InvalidField("instance_id", "must be 1-128 characters of letters, digits, . _ - @");
  }
  AG_TRY(auto instructions, jf::OptionalString(*o, "instructions", ""));
  c.instructions = instructions.value_or("");
  return c;
}

Result<PutGrantCommand> ParsePutGrant(const boost::json::value& body) {
  AG_TRY(const object* o, jf::AsObject(body, ""));
  AG_TRYV(jf::RejectUnknownKeys(*o, "", {"token_id", "agent_id", "permissions"}));
  PutGrantCommand c;
  AG_TRY(c.token_id, jf::RequiredString(*o, "token_id", ""));
  AG_TRY(c.agent_id, jf::RequiredString(*o, "agent_id", ""));
  if (!names::IsValidId(c.agent_id))
    return InvalidField("agent_id", "must match [A-Za-z0-9_-]{1,64}");
  const auto* perms = o->if_contains("permissions");
  if (perms == nullptr || !perms->is_array())
    return InvalidField("permissions", "must be an array, e.g. [\"chat\"]");
  // chat: invoke the agent and follow its runs; approve: decide its paused tool calls
  // (docs/daemon.md "Tool approvals"). Listed once each, in this order.
  bool chat = false;
  bool approve = false;
  for (std::size_t i = 0; i < perms->get_array().size(); ++i) {
    const auto& p = perms->get_array()[i];
    if (p == "chat") {
      chat = true;
    } else if (p == "approve") {
      approve = true;
    } else {
      return InvalidField("permissions[" + std::to_string(i) + "]",
                          "must be \"chat\" or \"approve\"");
    }
  }
  if (chat) c.permissions.emplace_back("chat");
  if (approve) c.permissions.emplace_back("approve");
  return c;
}

Result<CreateOAuthClientCommand> ParseCreateOAuthClient(const boost::json::value& body) {
  AG_TRY(const object* o, jf::AsObject(body, ""));
  AG_TRYV(jf::RejectUnknownKeys(*o, "", {"token_id", "name"}));
  CreateOAuthClientCommand c;
  AG_TRY(c.token_id, jf::RequiredString(*o, "token_id", ""));
  if (c.token_id.empty()) return InvalidField("token_id", "must be an API token's id");
  AG_TRY(c.name, jf::RequiredString(*o, "name", ""));
  if (!names::IsValidDisplayName(c.name))
    return InvalidField("name", "must be 1-128 printable characters");
  return c;
}

Result<PutEnvironmentGrantCommand> ParsePutEnvironmentGrant(const boost::json::value& body) {
  AG_TRY(const object* o, jf::AsObject(body, ""));
  AG_TRYV(jf::RejectUnknownKeys(*o, "", {"token_id", "permissions"}));
  PutEnvironmentGrantCommand c;
  AG_TRY(c.token_id, jf::RequiredString(*o, "token_id", ""));
  const auto* perms = o->if_contains("permissions");
  if (perms == nullptr || !perms->is_array())
    return InvalidField("permissions", "must be an array, e.g. [\"metadata_write\"]");
  bool read = false;
  bool write = false;
  for (std::size_t i = 0; i < perms->get_array().size(); ++i) {
    const auto& p = perms->get_array()[i];
    if (p == "metadata_read") {
      read = true;
    } else if (p == "metadata_write") {
      write = true;
    } else {
      return InvalidField("permissions[" + std::to_string(i) + "]",
                          "must be \"metadata_read\" or \"metadata_write\"");
    }
  }
  if (read) c.permissions.emplace_back("metadata_read");
  if (write) c.permissions.emplace_back("metadata_write");
  return c;
}

Result<CrmCredentials> ParseCrmCredentials(const boost::json::value& body) {
  AG_TRY(const object* o, jf::AsObject(body, ""));
  AG_TRYV(jf::RejectUnknownKeys(*o, "",
                                {"login_url", "client_id", "client_secret", "refresh_token",
                                 "instance_url", "access_token"}));
  CrmCredentials c;
  if (o->contains("refresh_token")) {
    AG_TRY(c.login_url, jf::RequiredString(*o, "login_url", ""));
    AG_TRY(c.client_id, jf::RequiredString(*o, "client_id", ""));
    AG_TRY(auto secret, jf::OptionalString(*o, "client_secret", ""));
    c.client_secret = secret.value_or("");
    AG_TRY(c.refresh_token, jf::RequiredString(*o, "refresh_token", ""));
    if (!IsHttpUrl(c.login_url)) return InvalidField("login_url", "must be an http or https URL");
    if (c.client_id.empty()) return InvalidField("client_id", "must not be empty");
    if (c.refresh_token.empty()) return InvalidField("refresh_token", "must not be empty");
    AG_TRY(auto instance, jf::OptionalString(*o, "instance_url", ""));
    if (instance && !IsHttpUrl(*instance))
      return InvalidField("instance_url", "must be an http or https URL");
    c.instance_url = instance.value_or("");
    if (o->contains("access_token"))
      return InvalidField("access_token", "is only for static sessions (without refresh_token)");
    return c;
  }
  if (!o->contains("instance_url") && !o->contains("access_token")) {
    return InvalidField("refresh_token",
                        "is required (or instance_url and access_token for a static session)");
  }
  AG_TRY(c.instance_url, jf::RequiredString(*o, "instance_url", ""));
  AG_TRY(c.access_token, jf::RequiredString(*o, "access_token", ""));
  if (!IsHttpUrl(c.instance_url))
    return InvalidField("instance_url", "must be an http or https URL");
  if (c.access_token.empty()) return InvalidField("access_token", "must not be empty");
  for (const char* key : {"login_url", "client_id", "client_secret"}) {
    if (o->contains(key)) return InvalidField(key, "is only for refresh-token credentials");
  }
  return c;
}

bool IsAllowedCrmUrl(std::string_view url, bool allow_http) {
  return (url.starts_with("https://") && url.size() > 8) ||
         (allow_http && url.starts_with("http://") && url.size() > 7);
}

Result<void> CheckCrmUrls(const CrmCredentials& c, bool allow_http) {
  const char* requirement =
      allow_http ? "must be an http or https URL" : "must be an https URL (crm.allow_http is off)";
  if (!c.login_url.empty() && !IsAllowedCrmUrl(c.login_url, allow_http))
    return InvalidField("login_url", requirement);
  if (!c.instance_url.empty() && !IsAllowedCrmUrl(c.instance_url, allow_http))
    return InvalidField("instance_url", requirement);
  return {};
}

std::string SerializeCrmCredentials(const CrmCredentials& c) {
  return json_text::Write(object{{"login_url", c.login_url},
                                 {"client_id", c.client_id},
                                 {"client_secret", c.client_secret},
                                 {"refresh_token", c.refresh_token},
                                 {"instance_url", c.instance_url},
                                 {"access_token", c.access_token}});
}

Result<CrmCredentials> DeserializeCrmCredentials(const std::string& json) {
  boost::system::error_code ec;
  const auto v = boost::json::parse(json, ec);
  if (ec || !v.is_object())
    return MakeError(ErrorCode::kInternal, "stored CRM credentials are corrupt");
  const auto& o = v.get_object();
  auto field = [&](const char* key) {
    const auto* f = o.if_contains(key);
    return f != nullptr && f->is_string() ? std::string(f->get_string()) : std::string();
  };
  return CrmCredentials{field("login_url"),     field("client_id"),    field("client_secret"),
                        field("refresh_token"), field("instance_url"), field("access_token")};
}

}  // namespace agentgate
