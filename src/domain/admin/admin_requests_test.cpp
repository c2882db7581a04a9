#include "domain/admin/admin_requests.hpp"

#include <gtest/gtest.h>
#include <boost/json/parse.hpp>

namespace agentgate {
namespace {

template <class Fn>
void ExpectFieldError(Fn parse, const std::string& json, const std::string& field) {
  auto r = parse(boost::json::parse(json));
  ASSERT_FALSE(r) << json;
  EXPECT_NE(r.error().message.find("'" + field + "'"), std::string::npos) << r.error().message;
}

}  // namespace

TEST(AdminRequests, CreateOrg) {
  auto ok = ParseCreateOrg(
      boost::json::parse(R"({"id": "acme", "name": "Acme", "monthly_spend_limit_usd": 50})"));
  ASSERT_TRUE(ok);
  EXPECT_EQ(ok->id, "acme");
  EXPECT_EQ(ok->monthly_spend_limit_usd, 50.0);
  ExpectFieldError(ParseCreateOrg, R"({"id": "a b", "name": "A"})", "id");
  ExpectFieldError(ParseCreateOrg, R"({"id": "a"})", "name");
  ExpectFieldError(ParseCreateOrg, R"({"name": 5})", "name");
  ExpectFieldError(ParseCreateOrg, R"({"name": "A", "monthly_spend_limit_usd": "10"})",
                   "monthly_spend_limit_usd");
  ExpectFieldError(ParseCreateOrg, R"({"name": "A", "monthly_spend_limit_usd": -5})",
                   "monthly_spend_limit_usd");
  ExpectFieldError(ParseCreateOrg, R"({"name": "A", "extra": 1})", "extra");
  ExpectFieldError(ParseCreateOrg, R"("org")", "body");
}

TEST(AdminRequests, SetOrgLimitRequiresTheKeyButAllowsNull) {
  auto unlimited = ParseSetOrgLimit(boost::json::parse(R"({"monthly_spend_limit_usd": null})"));
  ASSERT_TRUE(unlimited);
  EXPECT_FALSE(unlimited->monthly_spend_limit_usd);
  ExpectFieldError(ParseSetOrgLimit, "{}", "monthly_spend_limit_usd");
}

TEST(AdminRequests, TokensAndEnvironments) {
  auto t = ParseCreateToken(boost::json::parse(R"({"name": "backend", "environments": ["prod"]})"));
  ASSERT_TRUE(t);
  EXPECT_EQ(t->environments, std::vector<std::string>{"prod"});
  ExpectFieldError(ParseCreateToken, R"({"name": "b", "environments": ["Prod"]})",
                   "environments[0]");
  ExpectFieldError(ParseCreateToken, R"({"name": "b", "environments": []})", "environments");
  ExpectFieldError(ParseCreateEnvironment, R"({"name": "PROD"})", "name");
  ExpectFieldError(ParseCreateEnvironment, R"({})", "name");
  ExpectFieldError(ParseConsoleSignIn, R"({})", "admin_token");
  ExpectFieldError(ParseConsoleSignIn, R"({"admin_token": ""})", "admin_token");
  ExpectFieldError(ParseConsoleSignIn, R"({"admin_token": 7})", "admin_token");
  ExpectFieldError(ParseConsoleSignIn, R"({"admin_token": "x", "remember": true})", "remember");
}

TEST(AdminRequests, GrantsAcceptOnlyChat) {
  auto g = ParsePutGrant(
      boost::json::parse(R"({"token_id": "t", "agent_id": "a", "permissions": ["chat", "chat"]})"));
  ASSERT_TRUE(g);
  EXPECT_EQ(g->permissions, std::vector<std::string>{"chat"});
  auto revoke =
      ParsePutGrant(boost::json::parse(R"({"token_id": "t", "agent_id": "a", "permissions": []})"));
  ASSERT_TRUE(revoke);
  EXPECT_TRUE(revoke->permissions.empty());
  auto both = ParsePutGrant(boost::json::parse(
      R"({"token_id": "t", "agent_id": "a", "permissions": ["approve", "chat", "approve"]})"));
  ASSERT_TRUE(both);
  EXPECT_EQ(both->permissions, (std::vector<std::string>{"chat", "approve"}));
  auto approver = ParsePutGrant(
      boost::json::parse(R"({"token_id": "t", "agent_id": "a", "permissions": ["approve"]})"));
  ASSERT_TRUE(approver);
  EXPECT_EQ(approver->permissions, std::vector<std::string>{"approve"});
  ExpectFieldError(ParsePutGrant, R"({"token_id": "t", "agent_id": "a", "permissions": ["admin"]})",
                   "permissions[0]");
  ExpectFieldError(ParsePutGrant, R"({"token_id": "t", "agent_id": "a"})", "permissions");
}

TEST(AdminRequests, DeploymentsAndInstances) {
  ExpectFieldError(ParseSetDeployment, R"({"version": 0})", "version");
  ExpectFieldError(ParseSetDeployment, R"({"version": "1"})", "version");
  ExpectFieldError(ParseCreateInstance, R"({"instance_id": "a b"})", "instance_id");
  EXPECT_TRUE(ParseCreateInstance(boost::json::parse(R"({"instance_id": "store-42@eu"})")));
}

TEST(AdminRequests, CrmCredentialsAreRefreshTokenOrStaticSession) {
  auto refresh = ParseCrmCredentials(boost::json::parse(
      R"({"login_url": "https://login.salesforce.com", "client_id": "c", "client_secret": "s", "refresh_token": "r"})"));
  ASSERT_TRUE(refresh);
  EXPECT_FALSE(refresh->IsStatic());
  auto session = ParseCrmCredentials(boost::json::parse(
      R"({"instance_url": "https://acme.my.salesforce.com", "access_token": "00D!x"})"));
  ASSERT_TRUE(session);
  EXPECT_TRUE(session->IsStatic());
  ExpectFieldError(ParseCrmCredentials,
                   R"({"login_url": "ftp://x", "client_id": "c", "refresh_token": "r"})",
                   "login_url");
  ExpectFieldError(ParseCrmCredentials, R"({"client_id": "c", "refresh_token": "r"})", "login_url");
  ExpectFieldError(ParseCrmCredentials, R"({})", "refresh_token");
  ExpectFieldError(ParseCrmCredentials, R"({"instance_url": "https://x"})", "access_token");
  auto round = DeserializeCrmCredentials(SerializeCrmCredentials(*refresh));
  ASSERT_TRUE(round);
  EXPECT_EQ(round->refresh_token, "r");
  EXPECT_EQ(round->client_secret, "s");
}

TEST(AdminRequests, CrmUrlsAreHttpsUnlessTheOperatorAllowsHttp) {
  EXPECT_TRUE(IsAllowedCrmUrl("https://acme.my.salesforce.com", false));
  EXPECT_FALSE(IsAllowedCrmUrl("http://acme.my.salesforce.com", false));
  EXPECT_TRUE(IsAllowedCrmUrl("http://127.0.0.1:8000", true));
  EXPECT_FALSE(IsAllowedCrmUrl("https://", true));
  EXPECT_FALSE(IsAllowedCrmUrl("ftp://x", true));
  EXPECT_FALSE(IsAllowedCrmUrl("HTTPS://x", false));  // lower-case schemes only
  CrmCredentials c;
  c.login_url = "http://login.example";
  auto refused = CheckCrmUrls(c, false);
  ASSERT_FALSE(refused);
  EXPECT_NE(refused.error().message.find("'login_url'"), std::string::npos);
  EXPECT_TRUE(CheckCrmUrls(c, true));
  c.login_url = "https://login.example";
  c.instance_url = "http://acme.example";
  refused = CheckCrmUrls(c, false);
  ASSERT_FALSE(refused);
  EXPECT_NE(refused.error().message.find("'instance_url'"), std::string::npos);
}

TEST(AdminRequests, IsoDaysAreUtcMidnightsAndBadOnesNameTheField) {
  EXPECT_EQ(ParseIsoDay("1970-01-02", "since").value(), 86'400'000);
  EXPECT_EQ(ParseIsoDay("2024-02-29", "since").value(), 1709164800000);
  for (const char* bad : {"2023-02-29", "2024-13-01", "2024-1-01", "24-01-01x", "", "2024/01/01"}) {
    auto r = ParseIsoDay(bad, "until");
    ASSERT_FALSE(r) << bad;
    EXPECT_NE(r.error().message.find("'until'"), std::string::npos) << r.error().message;
  }
}

}  // namespace agentgate
