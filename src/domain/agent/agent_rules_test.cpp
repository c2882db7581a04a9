// Safety, prompt assembly, resource search, retries and request parsing.
#include "domain/agent/history_summary.hpp"
#include "domain/agent/invoke_request.hpp"
#include "domain/agent/memory_recall.hpp"
#include "domain/agent/prompt.hpp"
#include "domain/agent/resource_search.hpp"
#include "domain/agent/retry_policy.hpp"
#include "domain/agent/safety.hpp"

#include <gtest/gtest.h>
#include <boost/json/parse.hpp>
#include <boost/json/serialize.hpp>

namespace agentgate {
namespace {

using namespace std::chrono_literals;

AgentConfig Config(const std::string& json) {
  return ParseAgentConfig(boost::json::parse(json)).value();
}

}  // namespace

TEST(Safety, CardNumbersMustPassLuhn) {
  EXPECT_TRUE(ContainsCardNumber("card 4111 1111 1111 1111 ok"));
  EXPECT_TRUE(ContainsCardNumber("4111-1111-1111-1111"));
  EXPECT_TRUE(ContainsCardNumber("5500005555555559"));
  EXPECT_FALSE(ContainsCardNumber("4111 1111 1111 1112"));
  EXPECT_FALSE(ContainsCardNumber("call 555-1234"));
  EXPECT_FALSE(ContainsCardNumber("order 2026-11-21"));
  EXPECT_TRUE(ContainsCardNumber("ref0004111111111111111"));  // hidden in a longer run
}

TEST(Safety, SecretShapes) {
  EXPECT_TRUE(ContainsSecret("key: sk-proj-abcdefghijklmnopqrstuvwxyz123456"));
  EXPECT_TRUE(ContainsSecret("AKIAIOSFODNN7EXAMPLE"));
  EXPECT_TRUE(ContainsSecret("ghp_" + std::string(36, 'a')));
  EXPECT_TRUE(ContainsSecret("-----BEGIN RSA PRIVATE KEY-----"));
  EXPECT_FALSE(ContainsSecret("the sky is blue"));
  EXPECT_FALSE(ContainsSecret("sk-short"));
}

TEST(Safety, PatternsAndDetectorsFollowThePolicy) {
  SafetyPolicy policy;
  policy.block_patterns = {"(?i)internal only"};
  policy.detect_credit_card = true;
  SafetyChecker checker(policy);
  EXPECT_TRUE(checker.Blocks("This is INTERNAL ONLY material"));
  EXPECT_TRUE(checker.Blocks("pay with 4111111111111111"));
  EXPECT_FALSE(checker.Blocks("sk-proj-abcdefghijklmnopqrstuvwxyz123456"));  // secret detector off
  EXPECT_FALSE(checker.Blocks("hello"));
  // RE2 is linear: a pattern that backtracks catastrophically elsewhere is fine here.
  SafetyPolicy hostile;
  hostile.block_patterns = {"(a+)+$"};
  EXPECT_FALSE(SafetyChecker(hostile).Blocks(std::string(100000, 'a') + "!"));
}

TEST(Safety, ChecksFromAnOffsetFindEveryMatchStartingThereWithWhatComesBeforeAsContext) {
  SafetyPolicy policy;
  policy.block_patterns = {R"(\bproject alpha\b)", "secret.*plan"};
  policy.detect_credit_card = true;
  policy.detect_secret = true;
  const SafetyChecker checker(policy);
  // Each kind, starting exactly at the offset.
  EXPECT_TRUE(checker.BlocksFrom("see project alpha", 4));
  EXPECT_TRUE(checker.BlocksFrom("key sk-proj-ABCDEFGHIJKLMNOPQRSTUVWX", 4));
  EXPECT_TRUE(checker.BlocksFrom("pay 4111 1111 1111 1111", 4));
  // A pattern's word boundary is read with the text before the offset: no match in "xproject".
  EXPECT_FALSE(checker.BlocksFrom("xproject alpha", 1));
  // A run of digits is read whole, not from the offset in it: its tail alone passes the Luhn
  // check, the whole run does not.
  EXPECT_TRUE(ContainsCardNumber("4111111111111111"));
  EXPECT_FALSE(ContainsCardNumber("14111111111111111"));
  EXPECT_FALSE(checker.BlocksFrom("14111111111111111", 1));
  // A pattern with no bound of its own is read whole, wherever the offset.
  EXPECT_TRUE(checker.BlocksFrom("the secret of the long plan", 20));
  EXPECT_FALSE(checker.BlocksFrom("nothing here", 5));
}

TEST(Safety, ArgumentsAreCheckedAsTheyAreShownNotAsEscaped) {
  SafetyPolicy policy;
  policy.block_patterns = {"(?i)internal only", "(?m)^DROP TABLE"};
  policy.detect_credit_card = true;
  policy.detect_secret = true;
  const SafetyChecker checker(policy);
  // Each hides its match behind a JSON escape the raw text does not show.
  const std::string escaped_secret = R"({"text":"\u0041KIAIOSFODNN7EXAMPLE"})";
  const std::string escaped_card = R"({"card":"4111\u00201111\u00201111\u00201111"})";
  const std::string escaped_pattern = R"({"note":"internal\u0020only"})";
  const std::string newline_pattern = R"({"sql":"select 1;\nDROP TABLE users"})";
  for (const auto& raw : {escaped_secret, escaped_card, escaped_pattern, newline_pattern}) {
    EXPECT_FALSE(checker.Blocks(raw)) << raw;  // what the old check saw
    EXPECT_TRUE(checker.BlocksArguments(raw)) << raw;
  }
  EXPECT_TRUE(checker.BlocksArguments(R"({"card":4111111111111111})"));        // a card as a number
  EXPECT_TRUE(checker.BlocksArguments(R"({"\u0041KIAIOSFODNN7EXAMPLE":1})"));  // in a key
  EXPECT_TRUE(checker.BlocksArguments("not json: internal only"));
  EXPECT_FALSE(checker.BlocksArguments(R"({"order":"A-1","amount":12.5,"ok":true,"n":null})"));
}

TEST(Safety, ShownArgumentsAreTheDecodedJsonOneValueALine) {
  EXPECT_EQ(ShownArgumentsText(R"({"a":"x\u0020y","b":[1,2.5,{"c":"\n"}],"d":true})"),
            "a\nx y\nb\n1\n2.5E0\nc\n\n\nd");
  EXPECT_EQ(ShownArgumentsText("{broken"), "{broken");
  EXPECT_EQ(ShownArguments(R"({"text": "\u0041KIA"})"), R"({"text":"AKIA"})");
  EXPECT_EQ(ShownArguments("{broken"), "{broken");
}

TEST(Prompt, FollowsTheContractOrderAndKeepsHistoryAsTurns) {
  const auto config =
      Config(R"({"name": "n", "instructions": "VERSION", "model": {"provider": "p", "name": "m"},
    "memory": "shared", "resources": [{"id": "faq", "title": "FAQ", "text": "x"}],
    "actions": [{"name": "create_case", "description": "d"}]})");
  PromptInputs in;
  in.instance_instructions = "INSTANCE";
  in.additional_instructions = "ADDITIONAL";
  in.host_context = boost::json::parse(R"({"account":"A1"})");
  in.memories = {"likes tea"};
  in.history = {{Role::kUser, "earlier question", {}, "", ""},
                {Role::kAssistant, "earlier answer", {}, "", ""}};
  in.message = "now";
  const auto prompt = AssemblePrompt(config, in);
  const auto& s = prompt.request.system;
  const auto at = [&](const char* needle) { return s.find(needle); };
  ASSERT_NE(at("VERSION"), std::string::npos);
  EXPECT_LT(at("VERSION"), at("INSTANCE"));
  EXPECT_LT(at("INSTANCE"), at("ADDITIONAL"));
  EXPECT_LT(at("ADDITIONAL"), at("{\"account\":\"A1\"}"));
  EXPECT_LT(at("{\"account\":\"A1\"}"), at("likes tea"));
  // What the turn's record keeps: everything but this call's own additions (SPEC §5).
  const auto& kept = prompt.recorded_system;
  EXPECT_NE(kept.find("VERSION"), std::string::npos);
  EXPECT_NE(kept.find("INSTANCE"), std::string::npos);
  EXPECT_NE(kept.find("likes tea"), std::string::npos);
  EXPECT_EQ(kept.find("ADDITIONAL"), std::string::npos);
  EXPECT_EQ(kept.find("A1"), std::string::npos);
  EXPECT_EQ(prompt.history_messages_sent, 2u);
  ASSERT_EQ(prompt.request.messages.size(), 3u);
  EXPECT_EQ(prompt.request.messages[0].content, "earlier question");
  EXPECT_EQ(prompt.request.messages[1].role, Role::kAssistant);
  EXPECT_EQ(prompt.request.messages[2].content, "now");
  std::vector<std::string> tools;
  for (const auto& t : prompt.request.tools) tools.push_back(t.name);
  EXPECT_EQ(tools, (std::vector<std::string>{"search_resources", "remember", "create_case"}));
  EXPECT_TRUE(prompt.action_names.contains("create_case"));
}

// A turn's prompt counts each tool's schema once; every later estimate of its request (each model
// call reserves by one) reads that count and comes to the same total as counting afresh.
TEST(Prompt, EachSchemaIsCountedOnceAndEstimatesAgreeWithCountingAfresh) {
  const auto config = Config(R"({"name": "n", "model": {"provider": "p", "name": "m"},
    "tools": [{"type": "http", "name": "lookup", "description": "Look up",
               "parameters": {"type": "object", "properties": {"q": {"type": "string"}}},
               "url": "https://tools.example/lookup", "method": "POST"}, {"type": "crm_metadata"}]})");
  PromptInputs in;
  in.message = "hello";
  const auto prompt = AssemblePrompt(config, in);
  ASSERT_EQ(prompt.request.tools.size(), 2u);
  ModelRequest afresh = prompt.request;
  for (auto& t : afresh.tools) {
    EXPECT_EQ(t.schema_tokens, EstimateTokens(boost::json::serialize(t.parameters))) << t.name;
    t.schema_tokens = -1;
  }
  EXPECT_EQ(EstimateTokens(prompt.request), EstimateTokens(afresh));
}

TEST(Prompt, TheCrmMetadataToolOffersOnlyTheAllowedMethods) {
  const auto methods_offered = [](const std::string& tool) {
    const auto config = Config(R"({"name": "n", "model": {"provider": "p", "name": "m"},
      "tools": [)" + tool + "]}");
    const auto offered = OfferedTools(config);
    EXPECT_EQ(offered.size(), 1u);
    return boost::json::serialize(
        offered.at(0).parameters.at("properties").at("method").at("enum"));
  };
  EXPECT_EQ(methods_offered(R"({"type": "crm_metadata"})"), R"(["GET"])");
  EXPECT_EQ(methods_offered(R"({"type": "crm_metadata", "methods": ["GET", "PATCH"]})"),
            R"(["GET","PATCH"])");
}

// The store reads the history's tail up to HistoryBudgetOf's bounds; the window built from that
// tail is the one built from the whole history, for messages of every size, empty ones included.
TEST(Prompt, TheHistoryBudgetHoldsEveryMessageTheWindowCouldKeep) {
  const auto config =
      Config(R"({"name": "n", "model": {"provider": "p", "name": "m", "context_tokens": 2000,
    "max_output_tokens": 300}})");
  for (std::size_t size : {0u, 1u, 3u, 40u, 399u, 1500u, 4000u}) {
    PromptInputs whole;
    whole.message = "latest";
    for (int i = 0; i < 300; ++i) {
      whole.history.push_back({i % 2 == 0 ? Role::kUser : Role::kAssistant,
                               std::string(size + static_cast<std::size_t>(i % 7), 'x'),
                               {},
                               "",
                               ""});
    }
    PromptInputs tail = whole;
    const auto budget = HistoryBudgetOf(config);
    std::size_t bytes = 0;
    std::size_t first = whole.history.size();
    while (first > 0 && bytes <= budget.max_bytes &&
           whole.history.size() - first < budget.max_messages) {
      bytes += whole.history[--first].content.size();
    }
    tail.history.erase(tail.history.begin(), tail.history.begin() + static_cast<long>(first));
    const auto from_whole = AssemblePrompt(config, whole);
    const auto from_tail = AssemblePrompt(config, tail);
    ASSERT_EQ(from_whole.history_messages_sent, from_tail.history_messages_sent) << size;
    ASSERT_EQ(from_whole.request.messages.size(), from_tail.request.messages.size()) << size;
    EXPECT_LT(tail.history.size(), whole.history.size()) << size;  // and it is a real cut
  }
}

TEST(Prompt, CutsTheOldestHistoryToFitTheContextBudget) {
  const auto config =
      Config(R"({"name": "n", "model": {"provider": "p", "name": "m", "context_tokens": 1000,
    "max_output_tokens": 200}})");
  PromptInputs in;
  for (int i = 0; i < 20; ++i) {
    in.history.push_back(
        {Role::kUser, "q" + std::to_string(i) + std::string(200, 'x'), {}, "", ""});
    in.history.push_back(
        {Role::kAssistant, "a" + std::to_string(i) + std::string(200, 'y'), {}, "", ""});
  }
  in.message = "latest";
  const auto prompt = AssemblePrompt(config, in);
  EXPECT_GT(prompt.history_messages_dropped, 0u);
  EXPECT_LE(EstimateTokens(prompt.request), 1000 - 200);
  EXPECT_EQ(prompt.request.messages.front().role, Role::kUser);
  EXPECT_EQ(prompt.request.messages[prompt.request.messages.size() - 2].content.substr(0, 3),
            "a19");
  EXPECT_EQ(prompt.request.messages.back().content, "latest");
}

TEST(ResourceSearch, RanksByBm25) {
  std::vector<TrustedResource> resources{
      {"refunds", "Refund policy", "Refunds are issued within 14 days."},
      {"shipping", "Shipping", "We ship worldwide. Shipping takes 3 days."},
      {"about", "About us", "A small company."}};
  ResourceIndex index(resources);
  auto hits = index.Search("How long does shipping take?", 3);
  ASSERT_FALSE(hits.empty());
  EXPECT_EQ(hits[0].resource->id, "shipping");
  EXPECT_EQ(index.Search("refund", 3).at(0).resource->id, "refunds");
  EXPECT_TRUE(index.Search("zebra", 3).empty());
  EXPECT_NE(RenderHits(hits, 10).find("[shipping] Shipping\nWe ship wo..."), std::string::npos);
}

TEST(ResourceSearch, RareWordsOutweighCommonOnesAndTiesKeepConfigOrder) {
  std::vector<TrustedResource> resources;
  for (int i = 0; i < 200; ++i) {
    resources.push_back({"doc" + std::to_string(i), "Policy " + std::to_string(i),
                         "This policy covers orders and customers."});
  }
  resources[150].text += " Invoices carry the VAT number.";
  resources[42].text += " Invoices are sent monthly.";
  ResourceIndex index(resources);
  // "policy" is in every document; "vat" only in one: it decides the ranking.
  auto hits = index.Search("policy VAT invoices", 5);
  ASSERT_EQ(hits.size(), 5u);
  EXPECT_EQ(hits[0].resource->id, "doc150");
  EXPECT_EQ(hits[1].resource->id, "doc42");
  EXPECT_GT(hits[1].score, hits[2].score);
  // The rest match only the common word and tie: configuration order decides.
  EXPECT_EQ(hits[2].resource->id, "doc0");
  EXPECT_EQ(hits[3].resource->id, "doc1");
  EXPECT_EQ(index.Search("POLICY policy", 500).size(), 200u);
  EXPECT_TRUE(ResourceIndex({}).Search("policy", 3).empty());
}

TEST(RetryPolicy, ClassifiesAndBoundsRetries) {
  const ModelFailure transient{ModelFailure::Kind::kTransient, "503", std::nullopt};
  EXPECT_TRUE(DecideRetry(transient, 1, 60s).retry);
  EXPECT_EQ(DecideRetry(transient, 1, 60s).wait, 500ms);
  EXPECT_EQ(DecideRetry(transient, 2, 60s).wait, 1000ms);
  EXPECT_FALSE(DecideRetry(transient, 3, 60s).retry);
  EXPECT_EQ(DecideRetry(transient, 3, 60s).give_up, StopReason::kLlmError);
  EXPECT_FALSE(DecideRetry(transient, 1, 1200ms).retry);  // no time left for the call
  const ModelFailure refused{ModelFailure::Kind::kRefused, "401", std::nullopt};
  EXPECT_FALSE(DecideRetry(refused, 1, 60s).retry);
  EXPECT_EQ(DecideRetry(refused, 1, 60s).give_up, StopReason::kProviderError);
  const ModelFailure rejected{ModelFailure::Kind::kRejected, "400", std::nullopt};
  EXPECT_EQ(DecideRetry(rejected, 1, 60s).give_up, StopReason::kLlmError);
  const ModelFailure throttled{ModelFailure::Kind::kThrottled, "429", 2000ms};
  EXPECT_TRUE(DecideRetry(throttled, 1, 60s).retry);
  EXPECT_EQ(DecideRetry(throttled, 1, 60s).wait, 2000ms);
  EXPECT_FALSE(DecideRetry(throttled, 1, 2500ms).retry);  // Retry-After no longer fits
  EXPECT_EQ(DecideRetry(throttled, 1, 2500ms).give_up, StopReason::kProviderError);
}

TEST(InvokeRequest, ParsesTheSourceTableAndNamesBadFields) {
  auto ok = ParseInvokeRequest(
      boost::json::parse(R"({"message": "hi", "stateful": true, "conversation_id": null,
    "host_context": {"a": 1}, "additional_instructions": "be brief", "instance_id": null, "group_key": "team.a@x"})"));
  ASSERT_TRUE(ok) << ok.error().message;
  EXPECT_TRUE(ok->stateful);
  EXPECT_EQ(ok->group_key, "team.a@x");
  auto field_of = [](const char* json) {
    auto r = ParseInvokeRequest(boost::json::parse(json));
    EXPECT_FALSE(r) << json;
    return r ? std::string() : r.error().message;
  };
  EXPECT_NE(field_of(R"({})").find("'message'"), std::string::npos);
  EXPECT_NE(field_of(R"({"message": ""})").find("'message'"), std::string::npos);
  EXPECT_NE(field_of(R"({"message": 5})").find("'message'"), std::string::npos);
  EXPECT_NE(field_of(R"({"message": "x", "stateful": "yes"})").find("'stateful'"),
            std::string::npos);
  EXPECT_NE(field_of(R"({"message": "x", "conversation_id": "c1"})").find("'conversation_id'"),
            std::string::npos);
  EXPECT_NE(field_of(R"({"message": "x", "host_context": [1]})").find("'host_context'"),
            std::string::npos);
  EXPECT_NE(field_of(R"({"message": "x", "group_key": ""})").find("'group_key'"),
            std::string::npos);
  EXPECT_NE(field_of(R"({"message": "x", "group_key": "a b"})").find("'group_key'"),
            std::string::npos);
  EXPECT_NE(field_of(R"({"message": "x", "conversationId": "c"})").find("'conversationId'"),
            std::string::npos);
}

TEST(InvokeRequest, HowToDeliverIsTheHttpInvokesAloneAndItsFlagsAreChecked) {
  const auto body =
      boost::json::parse(R"({"message": "hi", "background": true, "on_disconnect": "cancel"})");
  // The flow action and MCP have no run options: the fields are unknown there.
  EXPECT_FALSE(ParseInvokeRequest(body));
  RunOptions options;
  ASSERT_TRUE(ParseInvokeRequest(body, &options));
  EXPECT_TRUE(options.background);
  EXPECT_FALSE(options.stream);
  EXPECT_TRUE(options.cancel_on_disconnect);
  RunOptions plain;
  ASSERT_TRUE(ParseInvokeRequest(boost::json::parse(R"({"message": "hi"})"), &plain));
  EXPECT_FALSE(plain.background || plain.stream || plain.cancel_on_disconnect);
  auto field_of = [](const char* json) {
    RunOptions ignored;
    auto r = ParseInvokeRequest(boost::json::parse(json), &ignored);
    EXPECT_FALSE(r) << json;
    return r ? std::string() : r.error().message;
  };
  EXPECT_NE(field_of(R"({"message": "x", "background": "yes"})").find("'background'"),
            std::string::npos);
  EXPECT_NE(field_of(R"({"message": "x", "stream": true, "background": true})").find("'stream'"),
            std::string::npos);
  EXPECT_NE(field_of(R"({"message": "x", "on_disconnect": "stop"})").find("'on_disconnect'"),
            std::string::npos);
}

TEST(InvokeRequest, AQueuedRequestReadsBackAsItWasSent) {
  auto sent = ParseInvokeRequest(boost::json::parse(
      R"({"message": "hi", "stateful": true, "conversation_id": "conv_1",
          "host_context": {"page": "case"}, "additional_instructions": "brief",
          "instance_id": "i1", "group_key": "g"})"));
  ASSERT_TRUE(sent);
  const auto again = ParseInvokeRequest(InvokeRequestJson(*sent));
  ASSERT_TRUE(again) << again.error().message;
  EXPECT_EQ(again->message, "hi");
  EXPECT_TRUE(again->stateful);
  EXPECT_EQ(again->conversation_id, "conv_1");
  EXPECT_EQ(again->host_context, sent->host_context);
  EXPECT_EQ(again->additional_instructions, "brief");
  EXPECT_EQ(again->instance_id, "i1");
  EXPECT_EQ(again->group_key, "g");
}

TEST(InvokeRequest, AKeptRequestKeepsTheCallersFunctionsAndItsContinuation) {
  InvokeRequest sent;
  sent.message = "";
  sent.stateful = true;
  sent.conversation_id = "conv_1";
  sent.after_turn_id = "turn_1";
  sent.caller_tools = {
      ToolSpec{"weather", "The weather", boost::json::parse(R"({"type":"object"})")}};
  sent.caller_tools_flat = true;
  sent.required_tool = "weather";
  sent.history = {ChatMessage{Role::kUser, "Paris?", {}, "", ""},
                  ChatMessage{Role::kAssistant, "", {{"c1", "weather", "{}"}}, "", ""}};
  sent.continuation = {ChatMessage{Role::kTool, "sunny", {}, "c1", "weather"}};
  const auto again = KeptInvokeRequest(InvokeRequestJson(sent));
  ASSERT_TRUE(again) << again.error().message;
  EXPECT_EQ(again->message, "");  // a continuation has none
  EXPECT_EQ(again->after_turn_id, "turn_1");
  ASSERT_EQ(again->caller_tools.size(), 1u);
  EXPECT_EQ(again->caller_tools[0].name, "weather");
  EXPECT_EQ(again->caller_tools[0].parameters, sent.caller_tools[0].parameters);
  EXPECT_TRUE(again->caller_tools_flat);
  EXPECT_EQ(again->required_tool, "weather");
  ASSERT_EQ(again->history.size(), 2u);
  EXPECT_EQ(again->history[1].tool_calls, sent.history[1].tool_calls);
  ASSERT_EQ(again->continuation.size(), 1u);
  EXPECT_EQ(again->continuation[0].role, Role::kTool);
  EXPECT_EQ(again->continuation[0].tool_call_id, "c1");
  EXPECT_EQ(again->continuation[0].content, "sunny");
  EXPECT_FALSE(KeptInvokeRequest(boost::json::value("not an object")));
}

TEST(InvokeRequest, ResponseFormatTakesEitherShapeAndNamesWhatIsWrong) {
  const char* schema = R"({"type": "object", "properties": {"ok": {"type": "boolean"}}})";
  const auto ours = ParseInvokeRequest(boost::json::parse(
      std::string(R"({"message": "hi", "response_format": {"type": "json_schema", "schema": )") +
      schema + "}}"));
  ASSERT_TRUE(ours) << ours.error().message;
  EXPECT_EQ(*ours->answer_schema, boost::json::parse(schema));
  const auto openai = ParseInvokeRequest(boost::json::parse(
      std::string(R"({"message": "hi", "response_format": {"type": "json_schema", "json_schema":)"
                  R"( {"name": "verdict", "strict": false, "schema": )") +
      schema + "}}}"));
  ASSERT_TRUE(openai) << openai.error().message;
  EXPECT_EQ(*openai->answer_schema, boost::json::parse(schema));
  // A queued run keeps it.
  const auto again = ParseInvokeRequest(InvokeRequestJson(*openai));
  ASSERT_TRUE(again);
  EXPECT_EQ(again->answer_schema, openai->answer_schema);

  const auto field_of = [](const char* body) {
    const auto r = ParseInvokeRequest(boost::json::parse(body));
    return r ? std::string("(accepted)") : std::string(r.error().field().value_or("(none)"));
  };
  // JSON mode is served (issue 74 §2); a type that is neither is refused naming it.
  EXPECT_EQ(field_of(R"({"message": "hi", "response_format": {"type": "json_object"}})"),
            "(accepted)");
  EXPECT_EQ(field_of(R"({"message": "hi", "response_format": {"type": "xml"}})"),
            "response_format.type");
  EXPECT_EQ(
      field_of(R"({"message": "hi", "response_format": {"type": "json_object", "schema": {}}})"),
      "response_format");
  EXPECT_EQ(field_of(R"({"message": "hi", "response_format": {"type": "json_schema"}})"),
            "response_format");
  EXPECT_EQ(field_of(R"({"message": "hi", "response_format": "json"})"), "response_format");
  EXPECT_EQ(field_of(R"({"message": "hi", "response_format": {"type": "json_schema", "schema":
      {"type": "object", "properties": {"a": {"$ref": "#/b"}}}}})"),
            "response_format.schema.properties.a.$ref");
  EXPECT_EQ(field_of(R"({"message": "hi", "response_format": {"type": "json_schema", "json_schema":
      {"name": "x", "strict": true, "schema": {"type": "object", "properties": {"a": {}}}}}})"),
            "response_format.json_schema.strict");
  EXPECT_EQ(field_of(R"({"message": "hi", "response_format": {"type": "json_schema", "json_schema":
      {"name": "no spaces"}}})"),
            "response_format.json_schema.name");
}

TEST(InvokeRequest, IfBusyIsOneOfItsModesAndABackgroundRunEnqueuesRatherThanWaits) {
  const auto plain =
      ParseInvokeRequest(boost::json::parse(R"({"message": "hi", "if_busy": "reject"})"));
  ASSERT_TRUE(plain);
  EXPECT_EQ(plain->if_busy, IfBusy::kReject);
  RunOptions options;
  EXPECT_EQ(
      ParseInvokeRequest(boost::json::parse(R"({"message": "hi", "if_busy": "wait"})"), &options)
          ->if_busy,
      IfBusy::kWait);
  EXPECT_FALSE(ParseInvokeRequest(boost::json::parse(R"({"message": "hi"})"))->if_busy);
  const auto field_of = [](const char* body) {
    RunOptions run;
    const auto r = ParseInvokeRequest(boost::json::parse(body), &run);
    return r ? std::string("(accepted)") : std::string(r.error().message);
  };
  EXPECT_NE(field_of(R"({"message": "hi", "background": true, "if_busy": "wait"})")
                .find("field 'if_busy': \"wait\" is for a plain or streamed call"),
            std::string::npos);
  EXPECT_EQ(field_of(R"({"message": "hi", "background": true, "if_busy": "reject"})"),
            "(accepted)");
  EXPECT_NE(field_of(R"({"message": "hi", "if_busy": "later"})").find("field 'if_busy'"),
            std::string::npos);
  EXPECT_EQ(field_of(R"({"message": "hi", "if_busy": "interrupt"})"), "(accepted)");
  EXPECT_EQ(field_of(R"({"message": "hi", "background": true, "if_busy": "interrupt"})"),
            "(accepted)");
  EXPECT_EQ(field_of(R"({"message": "hi", "background": true, "if_busy": "enqueue"})"),
            "(accepted)");
  EXPECT_NE(field_of(R"({"message": "hi", "if_busy": "enqueue"})")
                .find("field 'if_busy': \"enqueue\" is for a background run"),
            std::string::npos);
  EXPECT_EQ(ParseInvokeRequest(boost::json::parse(R"({"message": "hi", "if_busy": "interrupt"})"))
                ->if_busy,
            IfBusy::kInterrupt);
  EXPECT_NE(field_of(R"({"message": "hi", "if_busy": 1})").find("field 'if_busy'"),
            std::string::npos);
  // A queued run does not keep it: it waits its turn once it starts.
  EXPECT_FALSE(InvokeRequestJson(*plain).contains("if_busy"));
}

TEST(Prompt, TheAnswerSchemaIsTheCallsElseTheVersionsAndIsCountedInTheEstimate) {
  AgentConfig config = Config(R"({"name": "a", "model": {"provider": "p", "name": "m"},
      "output_schema": {"type": "object", "properties": {"v": {"type": "string"}}}})");
  PromptInputs inputs;
  inputs.message = "hi";
  const auto versions = AssemblePrompt(config, inputs);
  ASSERT_TRUE(versions.request.answer_format);
  EXPECT_EQ(versions.request.answer_format->schema, *config.output_schema);
  inputs.answer_schema = boost::json::parse(
      R"({"type": "object", "properties": {"c": {"type": "string"}}, "required": ["c"],
          "additionalProperties": false})");
  const auto calls = AssemblePrompt(config, inputs);
  EXPECT_EQ(calls.request.answer_format->schema, *inputs.answer_schema);
  EXPECT_TRUE(calls.request.answer_format->strict);
  EXPECT_GT(EstimateTokens(calls.request),
            EstimateTokens(
                AssemblePrompt(Config(R"({"name": "a", "model": {"provider": "p", "name": "m"}})"),
                               inputs)
                    .request) -
                1);
}

}  // namespace agentgate

namespace agentgate {
namespace {

TEST(MemoryRecall, TermsAreTheDistinctWordsThatTellFactsApart) {
  EXPECT_EQ(RecallTerms("What is the VAT number of ACME GmbH? The VAT, please!"),
            (std::vector<std::string>{"vat", "number", "acme", "gmbh", "please"}));
  EXPECT_TRUE(RecallTerms("is it the one?").size() == 1);  // "one" only
  EXPECT_TRUE(RecallTerms("a b c ? !").empty());
  EXPECT_EQ(RecallTerms("Zürich office", 1), std::vector<std::string>{"zürich"});
  // Query syntax never passes: only words do.
  EXPECT_EQ(RecallTerms("\"pay\" OR ref* NEAR(x)"),
            (std::vector<std::string>{"pay", "ref", "near"}));
}

TEST(HistorySummary, MaxInputTokensBoundsTheHistoryAndTheSummaryPrecedesIt) {
  const auto config = Config(R"({"name": "n", "model": {"provider": "p", "name": "m",
      "max_output_tokens": 100}, "history": {"strategy": "summarize", "max_input_tokens": 600}})");
  EXPECT_EQ(InputBudgetOf(config), 600);  // not 128000 - 100
  PromptInputs in;
  in.message = "next";
  in.history_summary = "The user's code word is PINEAPPLE.";
  for (int i = 0; i < 40; ++i)  // 40 turns of ~100 tokens: far more than 600
    in.history.push_back(ChatMessage{i % 2 ? Role::kAssistant : Role::kUser,
                                     std::string(200, static_cast<char>('a' + i % 26)),
                                     {},
                                     "",
                                     ""});
  const auto prompt = AssemblePrompt(config, in);
  EXPECT_GT(prompt.history_messages_dropped, 30u);
  EXPECT_LE(EstimateTokens(prompt.request), 600);
  EXPECT_NE(prompt.request.system.find("Summary of the earlier conversation"), std::string::npos);
  EXPECT_NE(prompt.request.system.find("PINEAPPLE"), std::string::npos);
  EXPECT_NE(prompt.recorded_system.find("PINEAPPLE"), std::string::npos);  // it is stored data
  // A summary folds more than the overflow: what stays takes at most half the room, so the next
  // fold is turns away.
  const std::size_t fold = HistoryToFold(config, in);
  EXPECT_GT(fold, prompt.history_messages_dropped);
  EXPECT_EQ(in.history[fold].role, Role::kUser);
  PromptInputs rest = in;
  rest.history.erase(rest.history.begin(),
                     rest.history.begin() + static_cast<std::ptrdiff_t>(fold));
  const auto after = AssemblePrompt(config, rest);
  EXPECT_EQ(after.history_messages_dropped, 0u);
  std::int64_t history_tokens = 0;
  for (const auto& m : rest.history) history_tokens += EstimateTokens(m.content) + 8;
  const std::int64_t room = 600 - (EstimateTokens(after.request) - history_tokens);
  EXPECT_LE(history_tokens, room / 2);
}

TEST(HistorySummary, TheRequestCarriesThePreviousSummaryAndTheFoldedTurnsWithoutTools) {
  const auto config = Config(R"({"name": "n", "model": {"provider": "p", "name": "m",
      "max_output_tokens": 300, "context_tokens": 4096}, "memory": "shared"})");
  const std::vector<ChatMessage> folded{{Role::kUser, "My code word is PINEAPPLE", {}, "", ""},
                                        {Role::kAssistant, "Noted.", {}, "", ""}};
  const auto request = SummaryRequest(config, "Earlier: the user is Ada.", folded);
  EXPECT_TRUE(request.tools.empty());
  EXPECT_EQ(request.model, "m");
  ASSERT_EQ(request.messages.size(), 1u);
  const auto& text = request.messages[0].content;
  EXPECT_NE(text.find("Earlier: the user is Ada."), std::string::npos);
  EXPECT_LT(text.find("user: My code word is PINEAPPLE"), text.find("assistant: Noted."));
  // A quarter of the input budget (4096 - 300), at most max_output_tokens, at least 64.
  EXPECT_EQ(SummaryMaxTokens(config), 300);
  EXPECT_EQ(request.max_output_tokens, 300);
  const auto small = Config(R"({"name": "n", "model": {"provider": "p", "name": "m",
      "max_output_tokens": 1000}, "history": {"max_input_tokens": 400}})");
  EXPECT_EQ(SummaryMaxTokens(small), 100);
  const auto tiny = Config(R"({"name": "n", "model": {"provider": "p", "name": "m",
      "max_output_tokens": 10}, "history": {"max_input_tokens": 256}})");
  EXPECT_EQ(SummaryMaxTokens(tiny), 64);
}

TEST(MemoryRecall, PlanSearchesTheRarestTermsWithinTheBudget) {
  // Rarest first; terms no fact holds are dropped; the budget stops before "order" (400 + 700).
  const auto plan = PlanRecall({{"order", 700}, {"vat", 3}, {"zzz", 0}, {"acme", 400}}, 1000);
  EXPECT_TRUE(plan.ranked);
  EXPECT_EQ(plan.terms, (std::vector<std::string>{"vat", "acme"}));
  // Exactly at the budget still fits.
  EXPECT_EQ(PlanRecall({{"a1", 600}, {"b1", 400}}, 1000).terms,
            (std::vector<std::string>{"b1", "a1"}));
  // Equally rare terms keep the message's order.
  EXPECT_EQ(PlanRecall({{"x1", 5}, {"y1", 5}}, 1000).terms, (std::vector<std::string>{"x1", "y1"}));
}

TEST(MemoryRecall, PlanFallsBackToTheRarestTermUnrankedWhenEveryTermIsCommon) {
  const auto plan = PlanRecall({{"customer", 90000}, {"account", 5000}}, 1000);
  EXPECT_FALSE(plan.ranked);
  EXPECT_EQ(plan.terms, std::vector<std::string>{"account"});
  EXPECT_TRUE(PlanRecall({{"nothing", 0}}, 1000).terms.empty());
  EXPECT_TRUE(PlanRecall({}, 1000).terms.empty());
}

}  // namespace
}  // namespace agentgate

namespace agentgate {
namespace {

TEST(SeedFrom, ANewConversationKeepsTheNewestHistoryTheWindowHolds) {
  std::vector<ChatMessage> history;
  for (const char* text : {"aaaa", "bbbb", "cccc", "dddd"})
    history.push_back(ChatMessage{Role::kUser, text, {}, "", ""});
  EXPECT_EQ(SeedFrom(history, HistoryBudget{1000, 1000}), 0u);  // all of it fits
  EXPECT_EQ(SeedFrom(history, HistoryBudget{9, 1000}), 2u);     // two of four bytes each
  EXPECT_EQ(SeedFrom(history, HistoryBudget{1000, 3}), 1u);     // three messages at most
  EXPECT_EQ(SeedFrom(history, HistoryBudget{0, 3}), 4u);        // none fits
  EXPECT_EQ(SeedFrom({}, HistoryBudget{10, 10}), 0u);
}

}  // namespace
}  // namespace agentgate
