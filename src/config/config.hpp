#pragma once
// Server configuration: one TOML file plus AGENTGATE_<SECTION>_<KEY> environment overrides,
// validated at start-up. Secrets are never read from the TOML itself, only from the environment
// variables or files it names.

#include "domain/admin/header_env.hpp"
#include "domain/error.hpp"
#include "domain/governance/price.hpp"

#include <cstddef>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace agentgate {

struct ServerConfig;
// Whether every listener is on a loopback address (127.0.0.0/8, localhost, [::1]): then only this
// machine's clients reach the server, and the Host they send may name it where no public_url does.
bool ListensOnLoopbackOnly(const ServerConfig& server);

struct ServerConfig {
  std::string listen = "127.0.0.1:8080";
  // Optional second listener for the agent platform host ({agent_platform_url}); empty = one.
  std::string agent_platform_listen;
  // The absolute URL clients reach the server at, behind a balancer (http(s)://host[:port][/path],
  // no trailing slash): Location headers and ids that need an absolute URL start with it. "":
  // they are relative.
  std::string public_url;
  // Browser origins besides public_url's and loopback ones that may call /mcp (docs/mcp.md).
  std::vector<std::string> allowed_origins;
  int turn_timeout_seconds = 120;
  int answer_early_seconds = 100;
  std::size_t max_body_bytes = 1048576;
  std::size_t max_header_bytes = 16384;
  int read_timeout_seconds = 30;    // a request's body, a response's write
  int idle_timeout_seconds = 60;    // keep-alive connection with no request
  int header_timeout_seconds = 10;  // a request's whole header (slowloris)
  int max_connections = 16384;      // open client connections; then accept waits
  int max_requests_per_connection = 1000;
  int io_threads = 0;        // 0 = one per core
  int blocking_threads = 8;  // store calls run here, never on an I/O thread
  // How long a thread stays awake for a hand-off expected back within microseconds (a turn's
  // commit) before it sleeps; 0 = always sleep (runtime/handoff_wait.hpp).
  int handoff_spin_microseconds = 500;
};

enum class StoreKind { kSqlite, kPostgres };

struct StoreConfig {
  std::string url = "sqlite:var/agentgate.db";
  // Decided once, from the url, when the config is loaded.
  StoreKind kind = StoreKind::kSqlite;
  std::string sqlite_path = "var/agentgate.db";  // the file (kind kSqlite)

  const char* KindName() const { return kind == StoreKind::kSqlite ? "sqlite" : "postgresql"; }
};

struct AdminConfig {
  std::string token_env = "AGENTGATE_ADMIN_TOKEN";
  std::string token_file;
};

struct SecretsConfig {
  std::string master_key_env = "AGENTGATE_MASTER_KEY";
  std::string master_key_file;
};

struct CrmConfig {
  bool allow_http = false;        // plain-http login and instance URLs: test orgs only
  int call_timeout_seconds = 60;  // one gateway call: waiting for a refresh, the refresh, the send
};

// Webhooks (docs/webhooks.md).
struct WebhooksConfig {
  // http URLs, and hosts that are (or resolve to) loopback, private or link-local addresses:
  // private networks and tests only.
  bool allow_private = false;
  // The first retry of a failed delivery; the later ones grow from it (webhooks::RetryDelayMs).
  int first_retry_milliseconds = 5000;
  // Deliveries in flight at once, across the servers (docs/webhooks.md, "Sharing"): to one
  // webhook, and to all of one organization's.
  int max_in_flight_per_webhook = 4;
  int max_in_flight_per_org = 16;
};

// Agents' tools (docs/daemon.md "Tool headers").
struct ToolsConfig {
  // Globs of the environment variables a tool or MCP header may read ({"env": NAME}); agentgate's
  // own variables are refused whatever this lists (HeaderEnvPolicyOf).
  std::vector<std::string> header_env;
};

struct UpstreamConfig {
  std::string ca_file;  // PEM trusted for every upstream in addition to the system store
  int max_connections_per_origin = 4096;  // then calls wait for a connection, until their deadline
};

struct RetentionConfig {
  int turn_days = 400;  // turns (their transcripts) older than this are deleted by maintenance
  int conversation_days = 400;  // conversations idle this long are deleted, all of theirs with them
  int memory_days = 400;        // remembered facts older than this are deleted
};

// Background runs (docs/runs.md).
struct RunsConfig {
  int max_concurrent = 64;  // runs this server runs at once
  // An organization's background runs running at once across servers (docs/runs.md, "Fair
  // shares"); 0 until loaded: then ceil(3/4 x max_concurrent) unless set.
  int max_running_per_org = 0;
  int max_queued_per_org = 10000;  // then a new background run is 429 queue_full
  int poll_milliseconds = 200;     // how often a server looks for runs queued elsewhere
  int max_events = 2000;           // stored per run (its first ones, and its terminal one)
  int retention_hours = 24;        // ended runs and their events are deleted after this
  // A run paused for a person's approval ends failed (approval_expired) after this
  // (docs/daemon.md).
  int approval_timeout_seconds = 86400;
  // Open event streams on this server (docs/runs.md, "Followers"): then a new one is 429
  // too_many_streams.
  int max_followers_per_run = 100;
  int max_followers_per_run_per_token = 10;  // one token's share of a run's followers
  int max_streams_per_token = 1000;
};

// The built-in authorization server (docs/mcp.md, OAuth).
struct OAuthConfig {
  int access_token_lifetime_seconds = 3600;  // at most an hour (RFC 9068's short lives)
};

// OpenTelemetry trace export (docs/tracing.md): off unless an endpoint is configured, here or by
// the standard OTEL_* variables (config/otel_env.hpp), which fill the keys left unset here.
struct TracingConfig {
  std::string endpoint;     // the OTLP/HTTP traces URL (".../v1/traces"); empty: off
  std::string headers_env;  // a variable holding "key=value,..." headers (collector credentials)
  // The same list sealed under the master key (`agentgate seal tracing.headers`), base64; opened
  // at start-up, its headers added to the others.
  std::string headers_sealed;
  std::vector<std::pair<std::string, std::string>> headers;  // resolved from these or OTEL_*
  double sample_ratio = 1.0;  // the share of traces that start here which are recorded
  bool parent_based = true;   // a caller's sampled flag decides for its own trace
  std::string service_name = "agentgate";
  std::vector<std::pair<std::string, std::string>> resource_attributes;  // "key=value,..."
  bool capture_content = false;  // prompt and reply text on spans (withheld text never)
  // Of export bodies: none | gzip. None is the OpenTelemetry SDKs' exporters' default.
  std::string compression = "none";

  bool Enabled() const { return !endpoint.empty(); }
};

struct ProviderConfig {
  std::string name;
  std::string kind;  // openai | anthropic | offline
  std::string base_url;
  std::string api_key_env;  // one key (unset: the provider is called without one, with a warning)
  // A key pool (docs/daemon.md "Fallbacks and key pools"): keys used in turn. Each variable must
  // be set; each sealed value is a key sealed under the master key (`agentgate seal
  // provider.api_key`). api_key_env, when set too, is the pool's first key.
  std::vector<std::string> api_key_envs = {};
  std::vector<std::string> api_keys_sealed = {};
  std::vector<std::string> api_keys =
      {};  // resolved at start-up from the three above; never logged
  // The circuit breaker of each key: this many failures in a row open it for the cool-down.
  int breaker_failures = 5;
  int breaker_cooldown_seconds = 30;
  // Anthropic: the models asked for an answer's schema with output_config (structured outputs);
  // a name, or a prefix ending in "*". Others answer through an answer tool.
  std::vector<std::string> structured_output_models = {};
};

struct Config {
  ServerConfig server;
  StoreConfig store;
  AdminConfig admin;
  SecretsConfig secrets;
  CrmConfig crm;
  UpstreamConfig upstream;
  RetentionConfig retention;
  RunsConfig runs;
  WebhooksConfig webhooks;
  ToolsConfig tools;
  OAuthConfig oauth;
  TracingConfig tracing;
  std::vector<ProviderConfig> providers;
  std::map<std::string, Price> prices;  // "provider/model" -> USD per million tokens
};

// Which variables tool headers may read: [tools] header_env, less every variable this
// configuration names for agentgate's own secrets.
HeaderEnvPolicy HeaderEnvPolicyOf(const Config& config);

using EnvLookup = std::function<std::optional<std::string>(const std::string&)>;

// The process environment.
EnvLookup ProcessEnv();

// Parses TOML text (empty = the embedded defaults), applies overrides, validates.
Result<Config> LoadConfig(const std::string& toml_text, const EnvLookup& env);
Result<Config> LoadConfigFile(const std::string& path, const EnvLookup& env);

// Secrets named by the config: the variable's value, else the file's first line; nullopt if
// neither is set.
Result<std::optional<std::string>> ResolveSecret(const std::string& env_name,
                                                 const std::string& file_path,
                                                 const EnvLookup& env);

}  // namespace agentgate
