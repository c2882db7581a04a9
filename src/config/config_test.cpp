#include "config/config.hpp"

#include <gtest/gtest.h>

#include <map>

namespace agentgate {
namespace {

EnvLookup FakeEnv(std::map<std::string, std::string> vars) {
  return [vars = std::move(vars)](const std::string& name) -> std::optional<std::string> {
    auto it = vars.find(name);
    return it == vars.end() ? std::nullopt : std::optional<std::string>(it->second);
  };
}

}  // namespace

TEST(Config, EmbeddedDefaultsServeOnLoopbackWithSqliteAndTheOfflineModel) {
  auto c = LoadConfig("", FakeEnv({}));
  ASSERT_TRUE(c) << c.error().message;
  EXPECT_EQ(c->server.listen, "127.0.0.1:8080");
  EXPECT_EQ(c->server.turn_timeout_seconds, 120);
  EXPECT_EQ(c->server.answer_early_seconds, 100);
  EXPECT_EQ(c->server.max_body_bytes, 1048576u);
  EXPECT_EQ(c->store.url, "sqlite:var/agentgate.db");
  ASSERT_EQ(c->providers.size(), 1u);
  EXPECT_EQ(c->providers[0].kind, "offline");
  EXPECT_FALSE(c->crm.allow_http);  // CRM URLs are https unless the operator says otherwise
  EXPECT_EQ(c->crm.call_timeout_seconds, 60);
  EXPECT_EQ(c->retention.turn_days, 400);
}

TEST(Config, RetentionIsBoundedAndOverridable) {
  auto defaults = LoadConfig("", FakeEnv({}));
  ASSERT_TRUE(defaults) << defaults.error().message;
  EXPECT_EQ(defaults->retention.conversation_days, 400);
  EXPECT_EQ(defaults->retention.memory_days, 400);
  auto c = LoadConfig("[retention]\nturn_days = 30\nconversation_days = 90\nmemory_days = 3650\n",
                      FakeEnv({}));
  ASSERT_TRUE(c) << c.error().message;
  EXPECT_EQ(c->retention.turn_days, 30);
  EXPECT_EQ(c->retention.conversation_days, 90);
  EXPECT_EQ(c->retention.memory_days, 3650);
  auto overridden = LoadConfig("", FakeEnv({{"AGENTGATE_RETENTION_TURN_DAYS", "7"},
                                            {"AGENTGATE_RETENTION_CONVERSATION_DAYS", "8"},
                                            {"AGENTGATE_RETENTION_MEMORY_DAYS", "9"}}));
  ASSERT_TRUE(overridden) << overridden.error().message;
  EXPECT_EQ(overridden->retention.turn_days, 7);
  EXPECT_EQ(overridden->retention.conversation_days, 8);
  EXPECT_EQ(overridden->retention.memory_days, 9);
  for (const char* key : {"turn_days", "conversation_days", "memory_days"}) {
    for (const char* bad : {"0", "36501", "\"forever\""}) {
      auto refused =
          LoadConfig(std::string("[retention]\n") + key + " = " + bad + "\n", FakeEnv({}));
      ASSERT_FALSE(refused) << key << " = " << bad;
      EXPECT_NE(refused.error().message.find(std::string("retention.") + key), std::string::npos);
    }
  }
}

TEST(Config, APublicUrlIsAnAbsoluteHttpUrlWithoutItsTrailingSlash) {
  auto defaults = LoadConfig("", FakeEnv({}));
  ASSERT_TRUE(defaults) << defaults.error().message;
  EXPECT_EQ(defaults->server.public_url, "");
  auto set =
      LoadConfig("[server]\npublic_url = \"https://agentgate.example.com/gw/\"\n", FakeEnv({}));
  ASSERT_TRUE(set) << set.error().message;
  EXPECT_EQ(set->server.public_url, "https://agentgate.example.com/gw");
  auto from_env =
      LoadConfig("", FakeEnv({{"AGENTGATE_SERVER_PUBLIC_URL", "http://10.0.0.5:8080"}}));
  ASSERT_TRUE(from_env) << from_env.error().message;
  EXPECT_EQ(from_env->server.public_url, "http://10.0.0.5:8080");
  for (const char* bad : {"agentgate.example.com", "ftp://x", "https://", "https:///path",
                          "https://x/?a=1", "https://x/#f", "https://user:pw@x", "https://x y"}) {
    auto refused = LoadConfig(std::string("[server]\npublic_url = \"") + bad + "\"\n", FakeEnv({}));
    ASSERT_FALSE(refused) << bad;
    EXPECT_NE(refused.error().message.find("server.public_url"), std::string::npos);
  }
}

TEST(Config, RunsHaveBoundedDefaultsAndOverrides) {
  auto defaults = LoadConfig("", FakeEnv({}));
  ASSERT_TRUE(defaults) << defaults.error().message;
  EXPECT_EQ(defaults->runs.max_concurrent, 64);
  EXPECT_EQ(defaults->runs.max_queued_per_org, 10000);
  EXPECT_EQ(defaults->runs.max_running_per_org, 48);  // ceil(3/4 x 64)
  EXPECT_EQ(defaults->runs.poll_milliseconds, 200);
  EXPECT_EQ(defaults->runs.max_events, 2000);
  EXPECT_EQ(defaults->runs.retention_hours, 24);
  EXPECT_EQ(defaults->runs.approval_timeout_seconds, 86400);
  auto c =
      LoadConfig("[runs]\nmax_concurrent = 3\nretention_hours = 1\napproval_timeout_seconds = 60\n",
                 FakeEnv({{"AGENTGATE_RUNS_POLL_MILLISECONDS", "50"}}));
  ASSERT_TRUE(c) << c.error().message;
  EXPECT_EQ(c->runs.max_concurrent, 3);
  EXPECT_EQ(c->runs.max_running_per_org, 3);  // ceil(9/4)
  EXPECT_EQ(LoadConfig("[runs]\nmax_running_per_org = 7\n", FakeEnv({}))->runs.max_running_per_org,
            7);
  EXPECT_EQ(c->runs.retention_hours, 1);
  EXPECT_EQ(c->runs.poll_milliseconds, 50);
  EXPECT_EQ(c->runs.approval_timeout_seconds, 60);
  for (const char* bad :
       {"max_concurrent = 0", "poll_milliseconds = 1", "max_events = 2", "retention_hours = 0",
        "max_queued_per_org = \"many\"", "max_running_per_org = 0", "approval_timeout_seconds = 0",
        "approval_timeout_seconds = 2592001"}) {
    auto refused = LoadConfig(std::string("[runs]\n") + bad + "\n", FakeEnv({}));
    ASSERT_FALSE(refused) << bad;
    const std::string key(bad, std::string_view(bad).find(' '));
    EXPECT_NE(refused.error().message.find("runs." + key), std::string::npos) << bad;
  }
  EXPECT_FALSE(LoadConfig("[runs]\nmax_paralel = 3\n", FakeEnv({})));
}

TEST(Config, WebhooksArePublicAndHttpsByDefaultAndTheirRetriesScale) {
  auto defaults = LoadConfig("", FakeEnv({}));
  ASSERT_TRUE(defaults) << defaults.error().message;
  EXPECT_FALSE(defaults->webhooks.allow_private);
  EXPECT_EQ(defaults->webhooks.first_retry_milliseconds, 5000);
  auto c = LoadConfig("[webhooks]\nfirst_retry_milliseconds = 200\n",
                      FakeEnv({{"AGENTGATE_WEBHOOKS_ALLOW_PRIVATE", "true"}}));
  ASSERT_TRUE(c) << c.error().message;
  EXPECT_TRUE(c->webhooks.allow_private);
  EXPECT_EQ(c->webhooks.first_retry_milliseconds, 200);
  for (const char* bad : {"first_retry_milliseconds = 5", "first_retry_milliseconds = 60000",
                          "allow_private = \"yes\""}) {
    auto refused = LoadConfig(std::string("[webhooks]\n") + bad + "\n", FakeEnv({}));
    ASSERT_FALSE(refused) << bad;
    const std::string key(bad, std::string_view(bad).find(' '));
    EXPECT_NE(refused.error().message.find("webhooks." + key), std::string::npos) << bad;
  }
  EXPECT_FALSE(LoadConfig("[webhooks]\nallow_privat = true\n", FakeEnv({})));
}

TEST(Config, CrmPlainHttpIsAnExplicitChoice) {
  auto c = LoadConfig(R"([crm]
allow_http = true
[upstream]
ca_file = "/etc/ca.pem"
)",
                      FakeEnv({}));
  ASSERT_TRUE(c) << c.error().message;
  EXPECT_TRUE(c->crm.allow_http);
  EXPECT_EQ(c->upstream.ca_file, "/etc/ca.pem");
  auto overridden =
      LoadConfig("[crm]\nallow_http = true\n", FakeEnv({{"AGENTGATE_CRM_ALLOW_HTTP", "false"}}));
  ASSERT_TRUE(overridden) << overridden.error().message;
  EXPECT_FALSE(overridden->crm.allow_http);
}

TEST(Config, ReadsTheContractKeys) {
  auto c = LoadConfig(R"(
[server]
listen = "0.0.0.0:9000"
turn_timeout_seconds = 60
answer_early_seconds = 50
max_body_bytes = 2048
[store]
url = "sqlite:/tmp/x.db"
[admin]
token_env = "MY_ADMIN"
[secrets]
master_key_env = "MY_KEY"
[[providers]]
name = "openai"
kind = "openai"
base_url = "https://api.openai.com/v1"
api_key_env = "OPENAI_API_KEY"
[prices."openai/gpt-4o-mini"]
input_per_mtok = 0.15
output_per_mtok = 0.60
)",
                      FakeEnv({}));
  ASSERT_TRUE(c) << c.error().message;
  EXPECT_EQ(c->server.listen, "0.0.0.0:9000");
  EXPECT_EQ(c->server.max_body_bytes, 2048u);
  EXPECT_EQ(c->admin.token_env, "MY_ADMIN");
  EXPECT_EQ(c->providers.at(0).api_key_env, "OPENAI_API_KEY");
  ASSERT_EQ(c->providers.size(), 2u);  // the built-in offline model is always there
  EXPECT_EQ(c->providers.at(1).kind, "offline");
  EXPECT_DOUBLE_EQ(c->prices.at("openai/gpt-4o-mini").output_per_mtok, 0.60);
}

TEST(Config, EnvironmentOverridesTheFile) {
  auto c = LoadConfig("[server]\nlisten = \"127.0.0.1:1\"\n",
                      FakeEnv({{"AGENTGATE_SERVER_LISTEN", "127.0.0.1:0"},
                               {"AGENTGATE_SERVER_TURN_TIMEOUT_SECONDS", "30"},
                               {"AGENTGATE_SERVER_ANSWER_EARLY_SECONDS", "20"},
                               {"AGENTGATE_STORE_URL", "sqlite:/tmp/y.db"}}));
  ASSERT_TRUE(c) << c.error().message;
  EXPECT_EQ(c->server.listen, "127.0.0.1:0");
  EXPECT_EQ(c->server.turn_timeout_seconds, 30);
  EXPECT_EQ(c->store.url, "sqlite:/tmp/y.db");
}

TEST(Config, TheStoreKindIsDecidedOnceFromItsUrl) {
  auto sqlite = LoadConfig("[store]\nurl = \"sqlite:/tmp/z.db\"\n", FakeEnv({}));
  ASSERT_TRUE(sqlite) << sqlite.error().message;
  EXPECT_EQ(sqlite->store.kind, StoreKind::kSqlite);
  EXPECT_EQ(sqlite->store.sqlite_path, "/tmp/z.db");
  EXPECT_STREQ(sqlite->store.KindName(), "sqlite");
  auto shared = LoadConfig("[store]\nurl = \"postgresql://u:p@db/agentgate\"\n", FakeEnv({}));
  ASSERT_TRUE(shared) << shared.error().message;
  EXPECT_EQ(shared->store.kind, StoreKind::kPostgres);
  EXPECT_EQ(shared->store.sqlite_path, "");
  EXPECT_STREQ(shared->store.KindName(), "postgresql");
}

TEST(Config, ErrorsNameTheKey) {
  auto expect_error = [](const std::string& toml, const std::string& needle,
                         std::map<std::string, std::string> env = {}) {
    auto c = LoadConfig(toml, FakeEnv(std::move(env)));
    ASSERT_FALSE(c) << toml;
    EXPECT_NE(c.error().message.find(needle), std::string::npos) << c.error().message;
  };
  expect_error("[server]\nlisten = 8080\n", "server.listen");
  expect_error("[server]\nturn_timeout_seconds = \"x\"\n", "server.turn_timeout_seconds");
  expect_error("[server]\nturn_timeout_seconds = 0\n", "server.turn_timeout_seconds");
  expect_error("[server]\nanswer_early_seconds = 200\n", "server.answer_early_seconds");
  expect_error("[server]\nlisen = \"x\"\n", "server.lisen");
  expect_error("[server]\nmax_connections = 0\n", "server.max_connections");
  expect_error("[server]\nheader_timeout_seconds = -1\n", "server.header_timeout_seconds");
  expect_error("[server]\nmax_requests_per_connection = 0\n", "server.max_requests_per_connection");
  expect_error("[server]\nhandoff_spin_microseconds = -1\n", "server.handoff_spin_microseconds");
  expect_error("[server]\nhandoff_spin_microseconds = 100001\n",
               "server.handoff_spin_microseconds");
  expect_error("[bogus]\n", "bogus");
  expect_error("[store]\nurl = \"mysql://x\"\n", "store.url");
  expect_error("[[providers]]\nname = \"a\"\nkind = \"magic\"\n", "providers[0].kind");
  expect_error("[[providers]]\nname = \"a\"\nkind = \"openai\"\n", "providers[0].base_url");
  expect_error(
      "[[providers]]\nname = \"a\"\nkind = \"openai\"\nbase_url = \"https://x\"\napi_key = "
      "\"sk-1\"\n",
      "providers[0].api_key");
  expect_error("[prices.\"gpt\"]\ninput_per_mtok = 1\n", "prices.\"gpt\"");
  expect_error("[prices.\"a/b\"]\ninput_per_mtok = -1\n", "input_per_mtok");
  expect_error("", "server.max_body_bytes", {{"AGENTGATE_SERVER_MAX_BODY_BYTES", "lots"}});
  expect_error("[server\n", "line 1");
  expect_error("[crm]\nallow_http = \"yes\"\n", "crm.allow_http");
  expect_error("", "crm.allow_http", {{"AGENTGATE_CRM_ALLOW_HTTP", "1"}});
  expect_error("[crm]\nallow_https = true\n", "crm.allow_https");
  expect_error("[crm]\ncall_timeout_seconds = 0\n", "crm.call_timeout_seconds");
}

TEST(Config, SecretsComeFromTheNamedVariable) {
  auto secret = ResolveSecret("ADMIN", "", FakeEnv({{"ADMIN", "s3cret-s3cret-s3cret"}}));
  ASSERT_TRUE(secret);
  EXPECT_EQ(secret->value_or(""), "s3cret-s3cret-s3cret");
  auto none = ResolveSecret("ADMIN", "", FakeEnv({}));
  ASSERT_TRUE(none);
  EXPECT_FALSE(*none);
  EXPECT_FALSE(ResolveSecret("ADMIN", "/nonexistent/secret", FakeEnv({})));
}

}  // namespace agentgate

namespace agentgate {
namespace {

std::string ErrorOf(const Result<Config>& c) {
  return c ? std::string("(loaded)") : c.error().message;
}

}  // namespace

TEST(TracingConfig, IsOffUntilAnEndpointIsConfiguredHereOrByTheStandardVariables) {
  auto off = LoadConfig("", FakeEnv({}));
  ASSERT_TRUE(off) << off.error().message;
  EXPECT_FALSE(off->tracing.Enabled());
  EXPECT_EQ(off->tracing.sample_ratio, 1.0);
  EXPECT_EQ(off->tracing.service_name, "agentgate");
  EXPECT_FALSE(off->tracing.capture_content);

  auto keys = LoadConfig(
      "[tracing]\nendpoint = \"http://collector:4318/v1/traces\"\nsample_ratio = 0.5\n"
      "service_name = \"gate-eu\"\nresource_attributes = \"deployment.environment=prod, "
      "team=crm\"\nheaders_env = \"COLLECTOR_HEADERS\"\ncapture_content = true\n",
      FakeEnv({{"COLLECTOR_HEADERS", "x-honeycomb-team=abc%3D%3D,x-dataset=gate"}}));
  ASSERT_TRUE(keys) << keys.error().message;
  EXPECT_TRUE(keys->tracing.Enabled());
  EXPECT_EQ(keys->tracing.endpoint, "http://collector:4318/v1/traces");
  EXPECT_EQ(keys->tracing.sample_ratio, 0.5);
  EXPECT_EQ(keys->tracing.service_name, "gate-eu");
  using Pairs = std::vector<std::pair<std::string, std::string>>;
  EXPECT_EQ(keys->tracing.resource_attributes,
            (Pairs{{"deployment.environment", "prod"}, {"team", "crm"}}));
  EXPECT_EQ(keys->tracing.headers, (Pairs{{"x-honeycomb-team", "abc=="}, {"x-dataset", "gate"}}));
  EXPECT_TRUE(keys->tracing.capture_content);
}

TEST(TracingConfig, TheStandardVariablesFillWhatTheConfigLeavesUnset) {
  auto base = LoadConfig("", FakeEnv({{"OTEL_EXPORTER_OTLP_ENDPOINT", "http://collector:4318"},
                                      {"OTEL_EXPORTER_OTLP_HEADERS", "api-key=s%20cret"},
                                      {"OTEL_SERVICE_NAME", "checkout-gate"},
                                      {"OTEL_TRACES_SAMPLER", "parentbased_traceidratio"},
                                      {"OTEL_TRACES_SAMPLER_ARG", "0.25"}}));
  ASSERT_TRUE(base) << base.error().message;
  EXPECT_EQ(base->tracing.endpoint, "http://collector:4318/v1/traces");  // the signal's path added
  EXPECT_EQ(base->tracing.headers.at(0).second, "s cret");
  EXPECT_EQ(base->tracing.service_name, "checkout-gate");
  EXPECT_EQ(base->tracing.sample_ratio, 0.25);
  EXPECT_TRUE(base->tracing.parent_based);

  auto traces = LoadConfig("[tracing]\nsample_ratio = 0.1\n",
                           FakeEnv({{"OTEL_EXPORTER_OTLP_ENDPOINT", "http://a:4318/"},
                                    {"OTEL_EXPORTER_OTLP_TRACES_ENDPOINT", "https://b/otlp/traces"},
                                    {"OTEL_TRACES_SAMPLER", "always_on"}}));
  ASSERT_TRUE(traces) << traces.error().message;
  EXPECT_EQ(traces->tracing.endpoint, "https://b/otlp/traces");  // as given
  EXPECT_EQ(traces->tracing.sample_ratio, 0.1);                  // the config's key wins
  EXPECT_FALSE(traces->tracing.parent_based);

  auto disabled = LoadConfig("", FakeEnv({{"OTEL_SDK_DISABLED", "true"},
                                          {"OTEL_EXPORTER_OTLP_ENDPOINT", "http://a:4318"}}));
  ASSERT_TRUE(disabled) << disabled.error().message;
  EXPECT_FALSE(disabled->tracing.Enabled());
}

// None by default, as the OpenTelemetry SDKs' exporters (docs/decisions.md).
TEST(TracingConfig, CompressionIsNoneUnlessTheConfigOrTheStandardVariableSaysGzip) {
  auto defaults = LoadConfig("", FakeEnv({}));
  ASSERT_TRUE(defaults) << defaults.error().message;
  EXPECT_EQ(defaults->tracing.compression, "none");
  auto from_env = LoadConfig("", FakeEnv({{"OTEL_EXPORTER_OTLP_COMPRESSION", "gzip"}}));
  ASSERT_TRUE(from_env) << from_env.error().message;
  EXPECT_EQ(from_env->tracing.compression, "gzip");
  // The traces variable wins over the general one, and the config's key over both.
  auto traces = LoadConfig("", FakeEnv({{"OTEL_EXPORTER_OTLP_TRACES_COMPRESSION", "gzip"},
                                        {"OTEL_EXPORTER_OTLP_COMPRESSION", "none"}}));
  ASSERT_TRUE(traces) << traces.error().message;
  EXPECT_EQ(traces->tracing.compression, "gzip");
  auto key = LoadConfig("[tracing]\ncompression = \"none\"\n",
                        FakeEnv({{"OTEL_EXPORTER_OTLP_COMPRESSION", "gzip"}}));
  ASSERT_TRUE(key) << key.error().message;
  EXPECT_EQ(key->tracing.compression, "none");
  EXPECT_NE(ErrorOf(LoadConfig("[tracing]\ncompression = \"zstd\"\n", FakeEnv({})))
                .find("'tracing.compression': must be gzip or none"),
            std::string::npos);
  EXPECT_NE(ErrorOf(LoadConfig("", FakeEnv({{"OTEL_EXPORTER_OTLP_COMPRESSION", "br"}})))
                .find("'OTEL_EXPORTER_OTLP_COMPRESSION'"),
            std::string::npos);
}

TEST(TracingConfig, BadSettingsAreStartUpErrorsNamingTheKeyOrVariable) {
  EXPECT_NE(ErrorOf(LoadConfig("[tracing]\nendpoint = \"collector:4318\"\n", FakeEnv({})))
                .find("'tracing.endpoint'"),
            std::string::npos);
  const auto ratio = ErrorOf(LoadConfig("[tracing]\nsample_ratio = 1.5\n", FakeEnv({})));
  EXPECT_NE(ratio.find("'tracing.sample_ratio': must be from 0 to 1"), std::string::npos) << ratio;
  EXPECT_NE(ErrorOf(LoadConfig("", FakeEnv({{"AGENTGATE_TRACING_SAMPLE_RATIO", "-0.1"}})))
                .find("'tracing.sample_ratio'"),
            std::string::npos);
  EXPECT_NE(ErrorOf(LoadConfig("", FakeEnv({{"OTEL_TRACES_SAMPLER", "traceidratio"},
                                            {"OTEL_TRACES_SAMPLER_ARG", "2"}})))
                .find("'OTEL_TRACES_SAMPLER_ARG'"),
            std::string::npos);
  EXPECT_NE(ErrorOf(LoadConfig("", FakeEnv({{"OTEL_TRACES_SAMPLER", "sometimes"}})))
                .find("'OTEL_TRACES_SAMPLER'"),
            std::string::npos);
  EXPECT_NE(ErrorOf(LoadConfig("[tracing]\nheaders_env = \"NOT_SET\"\n", FakeEnv({})))
                .find("'tracing.headers_env'"),
            std::string::npos);
  // A malformed secret is named by where it came from, never quoted.
  const auto headers = ErrorOf(LoadConfig("[tracing]\nheaders_env = \"H\"\n",
                                          FakeEnv({{"H", "secret-token-without-a-key"}})));
  EXPECT_NE(headers.find("key=value"), std::string::npos) << headers;
  EXPECT_EQ(headers.find("secret-token"), std::string::npos) << headers;
  EXPECT_NE(ErrorOf(LoadConfig("[tracing]\nsampler = \"x\"\n", FakeEnv({})))
                .find("'tracing.sampler': unknown key"),
            std::string::npos);
}

}  // namespace agentgate

namespace agentgate {

TEST(ProviderKeys, APoolAndItsBreakerAreReadAndBadOnesNamed) {
  const std::string head =
      "[[providers]]\nname = \"a\"\nkind = \"openai\"\nbase_url = \"https://x\"\n";
  auto c = LoadConfig(head +
                          "api_key_envs = [\"K1\", \"K2\"]\napi_keys_sealed = [\"c2VhbGVk\"]\n"
                          "breaker_failures = 2\nbreaker_cooldown_seconds = 7\n",
                      FakeEnv({}));
  ASSERT_TRUE(c) << ErrorOf(c);
  const ProviderConfig& p = c->providers.front();
  EXPECT_EQ(p.api_key_envs, (std::vector<std::string>{"K1", "K2"}));
  EXPECT_EQ(p.api_keys_sealed, (std::vector<std::string>{"c2VhbGVk"}));
  EXPECT_EQ(p.breaker_failures, 2);
  EXPECT_EQ(p.breaker_cooldown_seconds, 7);
  EXPECT_TRUE(p.api_keys.empty());  // resolved at start-up, never by the loader

  auto plain = LoadConfig(head, FakeEnv({}));
  ASSERT_TRUE(plain);
  EXPECT_EQ(plain->providers.front().breaker_failures, 5);
  EXPECT_EQ(plain->providers.front().breaker_cooldown_seconds, 30);

  auto error_of = [&](const std::string& extra) {
    return ErrorOf(LoadConfig(head + extra, FakeEnv({})));
  };
  EXPECT_NE(error_of("api_key_envs = []\n").find("providers[0].api_key_envs"), std::string::npos);
  EXPECT_NE(error_of("api_key_envs = \"K\"\n").find("providers[0].api_key_envs"),
            std::string::npos);
  EXPECT_NE(error_of("api_key_envs = [\"K\", \"\"]\n").find("providers[0].api_key_envs[1]"),
            std::string::npos);
  EXPECT_NE(error_of("api_keys_sealed = []\n").find("providers[0].api_keys_sealed"),
            std::string::npos);
  EXPECT_NE(error_of("breaker_failures = 0\n").find("providers[0].breaker_failures"),
            std::string::npos);
  EXPECT_NE(
      error_of("breaker_cooldown_seconds = 3601\n").find("providers[0].breaker_cooldown_seconds"),
      std::string::npos);
}

TEST(ProviderKeys, StructuredOutputModelsAreAnAnthropicProvidersAlone) {
  auto c = LoadConfig(
      "[[providers]]\nname = \"c\"\nkind = \"anthropic\"\nbase_url = \"https://x\"\n"
      "structured_output_models = [\"claude-sonnet-4-5*\", \"claude-opus-4-5\"]\n",
      FakeEnv({}));
  ASSERT_TRUE(c) << ErrorOf(c);
  EXPECT_EQ(c->providers.front().structured_output_models,
            (std::vector<std::string>{"claude-sonnet-4-5*", "claude-opus-4-5"}));
  EXPECT_NE(ErrorOf(LoadConfig("[[providers]]\nname = \"o\"\nkind = \"openai\"\nbase_url = "
                               "\"https://x\"\nstructured_output_models = [\"gpt\"]\n",
                               FakeEnv({})))
                .find("providers[0].structured_output_models"),
            std::string::npos);
  EXPECT_NE(ErrorOf(LoadConfig("[[providers]]\nname = \"c\"\nkind = \"anthropic\"\nbase_url = "
                               "\"https://x\"\nstructured_output_models = \"claude\"\n",
                               FakeEnv({})))
                .find("providers[0].structured_output_models"),
            std::string::npos);
}

TEST(Prices, CachedAndCacheWritePricesAreOptional) {
  auto c = LoadConfig(
      "[prices.\"a/m\"]\ninput_per_mtok = 3\noutput_per_mtok = 15\ncached_input_per_mtok = 0.3\n"
      "cache_write_per_mtok = 3.75\n[prices.\"a/plain\"]\ninput_per_mtok = 1\n",
      FakeEnv({}));
  ASSERT_TRUE(c) << ErrorOf(c);
  EXPECT_EQ(c->prices.at("a/m").cached_input_per_mtok, 0.3);
  EXPECT_EQ(c->prices.at("a/m").cache_write_per_mtok, 3.75);
  EXPECT_FALSE(c->prices.at("a/plain").cached_input_per_mtok);
  EXPECT_EQ(c->prices.at("a/plain").CachedInput(), 1);  // the plain input price
  EXPECT_NE(ErrorOf(LoadConfig("[prices.\"a/m\"]\ncached_input_per_mtok = -1\n", FakeEnv({})))
                .find("cached_input_per_mtok"),
            std::string::npos);
}

}  // namespace agentgate

namespace agentgate {

TEST(Config, ToolHeadersReadOnlyListedVariablesAndNeverTheServersOwn) {
  auto none = LoadConfig("", FakeEnv({}));
  ASSERT_TRUE(none) << none.error().message;
  EXPECT_TRUE(none->tools.header_env.empty());

  auto c = LoadConfig(R"([admin]
token_env = "OPS_ADMIN_TOKEN"
[tools]
header_env = ["DOCS_TOKEN", "CRM_TOOL_*"]
[[providers]]
name = "openai"
kind = "openai"
base_url = "https://api.openai.com/v1"
api_key_env = "OPENAI_API_KEY"
api_key_envs = ["OPENAI_KEY_2"]
)",
                      FakeEnv({}));
  ASSERT_TRUE(c) << c.error().message;
  EXPECT_EQ(c->tools.header_env, (std::vector<std::string>{"DOCS_TOKEN", "CRM_TOOL_*"}));
  const HeaderEnvPolicy policy = HeaderEnvPolicyOf(*c);
  EXPECT_EQ(JudgeHeaderEnv(policy, "DOCS_TOKEN"), HeaderEnvVerdict::kAllowed);
  EXPECT_EQ(JudgeHeaderEnv(policy, "HOME"), HeaderEnvVerdict::kUnlisted);
  for (const char* name :
       {"OPS_ADMIN_TOKEN", "AGENTGATE_MASTER_KEY", "OPENAI_API_KEY", "OPENAI_KEY_2"})
    EXPECT_EQ(JudgeHeaderEnv(policy, name), HeaderEnvVerdict::kForbidden) << name;

  auto overridden = LoadConfig("", FakeEnv({{"AGENTGATE_TOOLS_HEADER_ENV", "A_*,B"}}));
  ASSERT_TRUE(overridden) << overridden.error().message;
  EXPECT_EQ(overridden->tools.header_env, (std::vector<std::string>{"A_*", "B"}));

  auto bad = LoadConfig("[tools]\nheader_env = \"DOCS_TOKEN\"\n", FakeEnv({}));
  ASSERT_FALSE(bad);
  EXPECT_NE(bad.error().message.find("tools.header_env"), std::string::npos);
  EXPECT_FALSE(LoadConfig("[tools]\nheader_envs = []\n", FakeEnv({})));
}

TEST(Config, LoopbackOnlyIsEveryListenerOnALoopbackAddress) {
  ServerConfig server;
  EXPECT_TRUE(ListensOnLoopbackOnly(server));  // 127.0.0.1:8080
  for (const char* listen : {"localhost:8080", "[::1]:8080", "127.1.2.3:80"}) {
    server.listen = listen;
    EXPECT_TRUE(ListensOnLoopbackOnly(server)) << listen;
  }
  for (const char* listen : {"0.0.0.0:8080", "10.0.0.5:8080", "[::]:8080", "127.evil:80"}) {
    server.listen = listen;
    EXPECT_FALSE(ListensOnLoopbackOnly(server)) << listen;
  }
  server.listen = "127.0.0.1:8080";
  server.agent_platform_listen = "0.0.0.0:8081";
  EXPECT_FALSE(ListensOnLoopbackOnly(server));
}

}  // namespace agentgate
