#include "domain/admin/header_env.hpp"

#include "domain/admin/agent_config.hpp"

#include <gtest/gtest.h>
#include <boost/json/parse.hpp>

namespace agentgate {
namespace {

HeaderEnvPolicy Policy(std::vector<std::string> allowed, std::set<std::string> reserved = {}) {
  return HeaderEnvPolicy{std::move(allowed), std::move(reserved)};
}

AgentConfig ConfigWithHeaders(const std::string& http_headers, const std::string& mcp_headers) {
  auto parsed = ParseAgentConfig(boost::json::parse(
      R"({"name": "a", "model": {"provider": "p", "name": "m"}, "tools": [
           {"type": "crm_metadata"},
           {"type": "http", "name": "t", "description": "d", "parameters": {"type": "object"},
            "url": "http://x/t", "headers": )" +
      http_headers + R"(},
           {"type": "mcp", "name": "docs", "url": "http://x/mcp", "headers": )" +
      mcp_headers + "}]}"));
  EXPECT_TRUE(parsed) << parsed.error().message;
  return *parsed;
}

}  // namespace

TEST(HeaderEnv, AgentgatesOwnVariablesAreForbiddenWhateverIsListed) {
  const auto everything = Policy({"*"}, {"OPENAI_API_KEY", "MY_ADMIN_TOKEN"});
  for (const char* name : {"AGENTGATE_MASTER_KEY", "AGENTGATE_ADMIN_TOKEN", "PGPASSWORD", "PGHOST",
                           "OTEL_EXPORTER_OTLP_HEADERS", "OPENAI_API_KEY", "MY_ADMIN_TOKEN"})
    EXPECT_EQ(JudgeHeaderEnv(everything, name), HeaderEnvVerdict::kForbidden) << name;
  EXPECT_EQ(JudgeHeaderEnv(everything, "DOCS_TOKEN"), HeaderEnvVerdict::kAllowed);
}

TEST(HeaderEnv, OtherNamesMustMatchAListedGlob) {
  const auto policy = Policy({"DOCS_TOKEN", "CRM_TOOL_*", "TEAM_?"});
  EXPECT_EQ(JudgeHeaderEnv(policy, "DOCS_TOKEN"), HeaderEnvVerdict::kAllowed);
  EXPECT_EQ(JudgeHeaderEnv(policy, "CRM_TOOL_KEY"), HeaderEnvVerdict::kAllowed);
  EXPECT_EQ(JudgeHeaderEnv(policy, "TEAM_A"), HeaderEnvVerdict::kAllowed);
  EXPECT_EQ(JudgeHeaderEnv(policy, "TEAM_AB"), HeaderEnvVerdict::kUnlisted);
  EXPECT_EQ(JudgeHeaderEnv(policy, "DOCS_TOKEN_2"), HeaderEnvVerdict::kUnlisted);
  EXPECT_EQ(JudgeHeaderEnv(policy, "HOME"), HeaderEnvVerdict::kUnlisted);
  EXPECT_EQ(JudgeHeaderEnv(Policy({}), "DOCS_TOKEN"), HeaderEnvVerdict::kUnlisted);
}

TEST(HeaderEnv, FindingsNameTheFieldOfEachRefusedHeader) {
  const AgentConfig config = ConfigWithHeaders(
      R"({"X-Key": {"env": "AGENTGATE_MASTER_KEY"}, "X-Team": "support", "X-Ok": {"env": "DOCS_TOKEN"}})",
      R"({"Authorization": {"env": "HOME"}, "X-Sealed": {"secret": "docs_key"}})");
  const auto refused = RefusedHeaderEnvs(config, Policy({"DOCS_TOKEN"}));
  ASSERT_EQ(refused.size(), 2u);
  EXPECT_EQ(refused[0].field, "config.tools[1].headers.X-Key");
  EXPECT_EQ(refused[0].variable, "AGENTGATE_MASTER_KEY");
  EXPECT_EQ(refused[0].verdict, HeaderEnvVerdict::kForbidden);
  EXPECT_EQ(refused[1].field, "config.tools[2].headers.Authorization");
  EXPECT_EQ(refused[1].verdict, HeaderEnvVerdict::kUnlisted);

  const auto checked = CheckHeaderEnvs(config, Policy({"DOCS_TOKEN"}));
  ASSERT_FALSE(checked);
  EXPECT_EQ(checked.error().code, ErrorCode::kInvalidRequest);
  EXPECT_NE(checked.error().message.find("'config.tools[1].headers.X-Key'"), std::string::npos)
      << checked.error().message;
  EXPECT_TRUE(CheckHeaderEnvs(ConfigWithHeaders(R"({"X-Ok": {"env": "DOCS_TOKEN"}})", "{}"),
                              Policy({"DOCS_TOKEN"})));
}

}  // namespace agentgate
