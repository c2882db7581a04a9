#pragma once
// The operator admin API's request bodies (SPEC §4), parsed and validated. Every error names the
// field. Pure: the use cases in app/ check what needs the store (existence, conflicts).

#include "domain/admin/agent_config.hpp"
#include "domain/error.hpp"

#include <boost/json/value.hpp>

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace agentgate {

struct CreateOrgCommand {
  std::optional<std::string> id;
  std::string name;
  std::optional<double> monthly_spend_limit_usd;
};

struct SetOrgLimitCommand {
  std::optional<double> monthly_spend_limit_usd;  // nullopt = unlimited
};

struct CreateTokenCommand {
  std::string name;
  std::vector<std::string> environments;  // empty = all
};

struct CreateAgentCommand {
  std::optional<std::string> id;
  boost::json::value config_json;
  AgentConfig config;
};

struct SetDeploymentCommand {
  int version = 0;
};

struct CreateInstanceCommand {
  std::string instance_id;
  std::string instructions;
};

struct PutGrantCommand {
  std::string token_id;
  std::string agent_id;
  std::vector<std::string> permissions;
};

// PUT /admin/v1/orgs/{org}/environments/{env}/grants: what a token may do through the metadata
// gateway in that environment (docs/gateway.md). Permissions come out in order, each once.
// An OAuth client for an environment, acting as `token_id` (docs/mcp.md, OAuth).
struct CreateOAuthClientCommand {
  std::string token_id;
  std::string name;
};
Result<CreateOAuthClientCommand> ParseCreateOAuthClient(const boost::json::value& body);

struct PutEnvironmentGrantCommand {
  std::string token_id;
  std::vector<std::string> permissions;  // metadata_read, metadata_write; empty revokes
};

// Refresh-token credentials, or a static session (instance_url + access_token).
struct CrmCredentials {
  std::string login_url;
  std::string client_id;
  std::string client_secret;
  std::string refresh_token;
  std::string instance_url;
  std::string access_token;

  bool IsStatic() const { return refresh_token.empty(); }
};

Result<CreateOrgCommand> ParseCreateOrg(const boost::json::value& body);
Result<SetOrgLimitCommand> ParseSetOrgLimit(const boost::json::value& body);
Result<std::string> ParseCreateEnvironment(const boost::json::value& body);
// A UTC day "YYYY-MM-DD" as the epoch milliseconds of its midnight; a 400 naming `field`.
Result<std::int64_t> ParseIsoDay(std::string_view text, std::string_view field);

// POST /console/session: {"admin_token": "..."} -> the token offered (checked by the caller).
Result<std::string> ParseConsoleSignIn(const boost::json::value& body);
Result<CreateTokenCommand> ParseCreateToken(const boost::json::value& body);
Result<CreateAgentCommand> ParseCreateAgent(const boost::json::value& body);
Result<CreateAgentCommand> ParseAddVersion(const boost::json::value& body);  // id is always empty
Result<SetDeploymentCommand> ParseSetDeployment(const boost::json::value& body);
Result<CreateInstanceCommand> ParseCreateInstance(const boost::json::value& body);
Result<PutGrantCommand> ParsePutGrant(const boost::json::value& body);
Result<PutEnvironmentGrantCommand> ParsePutEnvironmentGrant(const boost::json::value& body);
Result<CrmCredentials> ParseCrmCredentials(const boost::json::value& body);

// CRM URLs are https; plain http only where the operator allowed it ([crm] allow_http, for test
// orgs): a refresh token or session sent in the clear is a stolen one.
bool IsAllowedCrmUrl(std::string_view url, bool allow_http);
// 400 naming login_url or instance_url when a URL of `c` is not allowed.
Result<void> CheckCrmUrls(const CrmCredentials& c, bool allow_http);

// The sealed form of CRM credentials and back.
std::string SerializeCrmCredentials(const CrmCredentials& c);
Result<CrmCredentials> DeserializeCrmCredentials(const std::string& json);

}  // namespace agentgate
