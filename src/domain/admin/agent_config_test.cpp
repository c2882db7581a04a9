#include "domain/admin/agent_config.hpp"

#include <gtest/gtest.h>
#include <boost/json/parse.hpp>

namespace agentgate {
namespace {

Result<AgentConfig> Parse(const std::string& json) {
  return ParseAgentConfig(boost::json::parse(json));
}

void ExpectFieldError(const std::string& json, const std::string& field) {
  auto c = Parse(json);
  ASSERT_FALSE(c) << json;
  EXPECT_EQ(c.error().code, ErrorCode::kInvalidRequest);
  EXPECT_NE(c.error().message.find("'" + field + "'"), std::string::npos) << c.error().message;
}

}  // namespace

TEST(AgentConfig, ParsesTheContractExample) {
  auto c = Parse(R"({
    "name": "Support bot", "instructions": "You are helpful.",
    "model": {"provider": "openai", "name": "gpt-4o-mini", "temperature": 0.2, "max_output_tokens": 1024},
    "memory": "shared", "per_instance": false, "monthly_spend_limit_usd": null, "max_iterations": 10,
    "tools": [{"type": "http", "name": "lookup", "description": "Look up", "parameters": {"type": "object"},
               "url": "https://tools.example/lookup", "method": "POST", "headers": {"x-k": "v"}},
              {"type": "crm_metadata"}],
    "actions": [{"name": "create_case", "description": "Create a case", "parameters": {"type": "object"}}],
    "resources": [{"id": "faq", "title": "FAQ", "text": "Answers"}],
    "safety": {"block_patterns": ["(?i)internal only"], "detect": ["credit_card", "secret"],
               "placeholder": "Withheld."}
  })");
  ASSERT_TRUE(c) << c.error().message;
  EXPECT_EQ(c->model.provider, "openai");
  EXPECT_EQ(c->memory, MemoryMode::kShared);
  ASSERT_EQ(c->http_tools.size(), 1u);
  EXPECT_EQ(c->http_tools[0].headers.at("x-k").literal, "v");
  ASSERT_TRUE(c->crm_metadata_tool);
  EXPECT_EQ(c->crm_metadata_tool->methods, std::vector<std::string>{"GET"});  // read-only default
  EXPECT_EQ(c->actions.at(0).name, "create_case");
  EXPECT_TRUE(c->safety.detect_credit_card);
  EXPECT_EQ(c->safety.placeholder, "Withheld.");
}

TEST(AgentConfig, TheCrmMetadataToolMakesOnlyTheMethodsListed) {
  const std::string head =
      R"({"name": "n", "model": {"provider": "offline", "name": "m"}, "tools": [)";
  auto c = Parse(head + R"({"type": "crm_metadata", "methods": ["GET", "DELETE"]}]})");
  ASSERT_TRUE(c) << c.error().message;
  EXPECT_TRUE(c->crm_metadata_tool->Allows("GET"));
  EXPECT_TRUE(c->crm_metadata_tool->Allows("DELETE"));
  EXPECT_FALSE(c->crm_metadata_tool->Allows("POST"));
  ExpectFieldError(head + R"({"type": "crm_metadata", "methods": []}]})",
                   "config.tools[0].methods");
  ExpectFieldError(head + R"({"type": "crm_metadata", "methods": "GET"}]})",
                   "config.tools[0].methods");
  ExpectFieldError(head + R"({"type": "crm_metadata", "methods": ["GET", "get"]}]})",
                   "config.tools[0].methods[1]");
  ExpectFieldError(head + R"({"type": "crm_metadata", "methods": ["GET", "GET"]}]})",
                   "config.tools[0].methods[1]");
  ExpectFieldError(head + R"({"type": "crm_metadata", "method": ["GET"]}]})",
                   "config.tools[0].method");
  ExpectFieldError(head + R"({"type": "crm_metadata"}, {"type": "crm_metadata"}]})",
                   "config.tools[1].type");
}

TEST(AgentConfig, AppliesDefaults) {
  auto c = Parse(R"({"name": "n", "model": {"provider": "offline", "name": "m"}})");
  ASSERT_TRUE(c) << c.error().message;
  EXPECT_EQ(c->max_iterations, 10);
  EXPECT_EQ(c->memory, MemoryMode::kNone);
  EXPECT_EQ(c->model.max_output_tokens, 1024);
  EXPECT_FALSE(c->monthly_spend_limit_usd);
  EXPECT_EQ(c->history.strategy, HistoryStrategy::kWindow);
  EXPECT_FALSE(c->history.max_input_tokens);
}

TEST(AgentConfig, ABlockPatternMayCarryTheBoundOfItsMatches) {
  const std::string model = R"("model": {"provider": "offline", "name": "m"})";
  auto c = Parse(R"({"name": "n", )" + model +
                 R"(, "safety": {"block_patterns": ["internal only",
                     {"pattern": "confidential.*plan", "max_match_bytes": 200}]}})");
  ASSERT_TRUE(c) << c.error().message;
  ASSERT_EQ(c->safety.block_patterns.size(), 2u);
  EXPECT_EQ(c->safety.block_patterns[0].pattern, "internal only");
  EXPECT_FALSE(c->safety.block_patterns[0].max_match_bytes);
  EXPECT_EQ(c->safety.block_patterns[1].pattern, "confidential.*plan");
  EXPECT_EQ(c->safety.block_patterns[1].max_match_bytes, 200u);
  for (const auto& [item, field] : std::vector<std::pair<std::string, std::string>>{
           {R"({"pattern": "a.*b", "max_match_bytes": 0})",
            "config.safety.block_patterns[0].max_match_bytes"},
           {R"({"pattern": "a.*b", "max_match_bytes": 5000})",
            "config.safety.block_patterns[0].max_match_bytes"},
           {R"({"pattern": "(unclosed"})", "config.safety.block_patterns[0].pattern"},
           {R"({"max_match_bytes": 10})", "config.safety.block_patterns[0].pattern"},
           {R"({"pattern": "a", "bound": 10})", "config.safety.block_patterns[0].bound"},
           {"7", "config.safety.block_patterns[0]"}}) {
    ExpectFieldError(
        R"({"name": "n", )" + model + R"(, "safety": {"block_patterns": [)" + item + "]}}", field);
  }
}

TEST(AgentConfig, ParsesTheHistoryStrategy) {
  auto c = Parse(R"({"name": "n", "model": {"provider": "p", "name": "m"},
                     "history": {"strategy": "summarize", "max_input_tokens": 4000}})");
  ASSERT_TRUE(c) << c.error().message;
  EXPECT_EQ(c->history.strategy, HistoryStrategy::kSummarize);
  EXPECT_EQ(c->history.max_input_tokens, 4000);
  const std::string model = R"("model": {"provider": "p", "name": "m"})";
  ExpectFieldError(R"({"name": "n", )" + model + R"(, "history": {"strategy": "compact"}})",
                   "config.history.strategy");
  ExpectFieldError(R"({"name": "n", )" + model + R"(, "history": {"max_input_tokens": 10}})",
                   "config.history.max_input_tokens");
  ExpectFieldError(R"({"name": "n", )" + model + R"(, "history": {"strategy": "window", "x": 1}})",
                   "config.history.x");
  ExpectFieldError(R"({"name": "n", )" + model + R"(, "history": []})", "config.history");
}

TEST(AgentConfig, AnOutputSchemaIsCheckedAndFinalAnswerIsNoToolsName) {
  const auto c = Parse(R"({"name": "a", "model": {"provider": "p", "name": "m"},
      "output_schema": {"type": "object", "properties": {"v": {"type": "string"}}}})");
  ASSERT_TRUE(c) << c.error().message;
  ASSERT_TRUE(c->output_schema);
  EXPECT_EQ(c->output_schema->at("type"), "object");
  ExpectFieldError(R"({"name": "a", "model": {"provider": "p", "name": "m"},
      "output_schema": {"type": "object", "properties": {"v": {"patternProperties": {}}}}})",
                   "config.output_schema.properties.v.patternProperties");
  ExpectFieldError(R"({"name": "a", "model": {"provider": "p", "name": "m"},
      "output_schema": {"type": "string"}})",
                   "config.output_schema.type");
  ExpectFieldError(R"({"name": "a", "model": {"provider": "p", "name": "m"},
      "actions": [{"name": "final_answer", "description": "d"}]})",
                   "config.actions[0].name");
}

TEST(AgentConfig, ErrorsNameTheField) {
  const std::string model = R"("model": {"provider": "p", "name": "m"})";
  ExpectFieldError("[]", "config");
  ExpectFieldError(R"({"model": {"provider": "p", "name": "m"}})", "config.name");
  ExpectFieldError(R"({"name": "n"})", "config.model");
  ExpectFieldError(R"({"name": "n", "model": {"name": "m"}})", "config.model.provider");
  ExpectFieldError(R"({"name": "n", "model": {"provider": "p", "name": "m", "temperature": 3}})",
                   "config.model.temperature");
  ExpectFieldError(R"({"name": "n", )" + model + R"(, "memory": "forever"})", "config.memory");
  ExpectFieldError(R"({"name": "n", )" + model + R"(, "max_iterations": 0})",
                   "config.max_iterations");
  ExpectFieldError(R"({"name": "n", )" + model + R"(, "max_iterations": 2.5})",
                   "config.max_iterations");
  ExpectFieldError(R"({"name": "n", )" + model + R"(, "nmae": 1})", "config.nmae");
  ExpectFieldError(R"({"name": "n", )" + model + R"(, "tools": [{"type": "ftp"}]})",
                   "config.tools[0].type");
  ExpectFieldError(
      R"({"name": "n", )" + model +
          R"(, "tools": [{"type": "http", "name": "t", "description": "d", "url": "file:///etc/passwd"}]})",
      "config.tools[0].url");
  ExpectFieldError(
      R"({"name": "n", )" + model + R"(, "actions": [{"name": "bad name", "description": "d"}]})",
      "config.actions[0].name");
  ExpectFieldError(
      R"({"name": "n", )" + model + R"(, "actions": [{"name": "remember", "description": "d"}]})",
      "config.actions[0].name");
  ExpectFieldError(
      R"({"name": "n", )" + model +
          R"(, "resources": [{"id": "a", "title": "t", "text": "x"}, {"id": "a", "title": "t", "text": "y"}]})",
      "config.resources[1].id");
  ExpectFieldError(
      R"({"name": "n", )" + model + R"(, "safety": {"block_patterns": ["(unclosed"]}})",
      "config.safety.block_patterns[0]");
  ExpectFieldError(R"({"name": "n", )" + model + R"(, "safety": {"detect": ["ssn"]}})",
                   "config.safety.detect[0]");
  ExpectFieldError(R"({"name": "n", )" + model + R"(, "monthly_spend_limit_usd": -1})",
                   "config.monthly_spend_limit_usd");
}

TEST(AgentConfig, ToolAndActionNamesMustBeUnique) {
  ExpectFieldError(R"({"name": "n", "model": {"provider": "p", "name": "m"},
    "tools": [{"type": "http", "name": "x", "description": "d", "url": "http://127.0.0.1:1/"}],
    "actions": [{"name": "x", "description": "d"}]})",
                   "config.actions[0].name");
}

}  // namespace agentgate

namespace agentgate {
namespace {

constexpr const char* kMcpAgent = R"({
  "name": "a", "description": "Answers from the docs", "model": {"provider": "p", "name": "m"},
  "tools": [{"type": "mcp", "name": "docs", "url": "https://docs.example/mcp",
             "headers": {"Authorization": {"env": "DOCS_TOKEN"}, "X-Team": "support",
                         "X-Key": {"secret": "docs_key"}},
             "allowed_tools": ["search", "fetch"], "timeout_seconds": 20}]
})";

TEST(AgentConfig, ParsesAnMcpServerWithHeadersFromTheEnvironment) {
  auto c = Parse(kMcpAgent);
  ASSERT_TRUE(c) << c.error().message;
  EXPECT_EQ(c->description, "Answers from the docs");
  ASSERT_EQ(c->mcp_servers.size(), 1u);
  const auto& server = c->mcp_servers[0];
  EXPECT_EQ(server.name, "docs");
  EXPECT_EQ(server.headers.at("Authorization").env, "DOCS_TOKEN");
  EXPECT_EQ(server.headers.at("X-Team").literal, "support");
  EXPECT_EQ(server.headers.at("X-Key").secret, "docs_key");
  EXPECT_TRUE(server.Allows("search"));
  EXPECT_FALSE(server.Allows("delete"));
  EXPECT_EQ(server.timeout_seconds, 20);
}

TEST(AgentConfig, ARemoteA2aAgentIsOneToolWhoseNameAndCardUrlAreChecked) {
  const std::string head = R"({"name": "a", "model": {"provider": "p", "name": "m"}, "tools": [)";
  auto c = Parse(head + R"({"type": "a2a", "name": "billing",
      "card_url": "https://billing.example/.well-known/agent-card.json",
      "headers": {"Authorization": {"secret": "billing_key"}}, "timeout_seconds": 90}]})");
  ASSERT_TRUE(c) << c.error().message;
  ASSERT_EQ(c->a2a_agents.size(), 1u);
  EXPECT_EQ(c->a2a_agents[0].name, "billing");
  EXPECT_EQ(c->a2a_agents[0].headers.at("Authorization").secret, "billing_key");
  EXPECT_EQ(c->a2a_agents[0].timeout_seconds, 90);
  ExpectFieldError(head + R"({"type": "a2a", "name": "b", "card_url": "ftp://x/card"}]})",
                   "config.tools[0].card_url");
  ExpectFieldError(head + R"({"type": "a2a", "name": "b c", "card_url": "https://x/c"}]})",
                   "config.tools[0].name");
  ExpectFieldError(head + R"({"type": "a2a", "name": "b", "card_url": "https://x/c", "url": 1}]})",
                   "config.tools[0].url");
  ExpectFieldError(head + R"({"type": "a2a", "name": "b", "card_url": "https://x/c"},
      {"type": "a2a", "name": "b", "card_url": "https://y/c"}]})",
                   "config.tools[1].name");
  ExpectFieldError(head + R"({"type": "a2a", "name": "remember", "card_url": "https://x/c"}]})",
                   "config.tools[].name");
}

TEST(AgentConfig, McpServerErrorsNameTheField) {
  const std::string head = R"({"name": "a", "model": {"provider": "p", "name": "m"}, "tools": [)";
  ExpectFieldError(head + R"({"type": "mcp", "name": "d", "url": "ftp://x/mcp"}]})",
                   "config.tools[0].url");
  ExpectFieldError(head + R"({"type": "mcp", "name": "d", "url": "http://x", "extra": 1}]})",
                   "config.tools[0].extra");
  ExpectFieldError(head + R"({"type": "mcp", "name": "a__b", "url": "http://x"}]})",
                   "config.tools[0].name");
  ExpectFieldError(
      head + R"({"type": "mcp", "name": "d", "url": "http://x", "allowed_tools": []}]})",
      "config.tools[0].allowed_tools");
  ExpectFieldError(
      head + R"({"type": "mcp", "name": "d", "url": "http://x", "allowed_tools": ["s", "s"]}]})",
      "config.tools[0].allowed_tools[1]");
  ExpectFieldError(
      head +
          R"({"type": "mcp", "name": "d", "url": "http://x", "headers": {"A": {"env": "1X"}}}]})",
      "config.tools[0].headers.A.env");
  ExpectFieldError(
      head + R"({"type": "mcp", "name": "d", "url": "http://x", "headers": {"A": 3}}]})",
      "config.tools[0].headers.A");
  ExpectFieldError(head + R"({"type": "mcp", "name": "d", "url": "http://x",
                              "headers": {"A": {"secret": "a b"}}}]})",
                   "config.tools[0].headers.A.secret");
  ExpectFieldError(head + R"({"type": "mcp", "name": "d", "url": "http://x",
                              "headers": {"A": {"secret": "s", "env": "E"}}}]})",
                   "config.tools[0].headers.A");
  ExpectFieldError(head + R"({"type": "mcp", "name": "d", "url": "http://x"},
                             {"type": "mcp", "name": "d", "url": "http://y"}]})",
                   "config.tools[1].name");
  ExpectFieldError(head + R"({"type": "smtp"}]})", "config.tools[0].type");
}

}  // namespace
}  // namespace agentgate

namespace agentgate {

TEST(AgentConfig, AModelListsItsFallbacksInOrderAndMayTurnCachingOff) {
  auto c = Parse(R"({"name": "a", "instructions": "x",
    "model": {"provider": "anthropic", "name": "claude", "prompt_caching": false,
              "fallbacks": [{"provider": "anthropic", "name": "claude-small"},
                            {"provider": "openai", "name": "gpt"}]}})");
  ASSERT_TRUE(c) << c.error().message;
  ASSERT_EQ(c->model.fallbacks.size(), 2u);
  EXPECT_EQ(c->model.fallbacks[0].name, "claude-small");
  EXPECT_EQ(c->model.fallbacks[1].provider, "openai");
  EXPECT_FALSE(c->model.prompt_caching);
  auto plain =
      Parse(R"({"name": "a", "instructions": "x", "model": {"provider": "p", "name": "m"}})");
  ASSERT_TRUE(plain);
  EXPECT_TRUE(plain->model.fallbacks.empty());
  EXPECT_TRUE(plain->model.prompt_caching);
}

TEST(AgentConfig, FallbackErrorsNameTheEntry) {
  const std::string head =
      R"({"name": "a", "instructions": "x", "model": {"provider": "p", "name": "m", )";
  ExpectFieldError(head + R"("fallbacks": {}}})", "config.model.fallbacks");
  ExpectFieldError(head + R"("fallbacks": [{"provider": "q"}]}})",
                   "config.model.fallbacks[0].name");
  ExpectFieldError(head + R"("fallbacks": [{"provider": "", "name": "n"}]}})",
                   "config.model.fallbacks[0].provider");
  ExpectFieldError(head + R"("fallbacks": [{"provider": "q", "name": "n", "key": 1}]}})",
                   "config.model.fallbacks[0].key");
  ExpectFieldError(head + R"("fallbacks": [{"provider": "p", "name": "m"}]}})",
                   "config.model.fallbacks[0]");
  ExpectFieldError(
      head + R"("fallbacks": [{"provider": "q", "name": "n"}, {"provider": "q", "name": "n"}]}})",
      "config.model.fallbacks[1]");
  ExpectFieldError(
      head + R"("fallbacks": [{"provider": "q", "name": "1"}, {"provider": "q", "name": "2"},
    {"provider": "q", "name": "3"}, {"provider": "q", "name": "4"}, {"provider": "q", "name": "5"},
    {"provider": "q", "name": "6"}]}})",
      "config.model.fallbacks");
  ExpectFieldError(head + R"("prompt_caching": "yes"}})", "config.model.prompt_caching");
}

}  // namespace agentgate

namespace agentgate {

TEST(AgentConfig, EachToolMaySayWhetherItsCallsWaitForApproval) {
  auto c = Parse(R"({"name": "a", "instructions": "x", "model": {"provider": "p", "name": "m"},
    "tools": [{"type": "http", "name": "refund", "description": "Refund", "url": "https://x/r",
               "method": "POST", "approval": "writes"},
              {"type": "http", "name": "look", "description": "Look", "url": "https://x/l"},
              {"type": "mcp", "name": "files", "url": "https://x/mcp", "approval": "always"},
              {"type": "crm_metadata", "methods": ["GET", "PATCH"], "approval": "writes"}]})");
  ASSERT_TRUE(c) << c.error().message;
  EXPECT_EQ(c->http_tools[0].approval, Approval::kWrites);
  EXPECT_EQ(c->http_tools[1].approval, Approval::kNever);  // the default changes nothing
  EXPECT_EQ(c->mcp_servers[0].approval, Approval::kAlways);
  EXPECT_EQ(c->crm_metadata_tool->approval, Approval::kWrites);
  ExpectFieldError(R"({"name": "a", "instructions": "x", "model": {"provider": "p", "name": "m"},
    "tools": [{"type": "crm_metadata", "approval": "sometimes"}]})",
                   "config.tools[0].approval");
  ExpectFieldError(R"({"name": "a", "instructions": "x", "model": {"provider": "p", "name": "m"},
    "tools": [{"type": "http", "name": "r", "description": "R", "url": "https://x", "approval": true}]})",
                   "config.tools[0].approval");
}

}  // namespace agentgate
