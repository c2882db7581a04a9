// InvokeAgent run directly (app_fixture.hpp). Each test states one rule of a turn (SPEC §5) at the
// level of the use case.
#include "app/app_fixture.hpp"

#include <boost/asio/co_spawn.hpp>
#include <boost/asio/detached.hpp>
#include <boost/json/parse.hpp>

namespace agentgate::testing {

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

TEST_F(InvokeAgentTest, ATurnContinuingFromAReplyRunsOnlyWhileThatReplyIsTheConversationsLast) {
  // A Responses call's previous_response_id (docs/openai.md): looked at once the turn holds its
  // place on the conversation, so of two calls continuing from one reply only the first runs.
  model_.script.push_back([](const ModelRequest&) { return Reply("Noted."); });
  const auto first = Invoke(Asking("I ordered A-1.", /*stateful=*/true));
  ASSERT_TRUE(first) << first.error().message;
  ASSERT_TRUE(first->conversation_id);
  auto next = Asking("When does it ship?", true);
  next.conversation_id = first->conversation_id;
  next.after_turn_id = first->turn_id;
  model_.script.push_back([](const ModelRequest&) { return Reply("Today."); });
  const auto second = Invoke(next);
  ASSERT_TRUE(second) << second.error().message;
  EXPECT_EQ(store_->LastMessageTurn(*first->conversation_id).value(), second->turn_id);
  // The same continuation again: the conversation has moved on, and no model is called.
  const auto calls = model_.seen.size();
  const auto stale = Invoke(next);
  ASSERT_FALSE(stale);
  EXPECT_EQ(stale.error().code, ErrorCode::kResponseNotLatest);
  EXPECT_EQ(stale.error().field(), "previous_response_id");
  EXPECT_EQ(model_.seen.size(), calls);
  EXPECT_EQ(store_->LoadMessages(*first->conversation_id).value().size(), 4u);
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

TEST_F(InvokeAgentTest, ATurnWhoseCallsAllFailedBeforeTheLimitWasMetIsRefusedWith402) {
  // The first call fails; meanwhile the organization's limit is met (set to 0, this server's
  // leases retired as the admin API retires them): the retry cannot reserve, and the turn has
  // nothing to answer with.
  model_.script.push_back([this](const ModelRequest&) {
    EXPECT_TRUE(store_->SetOrgSpendLimit("acme", 0.0));
    spend_.ForgetOrg("acme");
    return ModelFailure{ModelFailure::Kind::kTransient, "overloaded", {}};
  });
  const auto result = Invoke(Asking("Where is order 42?"));
  ASSERT_FALSE(result);
  EXPECT_EQ(result.error().code, ErrorCode::kSpendLimitReached);
  EXPECT_EQ(model_.seen.size(), 1u);  // the retry was never made
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

// Admission is one step for every way in: a refusal in the contract's terms (its code, and the
// field at fault when there is one), the stored answer to replay, or the turn's command.
TEST_F(InvokeAgentTest, AdmissionAnswersARefusalAReplayOrTheTurnsCommand) {
  const auto admit = [&](const std::string& agent, const std::optional<std::string>& key,
                         const std::string& fingerprint) {
    const InvokeRequest request = Asking("Hi");
    const InvokeCall call{caller_, agent, request, key, fingerprint, answer_, nullptr};
    auto admission = RunAsync(io_, invoke_.AdmitCall(call));
    // The admitted command refers to the request, which goes now: keep only what it decided.
    if (auto* command = std::get_if<InvokeCommand>(&admission)) {
      EXPECT_EQ(command->agent_id, agent);
      EXPECT_EQ(command->caller.token_id, caller_.token_id);  // its own copies
      return Admission(Refusal(ErrorCode::kInternal, "admitted"));
    }
    return admission;
  };
  const auto refusal = [](const Admission& admission) {
    return std::holds_alternative<Refusal>(admission) ? std::get<Refusal>(admission).code
                                                      : ErrorCode::kInternal;
  };
  EXPECT_EQ(refusal(admit("nobody", std::nullopt, "")), ErrorCode::kAgentNotFound);
  EXPECT_EQ(std::get<Refusal>(admit("bot", std::nullopt, "")).message, "admitted");
  // A claimed key whose turn never ran is in use for the same request, and refused for another.
  const std::optional<std::string> key = "k-1";
  EXPECT_EQ(std::get<Refusal>(admit("bot", key, "fp-1")).message, "admitted");
  EXPECT_EQ(refusal(admit("bot", key, "fp-1")), ErrorCode::kIdempotencyKeyInUse);
  EXPECT_EQ(refusal(admit("bot", key, "fp-2")), ErrorCode::kIdempotencyKeyReused);

  // A refusal names the field at fault, when there is one, for a way in whose error shape has a
  // place for it.
  EXPECT_EQ(InvalidField("message", "must be a string").field(), "message");
  EXPECT_EQ(InvalidField("tool_calls[0].id", "must be a string").field(), "tool_calls[0].id");
  EXPECT_EQ(Error(ErrorCode::kAgentNotFound, "agent 'x' not found").field(), std::nullopt);
  EXPECT_EQ(Error(ErrorCode::kInvalidRequest, "field '': odd").field(), std::nullopt);
}

// Cancels the turn once `model` was called past `calls_before` times. A function, not a lambda:
// the spawned coroutine outlives the statement that spawns it.
asio::awaitable<void> CancelOnceCalled(ScriptedModel& model, std::size_t calls_before,
                                       std::shared_ptr<TurnCancel> cancel) {
  asio::steady_timer tick(co_await asio::this_coro::executor);
  while (model.seen.size() == calls_before) {
    tick.expires_after(2ms);
    co_await tick.async_wait(asio::use_awaitable);
  }
  cancel->Cancel();
}

// A model call its turn stopped (the caller gone, the run canceled, the hard cap) says nothing of
// the provider key it used: only the provider's own failures count toward the key's breaker,
// which every tenant's turns share (issue 57 §3).
TEST_F(InvokeAgentTest, ACanceledModelCallIsNotItsKeysFailure) {
  ProviderPool& pool = *providers_.Find("fake");
  const std::string agent = "bot";
  const std::optional<std::string> no_key;
  const InvokeRequest request = Asking("Hi");
  model_.thinking = 10s;  // until canceled
  for (int turn = 0; turn < 6; ++turn) {
    model_.script.push_back([](const ModelRequest&) { return Reply("Never shown."); });
    auto cancel = std::make_shared<TurnCancel>(io_.get_executor());
    const InvokeCall call{caller_, agent, request, no_key, "", answer_, cancel};
    Result<InvokeResult> result = Error(ErrorCode::kInternal, "not answered");
    const std::size_t calls_before = model_.seen.size();
    RunAsync(io_, [&]() -> asio::awaitable<void> {
      // Canceled once its model call is under way, as a caller that hangs up mid-turn.
      asio::co_spawn(io_, CancelOnceCalled(model_, calls_before, cancel), asio::detached);
      auto admission = co_await invoke_.AdmitCall(call);
      result = co_await invoke_.Invoke(std::get<InvokeCommand>(admission));
    }());
    ASSERT_EQ(model_.seen.size(), calls_before + 1);  // the model was called, once
    ASSERT_FALSE(result);
    EXPECT_EQ(result.error().code, ErrorCode::kCanceled);
  }
  EXPECT_TRUE(pool.HasUsable(0));  // six canceled calls: still closed

  // The provider's own refusals do count: five in a row open the key.
  model_.thinking = 0ms;
  for (int turn = 0; turn < 5; ++turn) {
    model_.script.push_back([](const ModelRequest&) {
      return ModelFailure{ModelFailure::Kind::kRefused, "invalid_api_key", {}};
    });
    const auto refused = Invoke(request);
    ASSERT_TRUE(refused) << refused.error().message;
    EXPECT_EQ(refused->stop_reason, StopReason::kProviderError);
  }
  EXPECT_FALSE(pool.HasUsable(0));
}

// A follower that watches the reply form, as a run's recorder does.
class Watcher final : public TurnObserver {
 public:
  void Report(RunEvent event) override { events.push_back(std::move(event)); }
  bool FollowsText() const override { return true; }
  std::string Text(std::string_view type = "text.delta") const {
    std::string out;
    for (const auto& e : events) {
      if (e.type == type) out += e.data;
    }
    return out;
  }
  std::vector<RunEvent> events;
};

TEST_F(InvokeAgentTest, AWatchedTurnStreamsItsReplyAndAPlainOneDoesNot) {
  const std::string reply =
      "Order 42 left the warehouse on Monday and is with the carrier now; it should reach you "
      "by Thursday at the latest, and I will tell you if that changes.";
  model_.stream_piece = 3;
  model_.script.push_back([&](const ModelRequest&) { return Reply(reply); });
  Watcher watcher;
  const auto result =
      std::get<Result<InvokeResult>>(Call(Asking("Where is order 42?"), {}, "", &watcher));
  ASSERT_TRUE(result) << result.error().message;
  EXPECT_EQ(result->response, reply);
  EXPECT_EQ(model_.streamed_calls, 1);
  std::vector<std::string> pieces;
  for (const auto& e : watcher.events) {
    if (e.type == "text.delta") {
      pieces.emplace_back(boost::json::parse(e.data).at("text").as_string());
    }
  }
  ASSERT_GE(pieces.size(), 2u);  // released while the model wrote, then the rest
  std::string joined;
  for (const auto& p : pieces) joined += p;
  EXPECT_EQ(joined, reply);

  model_.script.push_back([&](const ModelRequest&) { return Reply(reply); });
  ASSERT_TRUE(Invoke(Asking("Again?")));
  EXPECT_EQ(model_.streamed_calls, 1);  // nobody watched: the model was not asked to stream
}

TEST_F(InvokeAgentTest, AWatchedReplyThatTheVerdictWithholdsIsTakenBack) {
  const std::string reply =
      "Here is everything I could find about the account and its renewal this quarter, as "
      "asked. Internal only: the pricing floor is 40 percent and nobody outside may know it.";
  model_.stream_piece = 2;
  model_.script.push_back([&](const ModelRequest&) { return Reply(reply); });
  Watcher watcher;
  const auto result =
      std::get<Result<InvokeResult>>(Call(Asking("Tell me a secret"), {}, "", &watcher));
  ASSERT_TRUE(result) << result.error().message;
  EXPECT_TRUE(result->blocked);
  EXPECT_EQ(result->response, "withheld");
  const std::string shown = watcher.Text();
  EXPECT_FALSE(shown.empty());  // the text before the match streamed
  EXPECT_EQ(shown.find("Internal"), std::string::npos);
  EXPECT_EQ(watcher.Text("text.retracted"), R"({"reason":"blocked"})");
  EXPECT_EQ(watcher.events.back().type, "text.retracted");
}

}  // namespace agentgate::testing

namespace agentgate::testing {

// A call that needs approval and whose arguments the safety policy blocks ends the turn blocked:
// nothing is offered for approval, no tool runs, and nothing of the arguments is answered or
// stored.
TEST_F(InvokeAgentTest, ACallAwaitingApprovalWhoseArgumentsThePolicyBlocksEndsTheTurnBlocked) {
  ASSERT_TRUE(store_->AddAgentVersion("acme", "bot", R"({
    "name": "Bot", "model": {"provider": "fake", "name": "m1", "max_output_tokens": 100},
    "tools": [{"type": "http", "name": "refund", "description": "Refunds",
               "parameters": {"type": "object"}, "url": "http://tools.test/refund",
               "method": "POST", "approval": "always"}],
    "safety": {"detect": ["credit_card"], "placeholder": "withheld"}})",
                                      2));
  ASSERT_TRUE(store_->SetDeployment("acme", "bot", "prod", 2));
  model_.script.push_back([](const ModelRequest&) {
    return CallsTool("refund", R"({"card":"4111 1111 1111 1111","amount":10})");
  });
  const auto result = Invoke(Asking("Refund my card 4111 1111 1111 1111", /*stateful=*/true));
  ASSERT_TRUE(result) << result.error().message;
  EXPECT_TRUE(result->blocked);
  EXPECT_EQ(result->response, "withheld");
  EXPECT_EQ(result->stop_reason, std::nullopt);
  EXPECT_TRUE(result->pending_actions.empty());
  EXPECT_TRUE(result->run_id.empty());
  EXPECT_TRUE(http_.sent.empty());
  EXPECT_EQ(model_.seen.size(), 1u);
  const auto turn = store_->GetTurn(result->turn_id).value();
  ASSERT_TRUE(turn);
  EXPECT_EQ(turn->transcript_json.find("4111 1111 1111 1111\",\"amount"), std::string::npos);
  EXPECT_NE(turn->transcript_json.find("arguments of a call that needed approval"),
            std::string::npos)
      << turn->transcript_json;
  const auto messages = store_->LoadMessages(*result->conversation_id).value();
  ASSERT_EQ(messages.size(), 2u);
  EXPECT_EQ(messages[1].content, "withheld");
}

// A call whose arguments the policy blocks but that needs no approval runs as before: the policy
// judges what is answered (docs/daemon.md "Safety").
TEST_F(InvokeAgentTest, ACallThatNeedsNoApprovalRunsWhateverItsArguments) {
  ASSERT_TRUE(store_->AddAgentVersion("acme", "bot", R"({
    "name": "Bot", "model": {"provider": "fake", "name": "m1", "max_output_tokens": 100},
    "tools": [{"type": "http", "name": "lookup", "description": "Looks up",
               "parameters": {"type": "object"}, "url": "http://tools.test/lookup",
               "method": "POST"}],
    "safety": {"detect": ["credit_card"], "placeholder": "withheld"}})",
                                      2));
  ASSERT_TRUE(store_->SetDeployment("acme", "bot", "prod", 2));
  model_.script.push_back(
      [](const ModelRequest&) { return CallsTool("lookup", R"({"card":"4111 1111 1111 1111"})"); });
  model_.script.push_back([](const ModelRequest&) { return Reply("Found it."); });
  const auto result = Invoke(Asking("Look my card up"));
  ASSERT_TRUE(result) << result.error().message;
  EXPECT_FALSE(result->blocked);
  EXPECT_EQ(result->response, "Found it.");
  EXPECT_EQ(http_.sent, std::vector<std::string>{"http://tools.test/lookup"});
}

}  // namespace agentgate::testing
