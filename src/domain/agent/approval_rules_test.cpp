#include "domain/agent/approval_rules.hpp"

#include <gtest/gtest.h>

namespace agentgate::approval {
namespace {

TEST(ApprovalRules, NeverAndAlwaysHoldWhateverTheCall) {
  for (const char* method : {"GET", "POST", "DELETE"}) {
    EXPECT_FALSE(HttpCallNeedsApproval(Approval::kNever, method));
    EXPECT_TRUE(HttpCallNeedsApproval(Approval::kAlways, method));
    EXPECT_FALSE(CrmCallNeedsApproval(Approval::kNever, std::string_view(method)));
    EXPECT_TRUE(CrmCallNeedsApproval(Approval::kAlways, std::string_view(method)));
  }
  EXPECT_FALSE(McpCallNeedsApproval(Approval::kNever, McpHints{false, true}));
  EXPECT_TRUE(McpCallNeedsApproval(Approval::kAlways, McpHints{true, false}));
}

TEST(ApprovalRules, WritesAreHttpMethodsButGetAndHead) {
  EXPECT_FALSE(HttpCallNeedsApproval(Approval::kWrites, "GET"));
  EXPECT_FALSE(HttpCallNeedsApproval(Approval::kWrites, "HEAD"));
  for (const char* method : {"POST", "PUT", "PATCH", "DELETE"})
    EXPECT_TRUE(HttpCallNeedsApproval(Approval::kWrites, method)) << method;
}

TEST(ApprovalRules, CrmWritesAreEveryMethodButGetAndAMalformedCallNeedsNone) {
  EXPECT_FALSE(CrmCallNeedsApproval(Approval::kWrites, std::string_view("GET")));
  EXPECT_TRUE(CrmCallNeedsApproval(Approval::kWrites, std::string_view("PATCH")));
  EXPECT_TRUE(CrmCallNeedsApproval(Approval::kWrites, std::string_view("DELETE")));
  EXPECT_FALSE(CrmCallNeedsApproval(Approval::kWrites, std::nullopt));
  EXPECT_TRUE(CrmCallNeedsApproval(Approval::kAlways, std::nullopt));
}

TEST(ApprovalRules, AnMcpToolIsAWriteUnlessItsServerSaysReadOnlyAndNotDestructive) {
  EXPECT_TRUE(McpCallNeedsApproval(Approval::kWrites, McpHints{}));  // no hints: assume the worst
  EXPECT_FALSE(McpCallNeedsApproval(Approval::kWrites, McpHints{true, false}));
  EXPECT_TRUE(McpCallNeedsApproval(Approval::kWrites, McpHints{true, true}));
  EXPECT_TRUE(McpCallNeedsApproval(Approval::kWrites, McpHints{false, false}));
}

}  // namespace
TEST(ApprovalRules, AVersionCanPauseWhenAnyToolIsGated) {
  AgentConfig config;
  EXPECT_FALSE(CanPause(config));
  config.http_tools.push_back(HttpTool{});
  EXPECT_FALSE(CanPause(config));
  config.crm_metadata_tool = CrmMetadataTool{};
  config.crm_metadata_tool->approval = Approval::kWrites;
  EXPECT_TRUE(CanPause(config));
  config.crm_metadata_tool.reset();
  config.mcp_servers.push_back(McpServerTool{});
  config.mcp_servers.back().approval = Approval::kAlways;
  EXPECT_TRUE(CanPause(config));
  config.mcp_servers.clear();
  config.ask_user = true;  // the model may ask the user a question
  EXPECT_TRUE(CanPause(config));
}

}  // namespace agentgate::approval
