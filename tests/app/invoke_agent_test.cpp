// InvokeAgent run directly: in-process fakes of its model, HTTP and MCP ports and of the clock,
// with a real SQLite store (the embedded store is a file; nothing of the store is faked). Each test
// states one rule of a turn (SPEC §5) at the level of the use case.
#include "app/invoke_agent.hpp"
#include "app/metadata_gateway.hpp"
#include "observability/log.hpp"
#include "store/store_backends.hpp"
#include "support/manual_clock.hpp"
#include "support/run_async.hpp"

#include <gtest/gtest.h>
#include <boost/asio/thread_pool.hpp>

#include <deque>
#include <functional>
#include <mutex>

namespace agentgate::testing {
namespace {

namespace asio = boost::asio;
using namespace std::chrono_literals;

constexpr std::int64_t kNov26 = 1795651200000;  // 2026-11-26T00:00:00Z

// A model that answers from a script, one step per call, and keeps every request it was sent.
class ScriptedModel final : public ModelClient {
 public:
  using Step = std::function<ModelResult(const ModelRequest&)>;

  asio::awaitable<ModelResult> Complete(const ModelRequest& request,
                                        std::chrono::milliseconds) override {
    std::lock_guard lock(mutex_);
    seen.push_back(request);
    if (script.empty()) co_return ModelFailure{ModelFailure::Kind::kRejected, "no step left", {}};
    Step step = std::move(script.front());
    script.pop_front();
    co_return step(request);
  }

  std::deque<Step> script;
  std::vector<ModelRequest> seen;

 private:
  std::mutex mutex_;
};

ModelResult Reply(std::string text, std::int64_t input = 1000, std::int64_t output = 500) {
  return ModelReply{std::move(text), {}, TokenUsage{input, output}};
}

ModelResult CallsTool(std::string name, std::string arguments = "{}") {
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

  InvokeAnswer Call(const InvokeRequest& request, const std::optional<std::string>& key,
                    const std::string& fingerprint) {
    const std::string agent = "bot";
    const InvokeCall call{caller_, agent, request, key, fingerprint, answer_, nullptr};
    InvokeAnswer answer = Result<InvokeResult>(Error(ErrorCode::kInternal, "not answered"));
    RunAsync(io_, invoke_.Call(call, answer));
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
  InvokeAgent invoke_{InvokeDeps{runner_,
                                 tenants_,
                                 committer_,
                                 spend_,
                                 catalog_,
                                 conversations_,
                                 tools_,
                                 mcp_,
                                 idempotency_,
                                 lease_,
                                 {{"fake", &model_}},
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

}  // namespace

TEST_F(InvokeAgentTest, ATurnPastItsSoftDeadlineAnswersWithWhatItHasAndRunsNoMoreTools) {
  model_.script.push_back([&](const ModelRequest&) {
    clock_.Advance(101s);  // the model took longer than answer_early
    return CallsTool("lookup");
  });
  const auto result = Invoke(Asking("Where is order 42?"));
  ASSERT_TRUE(result) << result.error().message;
  EXPECT_EQ(result->stop_reason, StopReason::kTurnTimeout);
  EXPECT_EQ(result->model_calls, 1);
  EXPECT_TRUE(http_.sent.empty());  // the tool the model asked for never ran
}

TEST_F(InvokeAgentTest, ATransientFailureIsRetriedAndAQuotaRefusalIsNot) {
  model_.script.push_back([](const ModelRequest&) {
    return ModelFailure{ModelFailure::Kind::kTransient, "HTTP 503", {}};
  });
  model_.script.push_back([](const ModelRequest&) { return Reply("Order 42 ships today."); });
  auto result = Invoke(Asking("Where is order 42?"));
  ASSERT_TRUE(result) << result.error().message;
  EXPECT_EQ(result->stop_reason, std::nullopt);
  EXPECT_EQ(result->response, "Order 42 ships today.");
  EXPECT_EQ(model_.seen.size(), 2u);  // the same request again after the 503
  EXPECT_EQ(result->model_calls, 1);  // usage counts the calls that answered

  model_.script.push_back([](const ModelRequest&) {
    return ModelFailure{ModelFailure::Kind::kRefused, "insufficient_quota", {}};
  });
  result = Invoke(Asking("And order 43?"));
  ASSERT_TRUE(result) << result.error().message;
  EXPECT_EQ(result->stop_reason, StopReason::kProviderError);
  EXPECT_EQ(model_.seen.size(), 3u);  // refused at once, not retried
}

TEST_F(InvokeAgentTest, AThrottleWhoseRetryAfterDoesNotFitTheSoftDeadlineIsAProviderError) {
  model_.script.push_back([](const ModelRequest&) {
    return ModelFailure{ModelFailure::Kind::kThrottled, "rate_limit_exceeded", 200s};
  });
  const auto result = Invoke(Asking("Where is order 42?"));
  ASSERT_TRUE(result) << result.error().message;
  EXPECT_EQ(result->stop_reason, StopReason::kProviderError);
  EXPECT_EQ(model_.seen.size(), 1u);
}

TEST_F(InvokeAgentTest, EachCallIsReservedThenSettledAtItsRealCost) {
  model_.script.push_back([](const ModelRequest&) { return Reply("Done.", 1000, 500); });
  const auto result = Invoke(Asking("Where is order 42?"));
  ASSERT_TRUE(result) << result.error().message;
  // 1,000 input tokens at 1,000 USD/M and 500 output at 2,000 USD/M.
  EXPECT_DOUBLE_EQ(result->cost_usd, 2.0);
  const auto usage = store_->GetUsage("acme", "2026-11").value();
  ASSERT_EQ(usage.size(), 1u);
  EXPECT_DOUBLE_EQ(usage[0].spent_usd, 2.0);
  EXPECT_EQ(usage[0].input_tokens, 1000);
  EXPECT_EQ(usage[0].model_calls, 1);
}

TEST_F(InvokeAgentTest, ATurnThatCannotReserveItsFirstCallIsRefusedAndCallsNoModel) {
  ASSERT_TRUE(store_->SetOrgSpendLimit("acme", 0.0));
  const auto result = Invoke(Asking("Where is order 42?"));
  ASSERT_FALSE(result);
  EXPECT_EQ(result.error().code, ErrorCode::kSpendLimitReached);
  EXPECT_TRUE(model_.seen.empty());
  EXPECT_TRUE(store_->GetUsage("acme", "2026-11").value().empty());  // nothing reserved or spent
}

TEST_F(InvokeAgentTest, AFailedToolIsToldToTheModelAndTheTurnGoesOn) {
  model_.script.push_back([](const ModelRequest&) { return CallsTool("lookup", "{\"id\":42}"); });
  model_.script.push_back([](const ModelRequest& request) {
    const ChatMessage& told = request.messages.back();
    EXPECT_EQ(told.role, Role::kTool);
    EXPECT_EQ(told.tool_call_id, "call-1");
    EXPECT_EQ(told.content.rfind("error: ", 0), 0u) << told.content;
    return Reply("The order system is down; try again later.");
  });
  const auto result = Invoke(Asking("Where is order 42?"));
  ASSERT_TRUE(result) << result.error().message;
  EXPECT_EQ(result->stop_reason, std::nullopt);
  EXPECT_EQ(http_.sent, std::vector<std::string>{"http://tools.test/lookup"});
  EXPECT_EQ(model_.seen.size(), 2u);
}

TEST_F(InvokeAgentTest, ABlockedReplyIsAnsweredAndStoredOnlyAsThePlaceholder) {
  model_.script.push_back([](const ModelRequest&) { return Reply("Internal only: the key is X"); });
  const auto result = Invoke(Asking("Tell me a secret", /*stateful=*/true));
  ASSERT_TRUE(result) << result.error().message;
  EXPECT_TRUE(result->blocked);
  EXPECT_EQ(result->response, "withheld");
  ASSERT_TRUE(result->conversation_id);
  const auto messages = store_->LoadMessages(*result->conversation_id).value();
  ASSERT_EQ(messages.size(), 2u);
  EXPECT_EQ(messages[1].content, "withheld");
  const auto turn = store_->GetTurn(result->turn_id).value();
  ASSERT_TRUE(turn);
  EXPECT_EQ(turn->transcript_json.find("the key is X"), std::string::npos);
}

TEST_F(InvokeAgentTest, AKeyReplaysItsCommittedAnswerAndIsReleasedByATurnThatFailed) {
  model_.script.push_back([](const ModelRequest&) { return Reply("First."); });
  const std::optional<std::string> key = "order-42";
  auto first = Call(Asking("Where is order 42?"), key, "fp-1");
  ASSERT_TRUE(std::get<Result<InvokeResult>>(first));
  auto again = Call(Asking("Where is order 42?"), key, "fp-1");
  ASSERT_TRUE(std::holds_alternative<StoredResponse>(again));
  EXPECT_EQ(std::get<StoredResponse>(again).body, "{\"response\":\"First.\"}");
  auto other = Call(Asking("Something else"), key, "fp-2");
  EXPECT_EQ(std::get<Result<InvokeResult>>(other).error().code, ErrorCode::kIdempotencyKeyReused);
  EXPECT_EQ(model_.seen.size(), 1u);  // one turn ran

  // A call refused after its claim (its conversation is unknown: 404) stores no answer, and its
  // key is free at once: the retry runs again instead of finding the key in use (409).
  InvokeRequest unknown = Asking("Where is order 43?", /*stateful=*/true);
  unknown.conversation_id = "conv_unknown";
  const std::optional<std::string> second_key = "order-43";
  for (int attempt = 0; attempt < 2; ++attempt) {
    auto refused = Call(unknown, second_key, "fp-3");
    EXPECT_EQ(std::get<Result<InvokeResult>>(refused).error().code,
              ErrorCode::kConversationNotFound);
  }
}

}  // namespace agentgate::testing
