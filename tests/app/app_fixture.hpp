#pragma once
// What the use-case tests share: in-process fakes of the model, HTTP and MCP ports and of the
// clock, and an InvokeAgent over a real SQLite store (the embedded store is a file; nothing of the
// store is faked), with one organization, environment, agent, token and grant.
#include "app/gateway/metadata_gateway.hpp"
#include "app/turn/invoke_agent.hpp"
#include "observability/log.hpp"
#include "store/store_backends.hpp"
#include "support/manual_clock.hpp"
#include "support/run_async.hpp"

#include <gtest/gtest.h>
#include <boost/asio/as_tuple.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/this_coro.hpp>
#include <boost/asio/thread_pool.hpp>
#include <boost/asio/use_awaitable.hpp>

#include <chrono>
#include <deque>
#include <functional>
#include <mutex>
#include <thread>

namespace agentgate::testing {

namespace asio = boost::asio;
using namespace std::chrono_literals;

constexpr std::int64_t kNov26 = 1795651200000;  // 2026-11-26T00:00:00Z

// A model that answers from a script, one step per call, and keeps every request it was sent.
class ScriptedModel final : public ModelClient {
 public:
  using Step = std::function<ModelResult(const ModelRequest&)>;

  asio::awaitable<ModelResult> Complete(const ModelRequest& request, std::chrono::milliseconds,
                                        const ModelCallOptions& options) override {
    const TextSink* on_text = options.on_text;
    Step step;
    std::chrono::milliseconds think{0};
    {
      std::lock_guard lock(mutex_);
      seen.push_back(request);
      if (script.empty()) co_return ModelFailure{ModelFailure::Kind::kRejected, "no step left", {}};
      step = std::move(script.front());
      script.pop_front();
      think = thinking;
    }
    if (think > 0ms) {
      // As a provider call would: the turn's cancellation ends the wait.
      asio::steady_timer timer(co_await asio::this_coro::executor, think);
      auto [ec] = co_await timer.async_wait(asio::as_tuple(asio::use_awaitable));
      if (ec) co_return ModelFailure{ModelFailure::Kind::kTransient, "canceled", {}};
    }
    ModelResult result = step(request);
    // A streamed call hears its reply's text `piece` bytes at a time.
    if (const auto* reply = std::get_if<ModelReply>(&result); reply != nullptr && on_text) {
      ++streamed_calls;
      const std::string_view text = reply->text;
      const std::size_t piece = stream_piece > 0 ? stream_piece : text.size();
      for (std::size_t at = 0; at < text.size(); at += piece) (*on_text)(text.substr(at, piece));
    }
    co_return result;
  }

  std::size_t stream_piece = 0;  // 0: the whole text in one piece
  int streamed_calls = 0;
  std::deque<Step> script;
  std::vector<ModelRequest> seen;
  std::chrono::milliseconds thinking{0};  // each call takes this long, in real time

 private:
  std::mutex mutex_;
};

inline ModelResult Reply(std::string text, std::int64_t input = 1000, std::int64_t output = 500) {
  return ModelReply{std::move(text), {}, TokenUsage{input, output}};
}

inline ModelResult CallsTool(std::string name, std::string arguments = "{}") {
  return ModelReply{"", {ToolCall{"call-1", std::move(name), std::move(arguments)}}, {100, 10}};
}

// The tools' HTTP: what an http tool's URL answers, and what it was sent.
class FakeHttp final : public HttpCaller {
 public:
  asio::awaitable<Result<HttpClientResponse>> Send(HttpClientRequest request) override {
    sent.push_back(request.url);
    co_return answer;
  }
  Result<HttpClientResponse> answer = MakeError(ErrorCode::kUnavailable, "connection refused");
  std::vector<std::string> sent;
};

// No agent here uses MCP servers.
class NoMcp final : public McpCaller {
 public:
  asio::awaitable<Result<mcp::RpcReply>> Request(const McpEndpoint&, const McpCall&,
                                                 std::chrono::milliseconds) override {
    co_return MakeError(ErrorCode::kUnavailable, "no MCP server in these tests");
  }
};

constexpr const char* kAgentConfig = R"({
  "name": "Bot",
  "instructions": "Answer briefly.",
  "model": {"provider": "fake", "name": "m1", "max_output_tokens": 100},
  "tools": [{"type": "http", "name": "lookup", "description": "Looks an order up",
             "parameters": {"type": "object"}, "url": "http://tools.test/lookup",
             "method": "POST"}],
  "safety": {"block_patterns": ["(?i)internal only"], "placeholder": "withheld"}
})";

class InvokeAgentTest : public ::testing::Test {
 protected:
  // The blocking pool's threads end before the event loop does: a store call still running (a run
  // worker's look) then never completes onto a destroyed loop. Nor does a commit or a run's write
  // still queued: its writer hands its caller the result on the loop, so that is waited for (the
  // loop is not run: what it holds then is destroyed with it, unrun, as the test left it).
  void TearDown() override {
    pool_.join();
    const auto until = std::chrono::steady_clock::now() + std::chrono::seconds(10);
    while (committer_.unfinished() > 0 && std::chrono::steady_clock::now() < until) {
      std::this_thread::yield();
    }
  }

  void SetUp() override {
    log::SetEnabled(false);
    DeclareAgentgateMetrics(metrics_);
    ASSERT_TRUE(store_->CreateOrg(OrgRecord{"acme", "Acme", std::nullopt, 1}));
    ASSERT_TRUE(store_->CreateEnvironment("acme", "prod"));
    ASSERT_TRUE(store_->CreateAgent(AgentVersionRecord{"acme", "bot", 1, kAgentConfig, 1}));
    ASSERT_TRUE(store_->SetDeployment("acme", "bot", "prod", 1));
    ASSERT_TRUE(store_->CreateToken(TokenRecord{"tok", "acme", "backend", "hash", {}, 1, false}));
    ASSERT_TRUE(store_->PutGrant("acme", "tok", "bot", {"chat"}));
  }

  Result<InvokeResult> Invoke(const InvokeRequest& request) {
    return std::get<Result<InvokeResult>>(Call(request, std::nullopt, ""));
  }

  // What a call gets: the stored answer of the call that used its key first, or its turn's.
  using CallAnswer = std::variant<StoredResponse, Result<InvokeResult>>;

  // A call as every way in makes it: admitted (its key claimed), then its turn.
  CallAnswer Call(const InvokeRequest& request, const std::optional<std::string>& key,
                  const std::string& fingerprint, TurnObserver* observer = nullptr) {
    const std::string agent = "bot";
    const InvokeCall call{caller_, agent, request, key, fingerprint, answer_, nullptr, observer};
    CallAnswer answer = Result<InvokeResult>(Error(ErrorCode::kInternal, "not answered"));
    RunAsync(io_, [&]() -> asio::awaitable<void> {
      auto admission = co_await invoke_.AdmitCall(call);
      if (auto* refusal = std::get_if<Refusal>(&admission)) {
        answer = Result<InvokeResult>(*refusal);
      } else if (auto* replay = std::get_if<StoredResponse>(&admission)) {
        answer = std::move(*replay);
      } else {
        answer = co_await invoke_.Invoke(std::get<InvokeCommand>(admission));
      }
    }());
    return answer;
  }

  static InvokeRequest Asking(std::string message, bool stateful = false) {
    InvokeRequest request;
    request.message = std::move(message);
    request.stateful = stateful;
    return request;
  }

  SqliteBackend backend_;
  std::unique_ptr<Store> store_ = backend_.Open();
  asio::thread_pool pool_{2};
  StoreRunner runner_{*store_, pool_};
  ManualClock clock_{kNov26};
  Metrics metrics_;
  TenantDirectory tenants_{runner_, clock_};
  ServerLease lease_{runner_, clock_};
  SpendLedger spend_{runner_, {}, &lease_};
  AgentCatalog catalog_{runner_, tenants_};
  ConversationQueue conversations_;
  TurnInterrupts interrupts_;
  FakeHttp http_;
  NoMcp mcp_caller_;
  MetadataGateway gateway_{
      runner_, tenants_, http_, std::nullopt, clock_, metrics_, GatewayOptions{5s, false}};
  ToolHeaders tool_headers_{&runner_, std::nullopt};
  McpToolbox mcp_{mcp_caller_, tool_headers_, clock_};
  ToolRunner tools_{runner_, http_, clock_, gateway_, mcp_, tool_headers_};
  TurnCommitter committer_{*store_, 1, 16};
  Idempotency idempotency_{runner_, lease_, clock_, metrics_, 120s};
  ScriptedModel model_;
  ProviderPools providers_ = [this] {
    ProviderPools pools;
    pools.Add(std::make_unique<ProviderPool>("fake", std::vector<ModelClient*>{&model_},
                                             fallback::BreakerLimits{}, clock_, nullptr));
    return pools;
  }();
  InvokeAgent invoke_{InvokeDeps{runner_,
                                 tenants_,
                                 committer_,
                                 spend_,
                                 catalog_,
                                 conversations_,
                                 interrupts_,
                                 tools_,
                                 mcp_,
                                 idempotency_,
                                 lease_,
                                 providers_,
                                 {{"fake/m1", Price{1000.0, 2000.0}}},
                                 clock_,
                                 metrics_,
                                 TurnTiming{100s, 120s}}};
  const Caller caller_{"acme", "prod", "tok"};
  const AnswerRenderer answer_ = [](const InvokeResult& result) {
    return StoredResponse{200, "{\"response\":\"" + result.response + "\"}"};
  };
  asio::io_context io_;
};

}  // namespace agentgate::testing
