#include "wiring.hpp"

#include "adapters/http_client/http_client.hpp"
#include "adapters/http_server/handlers/route_deps.hpp"
#include "adapters/http_server/server.hpp"
#include "adapters/mcp_client/mcp_client.hpp"
#include "adapters/otlp/otlp_exporter.hpp"
#include "adapters/providers/http_model_client.hpp"
#include "adapters/providers/offline_model.hpp"
#include "adapters/store_common/statement_count.hpp"
#include "adapters/store_postgres/pg_run_notices.hpp"
#include "adapters/store_postgres/postgres_store.hpp"
#include "adapters/store_sqlite/sqlite_store.hpp"
#include "app/a2a/push_configs.hpp"
#include "app/access/authorization_server.hpp"
#include "app/admin/demo_provisioning.hpp"
#include "app/admin/maintenance.hpp"
#include "app/mcp/request_state.hpp"
#include "app/runs/runs.hpp"
#include "app/runs/webhook_sender.hpp"
#include "config/config.hpp"
#include "demo_output.hpp"
#include "observability/log.hpp"
#include "observability/thread_name.hpp"
#include "runtime/handoff_wait.hpp"
#include "runtime/server_lease.hpp"
#include "runtime/spend_ledger.hpp"
#include "sealed_settings.hpp"

#include <boost/asio/as_tuple.hpp>
#include <boost/asio/co_spawn.hpp>
#include <boost/asio/detached.hpp>
#include <boost/asio/executor_work_guard.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/signal_set.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/thread_pool.hpp>
#include <boost/json/parse.hpp>

#include <sys/resource.h>

#include <istream>
#include <iterator>
#include <ostream>

#include <chrono>
#include <iostream>
#include <thread>

namespace agentgate {
namespace {

namespace asio = boost::asio;

int Fail(std::string_view what, const std::string& message) {
  log::Error(what, {{"error", std::string_view(message)}});
  log::Flush();
  std::cerr << "agentgate: " << message << "\n";
  return 1;
}

// A start-up phase's error: the store's own, or the configuration's.
int Fail(const Error& error) {
  return Fail(error.code == ErrorCode::kUnavailable ? "store_unavailable" : "config_invalid",
              error.message);
}

// Phase 1. What the server runs with: the configuration and the secrets it names, checked.
struct Settings {
  Config config;
  std::optional<std::string> admin_token;  // none: the admin API is off
  std::optional<crypto::MasterKey> master_key;
};

Result<Config> ReadConfig(const std::string& path) {
  return path.empty() ? LoadConfig("", ProcessEnv()) : LoadConfigFile(path, ProcessEnv());
}

Result<Settings> LoadSettings(const std::string& config_path) {
  const auto env = ProcessEnv();
  AG_TRY(Config config, ReadConfig(config_path));
  AG_TRY(auto admin_token, ResolveSecret(config.admin.token_env, config.admin.token_file, env));
  if (admin_token && admin_token->size() < 16)
    return Error(ErrorCode::kInvalidRequest, "the admin token must be at least 16 characters");
  AG_TRY(auto master_hex,
         ResolveSecret(config.secrets.master_key_env, config.secrets.master_key_file, env));
  std::optional<crypto::MasterKey> master_key;
  if (master_hex) {
    AG_TRY(master_key, crypto::ParseMasterKey(
                           *master_hex, "the master key (" + config.secrets.master_key_env + ")"));
  }
  AG_TRYV(OpenSealedTracingHeaders(config.tracing, master_key));
  AG_TRYV(ResolveProviderKeys(config.providers, env, master_key));
  return Settings{std::move(config), std::move(admin_token), std::move(master_key)};
}

// Phase 2. The store of the configured kind, opened (its schema migrated), with one connection per
// blocking thread plus one so start-up work never waits.
Result<std::unique_ptr<Store>> OpenStore(const Config& config) {
  const auto connections = static_cast<std::size_t>(config.server.blocking_threads) + 1;
  if (config.store.kind == StoreKind::kSqlite) {
    AG_TRY(auto sqlite, SqliteStore::Open(config.store.sqlite_path, connections));
    return std::unique_ptr<Store>(std::move(sqlite));
  }
  AG_TRY(auto shared, PostgresStore::Open(config.store.url, connections));
  return std::unique_ptr<Store>(std::move(shared));
}

// What a store must hold to be served: no sealed secret without the master key, no deployed agent
// whose model has no price or whose tool headers read agentgate's own secrets. A deployed header
// whose variable [tools] header_env does not list is logged: its tool calls fail naming it, and
// the upgrade that brought the rule stops no deployment (docs/daemon.md "Tool headers").
Result<void> CheckStore(Store& store, const Settings& settings, const ProviderCatalog& providers) {
  const HeaderEnvPolicy header_envs = HeaderEnvPolicyOf(settings.config);
  AG_TRY(const bool sealed, store.HasAnySealedSecret());
  if (sealed && !settings.master_key) {
    return Error(ErrorCode::kInvalidRequest,
                 "the store holds encrypted CRM or tool secrets but no master key is set (" +
                     settings.config.secrets.master_key_env + ")");
  }
  AG_TRY(auto deployed, store.ListDeployedVersions());
  for (const auto& v : deployed) {
    boost::system::error_code ec;
    auto config = ParseAgentConfig(boost::json::parse(v.config_json, ec));
    if (ec || !config) continue;  // validated when created
    const std::string which = "agent '" + v.agent_id + "' (org '" + v.org_id + "', version " +
                              std::to_string(v.version) + ")";
    if (auto ok = providers.Check(config->model); !ok)
      return Error(ErrorCode::kInvalidRequest, which + ": " + ok.error().message);
    for (const auto& refused : RefusedHeaderEnvs(*config, header_envs)) {
      if (refused.verdict == HeaderEnvVerdict::kForbidden)
        return Error(ErrorCode::kInvalidRequest,
                     which + ": " + refused.field + " " + HeaderEnvProblem(refused));
      log::Warn("tool_header_env_unlisted", {{"org_id", v.org_id},
                                             {"agent_id", v.agent_id},
                                             {"version", static_cast<std::int64_t>(v.version)},
                                             {"field", refused.field},
                                             {"variable", refused.variable}});
    }
  }
  return {};
}

// Phase 3. One event loop per I/O thread (an io_context that thread alone runs): a connection, its
// turns and their upstream calls stay on one thread, with no strand and no hand-off between I/O
// threads. The first loop also runs the accept loops, signals and background work.
struct EventLoops {
  explicit EventLoops(const Config& config) {
    const int count = config.server.io_threads > 0
                          ? config.server.io_threads
                          : static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
    for (int i = 0; i < count; ++i) {
      owned.push_back(std::make_unique<asio::io_context>(1));
      loops.push_back(owned.back().get());
      executors.push_back(owned.back()->get_executor());
      kept_running.push_back(asio::make_work_guard(*owned.back()));
    }
  }
  asio::io_context& first() { return *loops.front(); }

  std::vector<std::unique_ptr<asio::io_context>> owned;
  std::vector<asio::io_context*> loops;
  std::vector<asio::any_io_executor> executors;
  std::vector<asio::executor_work_guard<asio::io_context::executor_type>> kept_running;
};

// Phase 4. The runtime the use cases run on.
struct Runtime {
  Runtime(const Config& config, Store& store_in)
      : store(store_in),
        blocking(static_cast<std::size_t>(config.server.blocking_threads)),
        handoff_spin(config.server.handoff_spin_microseconds),
        runner(store, blocking),
        tenants(runner, clock),
        // One writer for SQLite (its writes are serial anyway); two for PostgreSQL, so one batch's
        // round trips overlap the other's (more writers contend for the same spend locks;
        // docs/performance.md).
        committer(store, config.store.kind == StoreKind::kSqlite ? 1 : 2, 128, handoff_spin,
                  &metrics),
        lease(runner, clock),
        lease_renewer(lease, store, clock),
        spend(runner, {}, &lease) {
    DeclareAgentgateMetrics(metrics);
    // The hand-off spinning's own count of running turns (InvokeAgent holds one per turn) is the
    // gauge, so neither can drift from the other.
    metrics.DeclareGauge("agentgate_turns_in_flight", "Agent turns running.",
                         [] { return static_cast<double>(RunningTurns()); });
    metrics.DeclareGauge("agentgate_tenant_cache_bytes",
                         "Bytes held by the cache of tokens, clients, grants and deployments.",
                         [this] { return static_cast<double>(tenants.CachedBytes()); });
  }

  Store& store;
  asio::thread_pool blocking;
  const std::chrono::microseconds handoff_spin;
  SystemClock clock;
  Metrics metrics;
  StoreRunner runner;
  TenantDirectory tenants;
  TurnCommitter committer;
  ServerLease lease;
  LeaseRenewer lease_renewer;  // on a thread of its own, not the I/O threads nor the pool
  SpendLedger spend;
  ConversationQueue conversations;
  TurnInterrupts interrupts;
  GatewayCallTally gateway_calls;
};

// Phase 5. Every upstream: one HTTP client, a model client per provider key in each provider's
// pool, MCP servers.
struct Upstreams {
  Upstreams(const Config& config, const EventLoops& loops, const Tracer& tracer, const Clock& clock,
            Metrics& metrics)
      : http(loops.executors, OptionsOf(config)), mcp(http, &tracer) {
    for (const auto& p : config.providers) {
      std::vector<ModelClient*> clients;
      if (p.kind == "offline") {
        clients.push_back(&offline);
      } else {
        if (p.api_keys.empty())
          log::Warn("provider_without_api_key", {{"provider", std::string_view(p.name)}});
        const auto dialect = p.kind == "openai" ? HttpModelClient::Dialect::kOpenAi
                                                : HttpModelClient::Dialect::kAnthropic;
        std::vector<std::optional<std::string>> keys(p.api_keys.begin(), p.api_keys.end());
        if (keys.empty()) keys.emplace_back();  // called without a key
        for (auto& key : keys) {
          http_models.push_back(std::make_unique<HttpModelClient>(
              dialect, http, p.base_url, std::move(key), p.structured_output_models));
          clients.push_back(http_models.back().get());
        }
      }
      const fallback::BreakerLimits limits{p.breaker_failures,
                                           std::chrono::seconds(p.breaker_cooldown_seconds)};
      providers.Add(
          std::make_unique<ProviderPool>(p.name, std::move(clients), limits, clock, &metrics));
    }
  }
  static HttpClientOptions OptionsOf(const Config& config) {
    HttpClientOptions options;
    options.extra_ca_file = config.upstream.ca_file;
    options.max_connections_per_origin =
        static_cast<std::size_t>(config.upstream.max_connections_per_origin);
    return options;
  }

  HttpClient http;
  McpClient mcp;
  OfflineModelClient offline;
  std::vector<std::unique_ptr<HttpModelClient>> http_models;
  ProviderPools providers;
};

// Phase 5b. Traces (docs/tracing.md): an exporter on a thread of its own when an endpoint is
// configured; otherwise a tracer that records nothing.
struct Tracing {
  Tracing(const Config& config, Metrics& metrics) {
    const TracingConfig& t = config.tracing;
    if (!t.Enabled()) return;
    otlp::ExporterOptions options;
    options.endpoint = t.endpoint;
    options.headers = t.headers;
    options.gzip = t.compression == "gzip";
    options.scope.scope_name = "agentgate";
    options.scope.resource.push_back({"service.name", t.service_name});
    for (const auto& [key, value] : t.resource_attributes)
      options.scope.resource.push_back({key, value});
    exporter =
        std::make_unique<otlp::Exporter>(std::move(options), metrics, Upstreams::OptionsOf(config));
    tracer = Tracer(exporter.get(), t.sample_ratio, t.parent_based, t.capture_content);
    log::Info("tracing_enabled", {{"sample_ratio", t.sample_ratio}});
  }
  // What is queued goes to the collector before the process exits.
  void Flush() {
    if (exporter) exporter->Shutdown(std::chrono::seconds(5));
  }

  std::unique_ptr<otlp::Exporter> exporter;
  Tracer tracer;
};

// Phase 6. The use cases.
struct UseCases {
  UseCases(const Settings& settings, const ProviderCatalog& providers, Runtime& rt, Upstreams& up,
           const EventLoops& loops, const Tracing& tracing)
      : timing{std::chrono::seconds(settings.config.server.answer_early_seconds),
               std::chrono::seconds(settings.config.server.turn_timeout_seconds)},
        admin(rt.runner, rt.tenants, rt.spend, rt.clock, providers, settings.master_key,
              settings.config.crm.allow_http, settings.config.webhooks.allow_private,
              HeaderEnvPolicyOf(settings.config)),
        catalog(rt.runner, rt.tenants),
        oauth(rt.runner, rt.tenants, rt.clock, settings.master_key,
              AuthorizationServerSettings{settings.config.oauth.access_token_lifetime_seconds}),
        gateway(rt.runner, rt.tenants, up.http, settings.master_key, rt.clock, rt.metrics,
                GatewayOptions{std::chrono::seconds(settings.config.crm.call_timeout_seconds),
                               settings.config.crm.allow_http, &tracing.tracer}),
        tool_headers(&rt.runner, settings.master_key, HeaderEnvPolicyOf(settings.config)),
        mcp_tools(up.mcp, tool_headers, rt.clock),
        a2a_agents(up.http, tool_headers, rt.clock),
        tools(rt.runner, up.http, rt.clock, gateway, mcp_tools, tool_headers, &a2a_agents),
        idempotency(rt.runner, rt.lease, rt.clock, rt.metrics, timing.hard_cap),
        invoke(InvokeDeps{rt.runner,
                          rt.tenants,
                          rt.committer,
                          rt.spend,
                          catalog,
                          rt.conversations,
                          rt.interrupts,
                          tools,
                          mcp_tools,
                          idempotency,
                          rt.lease,
                          up.providers,
                          settings.config.prices,
                          rt.clock,
                          rt.metrics,
                          timing,
                          &tracing.tracer,
                          std::chrono::seconds(settings.config.runs.approval_timeout_seconds),
                          settings.config.runs.max_queued_per_org,
                          static_cast<std::size_t>(settings.config.runs.max_events),
                          &a2a_agents}),
        console(rt.clock, ConsoleSessions::Limits{}),
        run_worker(RunWorkerDeps{
            invoke, idempotency, rt.tenants, rt.runner, rt.committer, rt.lease, rt.clock,
            rt.metrics, loops.executors, settings.config.runs.max_concurrent,
            std::chrono::milliseconds(settings.config.runs.poll_milliseconds),
            static_cast<std::size_t>(settings.config.runs.max_events),
            std::chrono::milliseconds(100),                      // write-behind
            std::chrono::milliseconds(1000),                     // a watched run's looks
            settings.config.store.kind == StoreKind::kPostgres,  // notices
            [this] { webhooks.Wake(); },
            settings.config.store.kind == StoreKind::kPostgres ? &rt.interrupts : nullptr,
            settings.config.runs.max_running_per_org}),
        runs(invoke, idempotency, rt.tenants, rt.runner, rt.committer, run_worker, rt.clock,
             RunsOptions{.max_queued_per_org = settings.config.runs.max_queued_per_org,
                         // a server alone on its store: nobody else asks it for a run
                         .write_short_streamed_runs_at_end =
                             settings.config.store.kind == StoreKind::kSqlite}),
        streams(rt.tenants, StreamLimits{settings.config.runs.max_followers_per_run,
                                         settings.config.runs.max_streams_per_token,
                                         settings.config.runs.max_followers_per_run_per_token}),
        webhooks(WebhookSenderDeps{rt.runner, up.http, rt.clock, rt.metrics, settings.master_key,
                                   settings.config.webhooks.allow_private,
                                   settings.config.webhooks.first_retry_milliseconds,
                                   std::chrono::milliseconds(std::min(
                                       1000, settings.config.webhooks.first_retry_milliseconds)),
                                   std::chrono::milliseconds(10000),
                                   WebhookShares{settings.config.webhooks.max_in_flight_per_webhook,
                                                 settings.config.webhooks.max_in_flight_per_org}}),
        // An elicited pause is answered within the run's own wait for it.
        mcp_request_states(settings.master_key, rt.clock,
                           std::chrono::seconds(settings.config.runs.approval_timeout_seconds)),
        a2a_push(rt.runner, rt.clock, settings.master_key, settings.config.webhooks.allow_private) {
    rt.metrics.DeclareGauge("agentgate_runs_running", "Background runs running on this server.",
                            [this] { return static_cast<double>(run_worker.Running()); });
    rt.metrics.DeclareGauge("agentgate_event_streams_open",
                            "Event streams open on this server (run followers, streamed invokes).",
                            [this] { return static_cast<double>(streams.open()); });
    rt.metrics.DeclareCounter("agentgate_store_statements_total",
                              "SQL statements this server sent to its store.",
                              [] { return static_cast<double>(store_statements::Run()); });
  }

  const TurnTiming timing;
  AdminService admin;
  AgentCatalog catalog;
  AuthorizationServer oauth;
  MetadataGateway gateway;
  ToolHeaders tool_headers;
  McpToolbox mcp_tools;
  A2aToolbox a2a_agents;
  ToolRunner tools;
  Idempotency idempotency;
  InvokeAgent invoke;
  ConsoleSessions console;
  RunWorker run_worker;
  Runs runs;
  StreamRoster streams;
  WebhookSender webhooks;
  McpRequestStates mcp_request_states;
  a2a::TaskPushConfigs a2a_push;
};

// Each client connection in flight may hold an upstream connection too. Raises the soft
// descriptor limit to the hard one and says so when max_connections cannot fit under it.
void RaiseDescriptorLimit(std::size_t max_connections) {
  rlimit limit{};
  if (::getrlimit(RLIMIT_NOFILE, &limit) != 0) return;
  if (limit.rlim_cur < limit.rlim_max) {
    rlimit raised = limit;
    raised.rlim_cur = limit.rlim_max;
    if (::setrlimit(RLIMIT_NOFILE, &raised) == 0) limit = raised;
  }
  constexpr rlim_t kReserve = 256;  // store, listeners, logs
  if (limit.rlim_cur != RLIM_INFINITY && limit.rlim_cur < 2 * max_connections + kReserve) {
    log::Warn("descriptor_limit_low",
              {{"nofile", static_cast<std::int64_t>(limit.rlim_cur)},
               {"max_connections", static_cast<std::int64_t>(max_connections)},
               {"advice", "raise LimitNOFILE or lower server.max_connections"}});
  }
}

http::ServerOptions ServerOptionsOf(const Config& config) {
  const auto& s = config.server;
  return http::ServerOptions{s.max_body_bytes,
                             s.max_header_bytes,
                             std::chrono::seconds(s.read_timeout_seconds),
                             std::chrono::seconds(s.idle_timeout_seconds),
                             std::chrono::seconds(s.header_timeout_seconds),
                             static_cast<std::size_t>(s.max_connections),
                             static_cast<std::size_t>(s.max_requests_per_connection)};
}

// Phase 7. Listens on the product address and, when configured, the agent platform's own.
Result<std::string> Listen(http::Server& server, const Config& config) {
  AG_TRY(std::string bound, server.Listen(config.server.listen));
  if (!config.server.agent_platform_listen.empty()) {
    AG_TRY(const std::string second, server.Listen(config.server.agent_platform_listen));
    log::Info("listening", {{"address", std::string_view(second)}, {"host", "agent_platform"}});
  }
  return bound;
}

// Phase 8 (optional). A demo organization on an empty store, printed for `make run`.
Result<void> ProvideDemo(const Config& config, const std::string& listen, AdminService& admin,
                         StoreRunner& runner) {
  Result<std::optional<DemoCredentials>> demo = std::optional<DemoCredentials>{};
  asio::io_context setup;
  asio::co_spawn(setup, ProvisionDemo(admin, runner), [&](std::exception_ptr e, auto result) {
    if (e) std::rethrow_exception(e);
    demo = std::move(result);
  });
  setup.run();
  if (!demo) return demo.error();
  PrintDemo(config, listen, *demo);
  return {};
}

// Waits until every request and run finished and every connection closed, or the turn cap
// passed.
asio::awaitable<void> Drain(http::Server& server, RunWorker& runs, std::chrono::seconds limit,
                            const std::vector<asio::io_context*>& loops) {
  asio::steady_timer timer(co_await asio::this_coro::executor);
  const auto deadline = std::chrono::steady_clock::now() + limit;
  while ((server.ActiveRequests() > 0 || server.OpenConnections() > 0 || !runs.Stopped()) &&
         std::chrono::steady_clock::now() < deadline) {
    timer.expires_after(std::chrono::milliseconds(20));
    co_await timer.async_wait(asio::use_awaitable);
  }
  log::Info("shutdown_complete",
            {{"requests_abandoned", static_cast<std::int64_t>(server.ActiveRequests())}});
  for (auto* loop : loops) loop->stop();
}

// Paused runs nobody decided in time end, within a second of their expiry (docs/daemon.md).
asio::awaitable<void> ExpirePausedRuns(Runs& runs, std::chrono::milliseconds every) {
  asio::steady_timer timer(co_await asio::this_coro::executor);
  for (;;) {
    timer.expires_after(every);
    auto [ec] = co_await timer.async_wait(asio::as_tuple(asio::use_awaitable));
    if (ec) co_return;
    auto expired = co_await runs.ExpirePaused();
    if (!expired) {
      log::Warn("paused_runs_expiry_failed",
                {{"error", std::string_view(expired.error().message)}});
    } else if (*expired > 0) {
      log::Info("paused_runs_expired", {{"runs", *expired}});
    }
  }
}

// Open event streams whose caller lost its token or grant end within a second of it: each check
// reads the tenant cache, so the store once a second at most per token and agent.
asio::awaitable<void> CheckStreamRights(StreamRoster& streams, std::chrono::milliseconds every) {
  asio::steady_timer timer(co_await asio::this_coro::executor);
  for (;;) {
    timer.expires_after(every);
    auto [ec] = co_await timer.async_wait(asio::as_tuple(asio::use_awaitable));
    if (ec) co_return;
    try {
      co_await streams.CheckRights();
    } catch (const std::exception& e) {
      log::Error("stream_rights_check_failed", {{"error", std::string_view(e.what())}});
    }
  }
}

// Phase 9. The background work every server does: its liveness lease, running queued runs,
// retention, returning unused spend leases, recording gateway calls for the overview.
void StartBackgroundWork(asio::io_context& loop, const Config& config, Runtime& rt, UseCases& app) {
  const TurnTiming& timing = app.timing;
  rt.lease_renewer.Start();
  app.run_worker.Start(loop.get_executor());
  app.webhooks.Start(loop.get_executor());
  const auto& retention = config.retention;
  asio::co_spawn(loop,
                 RunMaintenance(rt.runner, rt.clock, timing.hard_cap,
                                Retention{retention.turn_days, retention.conversation_days,
                                          retention.memory_days, config.runs.retention_hours},
                                std::chrono::seconds(60)),
                 asio::detached);
  asio::co_spawn(loop, RunSpendLeaseReturns(rt.spend, std::chrono::milliseconds(100)),
                 asio::detached);
  asio::co_spawn(loop, ExpirePausedRuns(app.runs, std::chrono::seconds(1)), asio::detached);
  asio::co_spawn(loop, CheckStreamRights(app.streams, std::chrono::milliseconds(250)),
                 asio::detached);
  asio::co_spawn(loop,
                 RecordGatewayCalls(rt.runner, rt.gateway_calls, rt.clock, std::chrono::seconds(5)),
                 asio::detached);
}

// Phase 10. Runs every loop on its thread (the first on this one) until the drain stops them.
void RunLoops(EventLoops& loops, Runtime& rt) {
  std::vector<std::thread> threads;
  for (std::size_t i = 1; i < loops.loops.size(); ++i) {
    threads.emplace_back([&, i] {
      NameThisThread("ag-io-" + std::to_string(i));  // loop 0 runs on the main thread, "agentgate"
      PollForHandoffs(rt.handoff_spin, Polling::kWhenItPays, &rt.metrics);
      loops.loops[i]->run();
    });
  }
  PollForHandoffs(rt.handoff_spin, Polling::kWhenItPays, &rt.metrics);
  loops.first().run();
  for (auto& t : threads) t.join();
}

}  // namespace

int Serve(const ServeOptions& options) {
  auto settings = LoadSettings(options.config_path);
  if (!settings) return Fail("config_invalid", settings.error().message);
  const Config& config = settings->config;
  const ProviderCatalog providers = ProviderCatalog::FromConfig(config);
  auto store = OpenStore(config);
  if (!store) return Fail(store.error());
  if (auto checked = CheckStore(**store, *settings, providers); !checked)
    return Fail(checked.error());

  EventLoops loops(config);
  Runtime rt(config, **store);
  Tracing tracing(config, rt.metrics);
  Upstreams upstreams(config, loops, tracing.tracer, rt.clock, rt.metrics);
  UseCases app(*settings, providers, rt, upstreams, loops, tracing);
  // On a shared store, followers here hear at once of runs other servers write.
  std::optional<pg::RunNotices> run_notices;
  if (config.store.kind == StoreKind::kPostgres) {
    run_notices.emplace(config.store.url,
                        [&app](const std::string& run_id) { app.run_worker.RunChanged(run_id); });
  }

  std::optional<http::Server> server_slot;
  http::RouteDeps deps{app.admin,
                       app.invoke,
                       app.oauth,
                       app.runs,
                       app.streams,
                       app.gateway,
                       rt.runner,
                       rt.tenants,
                       rt.metrics,
                       app.console,
                       rt.gateway_calls,
                       settings->admin_token
                           ? std::optional<std::string>(crypto::Sha256(*settings->admin_token))
                           : std::nullopt,
                       [&] { return server_slot && server_slot->Draining(); },
                       &tracing.tracer,
                       config.server.public_url,
                       config.server.allowed_origins,
                       ListensOnLoopbackOnly(config.server)};
  deps.mcp_request_states = &app.mcp_request_states;
  deps.a2a_push = &app.a2a_push;
  const http::Router router = http::BuildRouter(deps);
  http::ServerOptions server_options = ServerOptionsOf(config);
  server_options.tracer = &tracing.tracer;
  RaiseDescriptorLimit(server_options.max_connections);
  auto& server = server_slot.emplace(loops.loops, router, rt.metrics, server_options);
  auto bound = Listen(server, config);
  if (!bound) return Fail("listen_failed", bound.error().message);
  if (options.provision_demo) {
    if (auto demo = ProvideDemo(config, *bound, app.admin, rt.runner); !demo)
      return Fail("demo_failed", demo.error().message);
  }
  if (!settings->admin_token)
    log::Warn("admin_api_disabled", {{"reason", "no admin token configured"}});

  asio::signal_set signals(loops.first(), SIGTERM, SIGINT);
  signals.async_wait([&](const boost::system::error_code& ec, int signal) {
    if (ec) return;
    log::Info("shutdown_started", {{"signal", static_cast<std::int64_t>(signal)}});
    server.BeginShutdown();
    app.run_worker.Stop();  // runs already running finish; queued ones wait for another server
    app.webhooks.Stop();    // a delivery held here is tried again by any server after its hold
    asio::co_spawn(loops.first(),
                   Drain(server, app.run_worker,
                         std::chrono::seconds(config.server.turn_timeout_seconds), loops.loops),
                   asio::detached);
  });
  server.Start();
  StartBackgroundWork(loops.first(), config, rt, app);
  log::Info("listening", {{"address", std::string_view(*bound)},
                          {"store", std::string_view(config.store.KindName())}});
  RunLoops(loops, rt);
  tracing.Flush();

  rt.spend.RetireAll();  // what this server leased and did not spend goes back before it exits
  FlushGatewayCalls(**store, rt.gateway_calls, rt.clock);
  rt.blocking.join();
  rt.lease_renewer.Stop();
  rt.lease.End(**store);  // after every release posted above: what is left goes now
  return 0;
}

int Seal(const std::string& config_path, const std::string& setting, std::istream& in,
         std::ostream& out) {
  auto settings = LoadSettings(config_path);
  if (!settings) return Fail(settings.error());
  if (!settings->master_key)
    return Fail("seal_refused",
                "sealing needs the master key (" + settings->config.secrets.master_key_env + ")");
  std::string plaintext((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  while (!plaintext.empty() && (plaintext.back() == '\n' || plaintext.back() == '\r'))
    plaintext.pop_back();
  auto sealed = SealSetting(setting, plaintext, *settings->master_key);
  if (!sealed) return Fail("seal_refused", sealed.error().message);
  out << *sealed << "\n";
  return 0;
}

int Migrate(const std::string& config_path) {
  auto config = ReadConfig(config_path);
  if (!config) return Fail("config_invalid", config.error().message);
  auto store = OpenStore(*config);
  if (!store) return Fail(store.error());
  log::Info("migrated", {{"store", std::string_view(config->store.KindName())}});
  return 0;
}

}  // namespace agentgate
