#include "wiring.hpp"

#include "adapters/http_client/http_client.hpp"
#include "adapters/http_server/handlers/route_deps.hpp"
#include "adapters/http_server/server.hpp"
#include "adapters/providers/http_model_client.hpp"
#include "adapters/providers/offline_model.hpp"
#include "adapters/store_postgres/postgres_store.hpp"
#include "adapters/store_sqlite/sqlite_store.hpp"
#include "app/demo_provisioning.hpp"
#include "app/handoff_wait.hpp"
#include "app/maintenance.hpp"
#include "app/spend_ledger.hpp"

#include <boost/json/parse.hpp>
#include "config/config.hpp"
#include "observability/log.hpp"
#include "observability/thread_name.hpp"

#include <boost/asio/co_spawn.hpp>
#include <boost/asio/detached.hpp>
#include <boost/asio/executor_work_guard.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/signal_set.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/thread_pool.hpp>

#include <sys/resource.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <thread>

namespace agentgate {
namespace {

namespace asio = boost::asio;

class SystemClock final : public Clock {
 public:
  std::int64_t NowMs() const override {
    return std::chrono::duration_cast<std::chrono::milliseconds>(
               std::chrono::system_clock::now().time_since_epoch())
        .count();
  }
};

// Every model a deployed agent runs needs a price, checked before serving.
Result<void> CheckDeployedModelsArePriced(Store& store, const ProviderCatalog& providers) {
  AG_TRY(auto deployed, store.ListDeployedVersions());
  for (const auto& v : deployed) {
    boost::system::error_code ec;
    auto config = ParseAgentConfig(boost::json::parse(v.config_json, ec));
    if (ec || !config) continue;  // validated when created
    if (auto ok = providers.Check(config->model); !ok) {
      return Error(ErrorCode::kInvalidRequest, "agent '" + v.agent_id + "' (org '" + v.org_id +
                                                   "', version " + std::to_string(v.version) +
                                                   "): " + ok.error().message);
    }
  }
  return {};
}

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

int Fail(std::string_view what, const std::string& message) {
  log::Error(what, {{"error", std::string_view(message)}});
  log::Flush();
  std::cerr << "agentgate: " << message << "\n";
  return 1;
}

Result<Config> ReadConfig(const std::string& path) {
  return path.empty() ? LoadConfig("", ProcessEnv()) : LoadConfigFile(path, ProcessEnv());
}

Result<std::unique_ptr<Store>> OpenStore(const Config& config) {
  const std::string& url = config.store.url;
  if (url.starts_with("sqlite:")) {
    // One connection per blocking thread, plus one so start-up work never waits.
    auto store = SqliteStore::Open(url.substr(7),
                                   static_cast<std::size_t>(config.server.blocking_threads) + 1);
    if (!store) return store.error();
    return std::unique_ptr<Store>(std::move(*store));
  }
  // Several servers share one PostgreSQL database and behave as one service.
  auto store =
      PostgresStore::Open(url, static_cast<std::size_t>(config.server.blocking_threads) + 1);
  if (!store) return store.error();
  return std::unique_ptr<Store>(std::move(*store));
}

// Where the demo's one-time token is kept so later `make run`s can print it again: next to the
// SQLite file, or under var/ in the working directory when the store is a database server.
std::string DemoFilePath(const Config& config) {
  const std::string& url = config.store.url;
  std::filesystem::path dir = "var";
  if (url.starts_with("sqlite:")) dir = std::filesystem::path(url.substr(7)).parent_path();
  if (dir.empty()) dir = ".";
  std::error_code ignored;
  std::filesystem::create_directories(dir, ignored);
  return (dir / "demo-credentials.txt").string();
}

void PrintDemo(const Config& config, const std::string& listen,
               const std::optional<DemoCredentials>& fresh) {
  const std::string path = DemoFilePath(config);
  if (fresh) {
    std::ofstream out(path, std::ios::trunc);
    out << "org=" << fresh->org_id << "\nenv=" << fresh->env << "\ntoken=" << fresh->token
        << "\nagent=" << fresh->agent_id << "\n";
    out.close();
    std::error_code ignored;  // an unwritable directory only costs the reminder on later starts
    std::filesystem::permissions(
        path, std::filesystem::perms::owner_read | std::filesystem::perms::owner_write, ignored);
  }
  std::ifstream in(path);
  if (!in) {
    std::cout << "Demo: the store already held organizations; no demo credentials were created.\n";
    return;
  }
  std::map<std::string, std::string> kv;
  for (std::string line; std::getline(in, line);) {
    const auto eq = line.find('=');
    if (eq != std::string::npos) kv[line.substr(0, eq)] = line.substr(eq + 1);
  }
  std::cout << "\nDemo organization (credentials kept in " << path << "):\n"
            << "  org:   " << kv["org"] << "\n  env:   " << kv["env"]
            << "\n  token: " << kv["token"] << "\n  agent: " << kv["agent"]
            << "\n\nTry:\n  curl -s http://" << listen << "/api/agents/" << kv["agent"]
            << "/invoke -H 'content-type: application/json' -H 'fl-api-org: " << kv["org"]
            << "' -H 'fl-api-env: " << kv["env"] << "' -H 'fl-api-token: " << kv["token"]
            << "' -d '{\"message\":\"What is agentgate?\"}'\n\n"
            << std::flush;
}

// Waits until every request finished and every connection closed, or the turn cap passed.
asio::awaitable<void> Drain(http::Server& server, std::chrono::seconds limit,
                            const std::vector<asio::io_context*>& loops) {
  asio::steady_timer timer(co_await asio::this_coro::executor);
  const auto deadline = std::chrono::steady_clock::now() + limit;
  while ((server.ActiveRequests() > 0 || server.OpenConnections() > 0) &&
         std::chrono::steady_clock::now() < deadline) {
    timer.expires_after(std::chrono::milliseconds(20));
    co_await timer.async_wait(asio::use_awaitable);
  }
  log::Info("shutdown_complete",
            {{"requests_abandoned", static_cast<std::int64_t>(server.ActiveRequests())}});
  for (auto* loop : loops) loop->stop();
}

}  // namespace

int Serve(const ServeOptions& options) {
  auto config = ReadConfig(options.config_path);
  if (!config) return Fail("config_invalid", config.error().message);
  const auto env = ProcessEnv();

  auto admin_token = ResolveSecret(config->admin.token_env, config->admin.token_file, env);
  if (!admin_token) return Fail("config_invalid", admin_token.error().message);
  if (*admin_token && (*admin_token)->size() < 16) {
    return Fail("config_invalid", "the admin token must be at least 16 characters");
  }
  auto master_hex =
      ResolveSecret(config->secrets.master_key_env, config->secrets.master_key_file, env);
  if (!master_hex) return Fail("config_invalid", master_hex.error().message);
  std::optional<crypto::MasterKey> master_key;
  if (*master_hex) {
    auto key = crypto::ParseMasterKey(**master_hex,
                                      "the master key (" + config->secrets.master_key_env + ")");
    if (!key) return Fail("config_invalid", key.error().message);
    master_key = *key;
  }

  auto store = OpenStore(*config);
  if (!store) return Fail("store_unavailable", store.error().message);
  auto has_secrets = (*store)->HasAnySealedSecret();
  if (!has_secrets) return Fail("store_unavailable", has_secrets.error().message);
  if (*has_secrets && !master_key) {
    return Fail("config_invalid",
                "the store holds encrypted CRM or tool secrets but no master key is set (" +
                    config->secrets.master_key_env + ")");
  }

  const int io_threads = config->server.io_threads > 0
                             ? config->server.io_threads
                             : static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  // One event loop per I/O thread (an io_context that thread alone runs): a connection, its turns
  // and their upstream calls stay on one thread, with no strand and no hand-off between I/O
  // threads. The first loop also runs the accept loops, signals and background work.
  std::vector<std::unique_ptr<asio::io_context>> loops;
  std::vector<asio::io_context*> loop_list;
  std::vector<asio::any_io_executor> loop_executors;
  std::vector<asio::executor_work_guard<asio::io_context::executor_type>> loops_kept_running;
  for (int i = 0; i < io_threads; ++i) {
    loops.push_back(std::make_unique<asio::io_context>(1));
    loop_list.push_back(loops.back().get());
    loop_executors.push_back(loops.back()->get_executor());
    loops_kept_running.push_back(asio::make_work_guard(*loops.back()));
  }
  asio::io_context& ioc = *loops.front();
  asio::thread_pool blocking(static_cast<std::size_t>(config->server.blocking_threads));
  SystemClock clock;
  Metrics metrics;
  DeclareAgentgateMetrics(metrics);
  // The hand-off spinning's own count of running turns (InvokeAgent holds one per turn) is the
  // gauge, so neither can drift from the other.
  metrics.DeclareGauge("agentgate_turns_in_flight", "Agent turns running.",
                       [] { return static_cast<double>(RunningTurns()); });
  StoreRunner runner(**store, blocking);
  TenantDirectory tenants(runner);
  // One writer for SQLite (its writes are serial anyway); two for PostgreSQL, so one batch's round
  // trips overlap the other's (more writers contend for the same spend locks:
  // bench/store_backends.sh measured 0.37x of SQLite with one, 0.42-0.54x with two, 0.39-0.44x with
  // four).
  const std::chrono::microseconds handoff_spin(config->server.handoff_spin_microseconds);
  TurnCommitter committer(**store, config->store.url.starts_with("sqlite:") ? 1 : 2, 128,
                          handoff_spin, &metrics);
  const ProviderCatalog providers = ProviderCatalog::FromConfig(*config);
  if (auto priced = CheckDeployedModelsArePriced(**store, providers); !priced) {
    return Fail("config_invalid", priced.error().message);
  }
  SpendLedger spend(runner);
  AdminService admin(runner, tenants, spend, clock, providers, master_key, config->crm.allow_http);

  // One HTTP client for every upstream; one model client per configured provider.
  HttpClientOptions http_options;
  http_options.extra_ca_file = config->upstream.ca_file;
  http_options.max_connections_per_origin =
      static_cast<std::size_t>(config->upstream.max_connections_per_origin);
  HttpClient http(loop_executors, http_options);
  OfflineModelClient offline_model;
  std::vector<std::unique_ptr<HttpModelClient>> http_models;
  std::map<std::string, ModelClient*> models;
  for (const auto& p : config->providers) {
    if (p.kind == "offline") {
      models[p.name] = &offline_model;
      continue;
    }
    std::optional<std::string> key;
    if (!p.api_key_env.empty()) key = env(p.api_key_env);
    if (!key) log::Warn("provider_without_api_key", {{"provider", std::string_view(p.name)}});
    const auto dialect = p.kind == "openai" ? HttpModelClient::Dialect::kOpenAi
                                            : HttpModelClient::Dialect::kAnthropic;
    http_models.push_back(std::make_unique<HttpModelClient>(dialect, http, p.base_url, key));
    models[p.name] = http_models.back().get();
  }
  AgentCatalog catalog(runner, tenants);
  ConversationQueue conversations;
  MetadataGateway gateway(runner, tenants, http, master_key, clock, metrics,
                          GatewayOptions{std::chrono::seconds(config->crm.call_timeout_seconds),
                                         config->crm.allow_http});
  McpClient mcp_client(http);
  ToolHeaders tool_headers(&runner, master_key);
  McpToolbox mcp_tools(mcp_client, tool_headers, clock);
  ToolRunner tools(runner, http, clock, gateway, mcp_tools, tool_headers);
  const TurnTiming timing{std::chrono::seconds(config->server.answer_early_seconds),
                          std::chrono::seconds(config->server.turn_timeout_seconds)};
  Idempotency idempotency(runner, clock, metrics, timing.hard_cap);
  InvokeAgent invoke(InvokeDeps{runner, tenants, committer, spend, catalog, conversations, tools,
                                mcp_tools, models, config->prices, clock, metrics, timing});

  ConsoleSessions console_sessions(clock, ConsoleSessions::Limits{});
  GatewayCallTally gateway_calls;
  std::optional<http::Server> server_slot;
  http::RouteDeps deps{
      admin,
      invoke,
      idempotency,
      gateway,
      runner,
      tenants,
      metrics,
      console_sessions,
      gateway_calls,
      *admin_token ? std::optional<std::string>(crypto::Sha256(**admin_token)) : std::nullopt,
      [&] { return server_slot && server_slot->Draining(); }};
  const http::Router router = http::BuildRouter(deps);
  http::ServerOptions server_options{
      config->server.max_body_bytes,
      config->server.max_header_bytes,
      std::chrono::seconds(config->server.read_timeout_seconds),
      std::chrono::seconds(config->server.idle_timeout_seconds),
      std::chrono::seconds(config->server.header_timeout_seconds),
      static_cast<std::size_t>(config->server.max_connections),
      static_cast<std::size_t>(config->server.max_requests_per_connection)};
  RaiseDescriptorLimit(server_options.max_connections);
  auto& server = server_slot.emplace(loop_list, router, metrics, server_options);
  auto bound = server.Listen(config->server.listen);
  if (!bound) return Fail("listen_failed", bound.error().message);
  if (!config->server.agent_platform_listen.empty()) {
    auto second = server.Listen(config->server.agent_platform_listen);
    if (!second) return Fail("listen_failed", second.error().message);
    log::Info("listening", {{"address", std::string_view(*second)}, {"host", "agent_platform"}});
  }

  if (options.provision_demo) {
    Result<std::optional<DemoCredentials>> demo = std::optional<DemoCredentials>{};
    asio::io_context setup;
    asio::co_spawn(setup, ProvisionDemo(admin, runner), [&](std::exception_ptr e, auto result) {
      if (e) std::rethrow_exception(e);
      demo = std::move(result);
    });
    setup.run();
    if (!demo) return Fail("demo_failed", demo.error().message);
    PrintDemo(*config, *bound, *demo);
  }
  if (!*admin_token) log::Warn("admin_api_disabled", {{"reason", "no admin token configured"}});

  asio::signal_set signals(ioc, SIGTERM, SIGINT);
  signals.async_wait([&](const boost::system::error_code& ec, int signal) {
    if (ec) return;
    log::Info("shutdown_started", {{"signal", static_cast<std::int64_t>(signal)}});
    server.BeginShutdown();
    asio::co_spawn(
        ioc, Drain(server, std::chrono::seconds(config->server.turn_timeout_seconds), loop_list),
        asio::detached);
  });
  server.Start();
  asio::co_spawn(
      ioc,
      RunMaintenance(runner, clock, timing.hard_cap,
                     RetentionDays{config->retention.turn_days, config->retention.conversation_days,
                                   config->retention.memory_days},
                     std::chrono::seconds(60)),
      asio::detached);
  asio::co_spawn(ioc, RunSpendLeaseReturns(spend, std::chrono::milliseconds(100)), asio::detached);
  asio::co_spawn(ioc, RecordGatewayCalls(runner, gateway_calls, clock, std::chrono::seconds(5)),
                 asio::detached);
  log::Info(
      "listening",
      {{"address", std::string_view(*bound)},
       {"store", std::string_view(config->store.url.substr(0, config->store.url.find(':')))}});

  std::vector<std::thread> threads;
  for (int i = 1; i < io_threads; ++i) {
    threads.emplace_back([&, i] {
      NameThisThread("ag-io-" + std::to_string(i));  // loop 0 runs on the main thread, "agentgate"
      PollForHandoffs(handoff_spin, Polling::kWhenItPays, &metrics);
      loops[i]->run();
    });
  }
  PollForHandoffs(handoff_spin, Polling::kWhenItPays, &metrics);
  ioc.run();
  for (auto& t : threads) t.join();
  spend.RetireAll();  // what this server leased and did not spend goes back before it exits
  FlushGatewayCalls(**store, gateway_calls, clock);
  blocking.join();
  return 0;
}

int Migrate(const std::string& config_path) {
  auto config = ReadConfig(config_path);
  if (!config) return Fail("config_invalid", config.error().message);
  auto store = OpenStore(*config);
  if (!store) return Fail("store_unavailable", store.error().message);
  log::Info(
      "migrated",
      {{"store", std::string_view(config->store.url.substr(0, config->store.url.find(':')))}});
  return 0;
}

}  // namespace agentgate
