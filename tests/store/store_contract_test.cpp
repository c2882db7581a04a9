// One store suite, every backend: each test states a store operation's meaning.
#include "store/store_backends.hpp"

#include "adapters/store_common/run_event_log.hpp"

#include <gtest/gtest.h>

#include <tuple>

#include <atomic>
#include <optional>
#include <thread>

namespace agentgate::testing {
namespace {

template <class Backend>
class StoreContract : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!Backend::Available())
      GTEST_SKIP() << "no PostgreSQL: set AGENTGATE_TEST_POSTGRES_URL (make test does)";
    store_ = backend_.Open();
    ASSERT_TRUE(store_->CreateOrg(OrgRecord{"acme", "Acme", std::nullopt, 1}));
    ASSERT_TRUE(store_->CreateEnvironment("acme", "prod"));
  }
  Backend backend_;
  std::unique_ptr<Store> store_;
};

using Backends = ::testing::Types<SqliteBackend, PostgresBackend>;
TYPED_TEST_SUITE(StoreContract, Backends);

TurnRecord Turn(std::string id, std::string conversation_id = "", std::int64_t started_at_ms = 1) {
  return TurnRecord{std::move(id),
                    std::move(conversation_id),
                    "acme",
                    "prod",
                    "bot",
                    1,
                    started_at_ms,
                    1,
                    "",
                    false,
                    1,
                    1,
                    1,
                    0.0,
                    "[]"};
}

// A turn that answers `key` (claimed at `claimed_at_ms`) with `body`, replayed until `expires`.
TurnCommit Answering(const IdempotencyScope& key, std::int64_t claimed_at_ms, std::string body,
                     std::int64_t expires, std::string turn_id = "t-answer") {
  TurnCommit commit;
  commit.turn = Turn(std::move(turn_id));
  commit.idempotency = IdempotencyCompletion{key, claimed_at_ms, 200, std::move(body), expires};
  return commit;
}

// One model call's real cost, for acme's bot in `month`, taking `part` off its reservation (by
// default as much as it cost).
SpendSettlement Cost(const std::string& reservation_id, double usd, std::int64_t input = 1,
                     std::int64_t output = 1, const std::string& month = "2026-11",
                     std::optional<double> part = std::nullopt) {
  return SpendSettlement{reservation_id, usd,   input, output,
                         "acme",         "bot", month, part.value_or(usd)};
}

// A stateless turn that settles `settlements`.
TurnCommit Settling(std::string turn_id, std::vector<SpendSettlement> settlements) {
  TurnCommit commit;
  commit.turn = Turn(std::move(turn_id));
  commit.settlements = std::move(settlements);
  return commit;
}

TurnCommit Appending(std::string turn_id, const std::string& conversation, std::int64_t at_ms,
                     bool creates) {
  TurnCommit commit;
  commit.turn = Turn(std::move(turn_id), conversation, at_ms);
  commit.messages = {MessageRecord{0, "user", "hello", at_ms}};
  if (creates)
    commit.new_conversation = ConversationRecord{conversation, "acme", "prod", "bot", "", at_ms};
  return commit;
}

TYPED_TEST(StoreContract, OrgsAreCreatedOnceAndTheirLimitChanges) {
  auto& s = *this->store_;
  auto dup = s.CreateOrg(OrgRecord{"acme", "Again", std::nullopt, 2});
  ASSERT_FALSE(dup);
  EXPECT_EQ(dup.error().code, ErrorCode::kConflict);
  EXPECT_EQ(s.GetOrg("acme").value()->name, "Acme");
  EXPECT_FALSE(s.GetOrg("nope").value());
  EXPECT_TRUE(s.SetOrgSpendLimit("acme", 12.5).value());
  EXPECT_EQ(s.GetOrg("acme").value()->monthly_spend_limit_usd, 12.5);
  EXPECT_TRUE(s.SetOrgSpendLimit("acme", std::nullopt).value());
  EXPECT_FALSE(s.GetOrg("acme").value()->monthly_spend_limit_usd);
  EXPECT_FALSE(s.SetOrgSpendLimit("nope", 1.0).value());
  EXPECT_EQ(s.CountOrgs().value(), 1);
}

TYPED_TEST(StoreContract, EnvironmentsAreScopedToTheirOrg) {
  auto& s = *this->store_;
  EXPECT_TRUE(s.HasEnvironment("acme", "prod").value());
  EXPECT_FALSE(s.HasEnvironment("acme", "dev").value());
  EXPECT_EQ(s.CreateEnvironment("acme", "prod").error().code, ErrorCode::kConflict);
  ASSERT_TRUE(s.CreateOrg(OrgRecord{"other", "Other", std::nullopt, 1}));
  EXPECT_FALSE(s.HasEnvironment("other", "prod").value());
}

TYPED_TEST(StoreContract, TokensKeepTheirHashEnvironmentsAndRevocation) {
  auto& s = *this->store_;
  const std::string hash("\x00\x01\xff\x7f", 4);
  ASSERT_TRUE(s.CreateToken(TokenRecord{"t1", "acme", "backend", hash, {"prod", "dev"}, 5, false}));
  auto t = s.GetToken("t1").value();
  ASSERT_TRUE(t);
  EXPECT_EQ(t->secret_hash, hash);
  EXPECT_EQ(t->environments, (std::vector<std::string>{"prod", "dev"}));
  EXPECT_FALSE(t->revoked);
  EXPECT_FALSE(s.RevokeToken("other-org", "t1").value());
  EXPECT_TRUE(s.RevokeToken("acme", "t1").value());
  EXPECT_TRUE(s.GetToken("t1").value()->revoked);
  EXPECT_FALSE(s.GetToken("t2").value());
}

TYPED_TEST(StoreContract, OAuthClientsKeepTheirHashAreListedPerEnvironmentAndDeleted) {
  auto& s = *this->store_;
  const std::string hash("\x00\x01\xff\x7f", 4);
  ASSERT_TRUE(
      s.CreateOAuthClient(OAuthClientRecord{"agc_1", "acme", "prod", "t1", "Agentforce", hash, 5}));
  ASSERT_TRUE(
      s.CreateOAuthClient(OAuthClientRecord{"agc_2", "acme", "prod", "t2", "Claude", hash, 9}));
  ASSERT_TRUE(s.CreateOAuthClient(OAuthClientRecord{"agc_3", "acme", "dev", "t1", "Dev", hash, 7}));
  auto found = s.GetOAuthClient("agc_1").value();
  ASSERT_TRUE(found);
  EXPECT_EQ(found->secret_hash, hash);
  EXPECT_EQ(found->token_id, "t1");
  EXPECT_EQ(found->env, "prod");
  auto listed = s.ListOAuthClients("acme", "prod", 10).value();
  ASSERT_EQ(listed.size(), 2u);
  EXPECT_EQ(listed[0].id, "agc_2");  // newest first
  EXPECT_EQ(listed[0].name, "Claude");
  EXPECT_TRUE(listed[0].secret_hash.empty());  // hashes stay in the store
  EXPECT_EQ(s.ListOAuthClients("acme", "prod", 1).value().size(), 1u);
  EXPECT_TRUE(s.ListOAuthClients("other", "prod", 10).value().empty());
  // Only its own environment deletes it, and then nothing of it is left.
  EXPECT_FALSE(s.DeleteOAuthClient("acme", "dev", "agc_1").value());
  EXPECT_TRUE(s.DeleteOAuthClient("acme", "prod", "agc_1").value());
  EXPECT_FALSE(s.GetOAuthClient("agc_1").value());
  EXPECT_FALSE(s.DeleteOAuthClient("acme", "prod", "agc_1").value());
  EXPECT_EQ(s.ListOAuthClients("acme", "prod", 10).value().size(), 1u);
}

TYPED_TEST(StoreContract, ASigningKeyIsAddedOnceOnFirstUseRotatedAndPurgedOnceRetiredLongEnough) {
  auto& s = *this->store_;
  const std::string sealed("\x01\x00\xfe", 3);
  const std::string point(65, '\x04');
  EXPECT_TRUE(s.ListSigningKeys().value().empty());
  ASSERT_TRUE(s.AddSigningKey(SigningKeyRecord{"k1", sealed, point, 100, 0}, true).value());
  // A second first use (another server's) adds nothing.
  EXPECT_FALSE(s.AddSigningKey(SigningKeyRecord{"k2", sealed, point, 150, 0}, true).value());
  auto keys = s.ListSigningKeys().value();
  ASSERT_EQ(keys.size(), 1u);
  EXPECT_EQ(keys[0].kid, "k1");
  EXPECT_EQ(keys[0].sealed_private, sealed);
  EXPECT_EQ(keys[0].public_point, point);
  EXPECT_EQ(keys[0].retired_at_ms, 0);
  // A rotation retires the current key at the new one's creation.
  ASSERT_TRUE(s.AddSigningKey(SigningKeyRecord{"k3", sealed, point, 200, 0}, false).value());
  ASSERT_TRUE(s.AddSigningKey(SigningKeyRecord{"k4", sealed, point, 300, 0}, false).value());
  keys = s.ListSigningKeys().value();
  ASSERT_EQ(keys.size(), 3u);
  EXPECT_EQ(keys[0].kid, "k4");  // newest first
  EXPECT_EQ(keys[0].retired_at_ms, 0);
  EXPECT_EQ(keys[1].kid, "k3");
  EXPECT_EQ(keys[1].retired_at_ms, 300);
  EXPECT_EQ(keys[2].retired_at_ms, 200);
  // Only keys retired before the cut are purged, never the current one.
  EXPECT_EQ(s.PurgeSigningKeys(250).value(), 1);
  EXPECT_EQ(s.PurgeSigningKeys(1000).value(), 1);
  keys = s.ListSigningKeys().value();
  ASSERT_EQ(keys.size(), 1u);
  EXPECT_EQ(keys[0].kid, "k4");
  // An operator's revocation deletes a key at once, the current one too.
  EXPECT_FALSE(s.DeleteSigningKey("k1").value());
  EXPECT_TRUE(s.DeleteSigningKey("k4").value());
  EXPECT_TRUE(s.ListSigningKeys().value().empty());
}

TYPED_TEST(StoreContract, OperatorListsArePagedOrderedAndScopedToTheirOrg) {
  auto& s = *this->store_;
  ASSERT_TRUE(s.CreateOrg(OrgRecord{"zeta", "Zeta", 7.5, 3}));
  ASSERT_TRUE(s.CreateOrg(OrgRecord{"beta", "Beta", std::nullopt, 2}));
  auto first = s.ListOrgs("", 2).value();
  ASSERT_EQ(first.size(), 2u);
  EXPECT_EQ(first[0].id, "acme");
  EXPECT_EQ(first[1].id, "beta");
  auto next = s.ListOrgs(first.back().id, 2).value();
  ASSERT_EQ(next.size(), 1u);
  EXPECT_EQ(next[0].id, "zeta");
  EXPECT_EQ(next[0].monthly_spend_limit_usd, 7.5);
  EXPECT_TRUE(s.ListOrgs("zeta", 2).value().empty());

  ASSERT_TRUE(s.CreateEnvironment("acme", "dev"));
  ASSERT_TRUE(s.CreateEnvironment("zeta", "qa"));
  EXPECT_EQ(s.ListEnvironments("acme").value(), (std::vector<std::string>{"dev", "prod"}));
  EXPECT_TRUE(s.ListEnvironments("beta").value().empty());

  ASSERT_TRUE(s.CreateToken(TokenRecord{"t1", "acme", "old", "h1", {"prod"}, 5, false}));
  ASSERT_TRUE(s.CreateToken(TokenRecord{"t2", "acme", "new", "h2", {}, 9, false}));
  ASSERT_TRUE(s.CreateToken(TokenRecord{"t3", "zeta", "theirs", "h3", {}, 7, false}));
  ASSERT_TRUE(s.RevokeToken("acme", "t1").value());
  auto tokens = s.ListTokens("acme", 10).value();
  ASSERT_EQ(tokens.size(), 2u);
  EXPECT_EQ(tokens[0].id, "t2");  // newest first
  EXPECT_EQ(tokens[1].id, "t1");
  EXPECT_TRUE(tokens[1].revoked);
  EXPECT_EQ(tokens[1].environments, std::vector<std::string>{"prod"});
  EXPECT_EQ(tokens[1].created_at_ms, 5);
  EXPECT_TRUE(tokens[0].secret_hash.empty());  // a list never carries a secret's hash
  EXPECT_EQ(s.ListTokens("acme", 1).value().size(), 1u);
}

TYPED_TEST(StoreContract, GrantsAreReplacedAndAnEmptyListRemovesThem) {
  auto& s = *this->store_;
  ASSERT_TRUE(s.CreateToken(TokenRecord{"t1", "acme", "b", "h", {}, 1, false}));
  EXPECT_TRUE(s.GetGrant("t1", "bot").value().empty());
  ASSERT_TRUE(s.PutGrant("acme", "t1", "bot", {"chat"}));
  EXPECT_EQ(s.GetGrant("t1", "bot").value(), std::vector<std::string>{"chat"});
  ASSERT_TRUE(s.PutGrant("acme", "t1", "bot", {}));
  EXPECT_TRUE(s.GetGrant("t1", "bot").value().empty());
}

TYPED_TEST(StoreContract, EnvironmentGrantsAreReplacedListedAndAnEmptyListRemovesThem) {
  auto& s = *this->store_;
  ASSERT_TRUE(s.CreateEnvironment("acme", "dev"));
  ASSERT_TRUE(s.CreateToken(TokenRecord{"t1", "acme", "b", "h", {}, 1, false}));
  ASSERT_TRUE(s.CreateToken(TokenRecord{"t2", "acme", "c", "h", {}, 1, false}));
  EXPECT_TRUE(s.GetEnvironmentGrant("t1", "prod").value().empty());
  ASSERT_TRUE(s.PutEnvironmentGrant("acme", "prod", "t1", {"metadata_read"}));
  ASSERT_TRUE(s.PutEnvironmentGrant("acme", "prod", "t1", {"metadata_read", "metadata_write"}));
  ASSERT_TRUE(s.PutEnvironmentGrant("acme", "prod", "t2", {"metadata_read"}));
  ASSERT_TRUE(s.PutEnvironmentGrant("acme", "dev", "t2", {"metadata_write"}));
  EXPECT_EQ(s.GetEnvironmentGrant("t1", "prod").value(),
            (std::vector<std::string>{"metadata_read", "metadata_write"}));
  EXPECT_TRUE(s.GetEnvironmentGrant("t1", "dev").value().empty());  // per environment
  const auto prod = s.ListEnvironmentGrants("acme", "prod", 10).value();
  ASSERT_EQ(prod.size(), 2u);
  EXPECT_EQ(prod[0].token_id, "t1");
  EXPECT_EQ(prod[0].env, "prod");
  EXPECT_EQ(prod[1].token_id, "t2");
  EXPECT_EQ(prod[1].permissions, std::vector<std::string>{"metadata_read"});
  EXPECT_EQ(s.ListEnvironmentGrants("acme", "prod", 1).value().size(), 1u);  // bounded
  ASSERT_TRUE(s.PutEnvironmentGrant("acme", "prod", "t1", {}));
  EXPECT_TRUE(s.GetEnvironmentGrant("t1", "prod").value().empty());
  EXPECT_EQ(s.ListEnvironmentGrants("acme", "prod", 10).value().size(), 1u);
  EXPECT_EQ(s.GetEnvironmentGrant("t2", "dev").value(), std::vector<std::string>{"metadata_write"});
}

TYPED_TEST(StoreContract, AgentVersionsAreNumberedAndDeploymentsPointAtThem) {
  auto& s = *this->store_;
  ASSERT_TRUE(s.CreateAgent(AgentVersionRecord{"acme", "bot", 1, R"({"v":1})", 1}));
  EXPECT_EQ(s.CreateAgent(AgentVersionRecord{"acme", "bot", 1, "{}", 1}).error().code,
            ErrorCode::kConflict);
  EXPECT_EQ(s.AddAgentVersion("acme", "bot", R"({"v":2})", 2).value(), 2);
  EXPECT_FALSE(s.AddAgentVersion("acme", "ghost", "{}", 2).value());
  EXPECT_EQ(s.GetAgentVersion("acme", "bot", 1).value()->config_json, R"({"v":1})");
  EXPECT_EQ(s.GetAgentVersion("acme", "bot", 2).value()->config_json, R"({"v":2})");
  EXPECT_FALSE(s.GetAgentVersion("acme", "bot", 3).value());
  EXPECT_FALSE(s.GetDeployment("acme", "bot", "prod").value());
  ASSERT_TRUE(s.SetDeployment("acme", "bot", "prod", 1));
  ASSERT_TRUE(s.SetDeployment("acme", "bot", "prod", 2));
  EXPECT_EQ(s.GetDeployment("acme", "bot", "prod").value(), 2);
  EXPECT_EQ(s.SetDeployment("acme", "bot", "prod", 9).error().code, ErrorCode::kNotFound);
  EXPECT_EQ(s.GetDeployment("acme", "bot", "prod").value(), 2);
}

TYPED_TEST(StoreContract, ADeploymentIsMarkedDiscoverableAndKeepsItAcrossRedeploys) {
  auto& s = *this->store_;
  ASSERT_TRUE(s.CreateAgent(AgentVersionRecord{"acme", "bot", 1, R"({"v":1})", 1}));
  ASSERT_TRUE(s.AddAgentVersion("acme", "bot", R"({"v":2})", 2));
  // Not deployed: nothing to mark, and nothing is discoverable.
  EXPECT_FALSE(s.SetA2aDiscoverable("acme", "bot", "prod", true).value());
  EXPECT_FALSE(s.IsA2aDiscoverable("acme", "bot", "prod").value());
  ASSERT_TRUE(s.SetDeployment("acme", "bot", "prod", 1));
  EXPECT_FALSE(s.IsA2aDiscoverable("acme", "bot", "prod").value());
  EXPECT_TRUE(s.SetA2aDiscoverable("acme", "bot", "prod", true).value());
  EXPECT_TRUE(s.IsA2aDiscoverable("acme", "bot", "prod").value());
  ASSERT_TRUE(s.SetDeployment("acme", "bot", "prod", 2));
  EXPECT_TRUE(s.IsA2aDiscoverable("acme", "bot", "prod").value());
  EXPECT_FALSE(s.IsA2aDiscoverable("acme", "bot", "dev").value());
  EXPECT_TRUE(s.SetA2aDiscoverable("acme", "bot", "prod", false).value());
  EXPECT_FALSE(s.IsA2aDiscoverable("acme", "bot", "prod").value());
}

TYPED_TEST(StoreContract, AnOrgsAgentsAreListedWithTheirVersionsDeploymentsGrantsAndInstances) {
  auto& s = *this->store_;
  ASSERT_TRUE(s.CreateOrg(OrgRecord{"other", "Other", std::nullopt, 1}));
  ASSERT_TRUE(s.CreateEnvironment("other", "prod"));
  ASSERT_TRUE(s.CreateEnvironment("acme", "dev"));
  ASSERT_TRUE(s.CreateAgent(AgentVersionRecord{"acme", "zed", 1, R"({"z":1})", 1}));
  ASSERT_TRUE(s.CreateAgent(AgentVersionRecord{"acme", "bot", 1, R"({"v":1})", 2}));
  ASSERT_TRUE(s.AddAgentVersion("acme", "bot", R"({"v":2})", 3));
  ASSERT_TRUE(s.AddAgentVersion("acme", "bot", R"({"v":3})", 4));
  ASSERT_TRUE(s.CreateAgent(AgentVersionRecord{"other", "bot", 1, R"({"o":1})", 5}));

  auto agents = s.ListAgents("acme", 10).value();
  ASSERT_EQ(agents.size(), 2u);
  EXPECT_EQ(agents[0].agent_id, "bot");  // by id, each at its latest version
  EXPECT_EQ(agents[0].version, 3);
  EXPECT_EQ(agents[0].config_json, R"({"v":3})");
  EXPECT_EQ(agents[1].agent_id, "zed");
  EXPECT_EQ(s.ListAgents("acme", 1).value().size(), 1u);

  auto versions = s.ListAgentVersions("acme", "bot", 2).value();
  ASSERT_EQ(versions.size(), 2u);
  EXPECT_EQ(versions[0].version, 3);  // newest first
  EXPECT_EQ(versions[1].version, 2);
  EXPECT_EQ(versions[1].created_at_ms, 3);
  EXPECT_TRUE(s.ListAgentVersions("acme", "ghost", 5).value().empty());

  ASSERT_TRUE(s.SetDeployment("acme", "bot", "prod", 2));
  ASSERT_TRUE(s.SetDeployment("acme", "bot", "dev", 3));
  ASSERT_TRUE(s.SetDeployment("acme", "zed", "prod", 1));
  ASSERT_TRUE(s.SetDeployment("other", "bot", "prod", 1));
  auto deployments = s.ListDeployments("acme").value();
  ASSERT_EQ(deployments.size(), 3u);
  EXPECT_EQ(deployments[0].agent_id + "/" + deployments[0].env, "bot/dev");
  EXPECT_EQ(deployments[0].version, 3);
  EXPECT_EQ(deployments[1].agent_id + "/" + deployments[1].env, "bot/prod");
  EXPECT_EQ(deployments[2].agent_id, "zed");

  ASSERT_TRUE(s.CreateToken(TokenRecord{"t2", "acme", "b", "h2", {}, 1, false}));
  ASSERT_TRUE(s.CreateToken(TokenRecord{"t1", "acme", "a", "h1", {}, 1, false}));
  ASSERT_TRUE(s.CreateToken(TokenRecord{"t9", "other", "o", "h9", {}, 1, false}));
  ASSERT_TRUE(s.PutGrant("acme", "t2", "bot", {"chat"}));
  ASSERT_TRUE(s.PutGrant("acme", "t1", "bot", {"chat"}));
  ASSERT_TRUE(s.PutGrant("acme", "t1", "zed", {"chat"}));
  ASSERT_TRUE(s.PutGrant("other", "t9", "bot", {"chat"}));
  auto grants = s.ListGrants("acme", "bot", 10).value();
  ASSERT_EQ(grants.size(), 2u);
  EXPECT_EQ(grants[0].token_id, "t1");
  EXPECT_EQ(grants[1].token_id, "t2");
  EXPECT_EQ(grants[1].permissions, std::vector<std::string>{"chat"});
  ASSERT_TRUE(s.PutGrant("acme", "t2", "bot", {}));
  EXPECT_EQ(s.ListGrants("acme", "bot", 10).value().size(), 1u);

  ASSERT_TRUE(s.CreateInstance(InstanceRecord{"acme", "bot", "store-2", "North"}));
  ASSERT_TRUE(s.CreateInstance(InstanceRecord{"acme", "bot", "store-1", ""}));
  ASSERT_TRUE(s.CreateInstance(InstanceRecord{"other", "bot", "store-9", ""}));
  auto instances = s.ListInstances("acme", "bot", 10).value();
  ASSERT_EQ(instances.size(), 2u);
  EXPECT_EQ(instances[0].instance_id, "store-1");
  EXPECT_EQ(instances[1].instructions, "North");
  EXPECT_EQ(s.ListInstances("acme", "bot", 1).value().size(), 1u);
}

TYPED_TEST(StoreContract, CrmCredentialStatusShowsWhenSetAndHowTheLastRefreshWent) {
  auto& s = *this->store_;
  EXPECT_FALSE(s.GetCrmCredentialStatus("acme", "prod").value());
  ASSERT_TRUE(s.RecordCrmRefresh("acme", "prod", 5, ""));  // no credentials: nothing to record
  EXPECT_FALSE(s.GetCrmCredentialStatus("acme", "prod").value());
  ASSERT_TRUE(s.PutCrmCredential(CrmCredentialRecord{"acme", "prod", "sealed-1", 100, 0}));
  auto status = s.GetCrmCredentialStatus("acme", "prod").value();
  ASSERT_TRUE(status);
  EXPECT_EQ(status->set_at_ms, 100);
  EXPECT_FALSE(status->last_refresh_at_ms);
  ASSERT_TRUE(s.RecordCrmRefresh("acme", "prod", 200, "invalid_grant: expired"));
  status = s.GetCrmCredentialStatus("acme", "prod").value();
  EXPECT_EQ(status->last_refresh_at_ms, 200);
  EXPECT_EQ(status->last_refresh_error, "invalid_grant: expired");
  // A refresh that saves its session moves the version, not the time the operator set them.
  ASSERT_TRUE(s.SaveRefreshedCrmCredential(CrmCredentialRecord{"acme", "prod", "sealed-2", 300, 0},
                                           status->version)
                  .value());
  ASSERT_TRUE(s.RecordCrmRefresh("acme", "prod", 300, ""));
  status = s.GetCrmCredentialStatus("acme", "prod").value();
  EXPECT_EQ(status->set_at_ms, 100);
  EXPECT_EQ(status->last_refresh_error, "");
  EXPECT_EQ(status->last_refresh_at_ms, 300);
  // New credentials start over: set now, no refresh yet.
  ASSERT_TRUE(s.PutCrmCredential(CrmCredentialRecord{"acme", "prod", "sealed-3", 400, 0}));
  status = s.GetCrmCredentialStatus("acme", "prod").value();
  EXPECT_EQ(status->set_at_ms, 400);
  EXPECT_FALSE(status->last_refresh_at_ms);
  EXPECT_FALSE(s.GetCrmCredentialStatus("acme", "dev").value());
}

TYPED_TEST(StoreContract, DeployedVersionsAreListedOnce) {
  auto& s = *this->store_;
  ASSERT_TRUE(s.CreateEnvironment("acme", "dev"));
  ASSERT_TRUE(s.CreateAgent(AgentVersionRecord{"acme", "bot", 1, R"({"v":1})", 1}));
  ASSERT_TRUE(s.AddAgentVersion("acme", "bot", R"({"v":2})", 2));
  ASSERT_TRUE(s.CreateAgent(AgentVersionRecord{"acme", "idle", 1, "{}", 1}));
  EXPECT_TRUE(s.ListDeployedVersions().value().empty());
  ASSERT_TRUE(s.SetDeployment("acme", "bot", "prod", 2));
  ASSERT_TRUE(s.SetDeployment("acme", "bot", "dev", 2));
  auto deployed = s.ListDeployedVersions().value();
  ASSERT_EQ(deployed.size(), 1u);
  EXPECT_EQ(deployed[0].version, 2);
  EXPECT_EQ(deployed[0].config_json, R"({"v":2})");
}

TYPED_TEST(StoreContract, ChatAgentsAreTheDeployedVersionsATokenHasAChatGrantOn) {
  auto& s = *this->store_;
  ASSERT_TRUE(s.CreateEnvironment("acme", "dev"));
  ASSERT_TRUE(s.CreateToken(TokenRecord{"t1", "acme", "b", "h", {}, 1, false}));
  ASSERT_TRUE(s.CreateToken(TokenRecord{"t2", "acme", "b", "h", {}, 1, false}));
  ASSERT_TRUE(s.CreateAgent(AgentVersionRecord{"acme", "bot", 1, R"({"v":1})", 1}));
  ASSERT_TRUE(s.AddAgentVersion("acme", "bot", R"({"v":2})", 2));
  ASSERT_TRUE(s.CreateAgent(AgentVersionRecord{"acme", "aide", 1, R"({"a":1})", 1}));
  ASSERT_TRUE(s.CreateAgent(AgentVersionRecord{"acme", "ungranted", 1, "{}", 1}));
  ASSERT_TRUE(s.SetDeployment("acme", "bot", "prod", 2));
  ASSERT_TRUE(s.SetDeployment("acme", "bot", "dev", 1));
  ASSERT_TRUE(s.SetDeployment("acme", "aide", "prod", 1));
  ASSERT_TRUE(s.SetDeployment("acme", "ungranted", "prod", 1));
  ASSERT_TRUE(s.PutGrant("acme", "t1", "bot", {"chat"}));
  ASSERT_TRUE(s.PutGrant("acme", "t1", "aide", {"chat"}));
  ASSERT_TRUE(s.PutGrant("acme", "t2", "ungranted", {"chat"}));
  auto prod = s.ListChatAgents("acme", "prod", "t1").value();
  ASSERT_EQ(prod.size(), 2u);
  EXPECT_EQ(prod[0].agent_id, "aide");
  EXPECT_EQ(prod[1].agent_id, "bot");
  EXPECT_EQ(prod[1].config_json, R"({"v":2})");  // the version prod runs
  EXPECT_EQ(s.ListChatAgents("acme", "dev", "t1").value().at(0).config_json, R"({"v":1})");
  ASSERT_TRUE(s.PutGrant("acme", "t1", "aide", {}));  // revoked
  EXPECT_EQ(s.ListChatAgents("acme", "prod", "t1").value().size(), 1u);
  EXPECT_TRUE(s.ListChatAgents("other", "prod", "t1").value().empty());
}

TYPED_TEST(StoreContract, InstancesBelongToTheirAgent) {
  auto& s = *this->store_;
  ASSERT_TRUE(s.CreateAgent(AgentVersionRecord{"acme", "bot", 1, "{}", 1}));
  ASSERT_TRUE(s.CreateInstance(InstanceRecord{"acme", "bot", "store-1", "Be brief."}));
  EXPECT_EQ(s.CreateInstance(InstanceRecord{"acme", "bot", "store-1", "x"}).error().code,
            ErrorCode::kConflict);
  EXPECT_EQ(s.GetInstance("acme", "bot", "store-1").value()->instructions, "Be brief.");
  EXPECT_FALSE(s.GetInstance("acme", "other", "store-1").value());
}

TYPED_TEST(StoreContract, CrmCredentialsAreReplacedPerEnvironment) {
  auto& s = *this->store_;
  EXPECT_FALSE(s.HasAnySealedSecret().value());
  ASSERT_TRUE(
      s.PutCrmCredential(CrmCredentialRecord{"acme", "prod", std::string("sealed\0one", 10), 1}));
  ASSERT_TRUE(s.PutCrmCredential(CrmCredentialRecord{"acme", "prod", "sealed-two", 2}));
  EXPECT_EQ(s.GetCrmCredential("acme", "prod").value()->sealed, "sealed-two");
  EXPECT_FALSE(s.GetCrmCredential("acme", "dev").value());
  EXPECT_TRUE(s.HasAnySealedSecret().value());
}

TYPED_TEST(StoreContract, ToolSecretsAreReplacedListedWithoutValuesAndDeleted) {
  auto& s = *this->store_;
  ASSERT_TRUE(s.CreateOrg(OrgRecord{"beta", "Beta", std::nullopt, 1}));
  EXPECT_FALSE(s.HasAnySealedSecret().value());
  ASSERT_TRUE(s.PutToolSecret(ToolSecretRecord{"acme", "docs_key", std::string("v\0one", 5), 1}));
  ASSERT_TRUE(s.PutToolSecret(ToolSecretRecord{"acme", "docs_key", "sealed-two", 2}));
  ASSERT_TRUE(s.PutToolSecret(ToolSecretRecord{"acme", "crm_key", "sealed-three", 3}));
  ASSERT_TRUE(s.PutToolSecret(ToolSecretRecord{"beta", "docs_key", "beta's", 4}));
  EXPECT_TRUE(s.HasAnySealedSecret().value());
  EXPECT_EQ(s.GetToolSecret("acme", "docs_key").value()->sealed, "sealed-two");
  EXPECT_EQ(s.GetToolSecret("beta", "docs_key").value()->sealed, "beta's");
  EXPECT_FALSE(s.GetToolSecret("acme", "nope").value());
  auto listed = s.ListToolSecrets("acme").value();
  ASSERT_EQ(listed.size(), 2u);
  EXPECT_EQ(listed[0].name, "crm_key");
  EXPECT_EQ(listed[1].updated_at_ms, 2);
  EXPECT_TRUE(listed[0].sealed.empty());
  EXPECT_TRUE(s.DeleteToolSecret("acme", "docs_key").value());
  EXPECT_FALSE(s.DeleteToolSecret("acme", "docs_key").value());
  EXPECT_FALSE(s.GetToolSecret("acme", "docs_key").value());
  EXPECT_TRUE(s.GetToolSecret("beta", "docs_key").value());
}

TYPED_TEST(StoreContract, EveryCrmCredentialWriteMakesANewVersion) {
  auto& s = *this->store_;
  EXPECT_FALSE(s.GetCrmCredentialVersion("acme", "prod").value());
  const std::int64_t first = s.PutCrmCredential({"acme", "prod", "operator-1", 1}).value();
  EXPECT_EQ(s.GetCrmCredentialVersion("acme", "prod").value(), first);
  EXPECT_EQ(s.GetCrmCredential("acme", "prod").value()->version, first);
  // A refresh saves over the version it loaded...
  const auto refreshed = s.SaveRefreshedCrmCredential({"acme", "prod", "refreshed-1", 2}, first);
  ASSERT_TRUE(refreshed.value());
  EXPECT_GT(*refreshed.value(), first);
  EXPECT_EQ(s.GetCrmCredential("acme", "prod").value()->sealed, "refreshed-1");
  // ...but never over credentials the operator replaced while it ran.
  const std::int64_t replaced = s.PutCrmCredential({"acme", "prod", "operator-2", 3}).value();
  EXPECT_GT(replaced, *refreshed.value());
  EXPECT_FALSE(
      s.SaveRefreshedCrmCredential({"acme", "prod", "stale-refresh", 4}, *refreshed.value())
          .value());
  const auto stored = s.GetCrmCredential("acme", "prod").value();
  EXPECT_EQ(stored->sealed, "operator-2");
  EXPECT_EQ(stored->version, replaced);
  EXPECT_FALSE(s.SaveRefreshedCrmCredential({"acme", "dev", "nothing", 5}, 1).value());
  EXPECT_FALSE(s.GetCrmCredential("acme", "dev").value());
}

TYPED_TEST(StoreContract, OneServerAtATimeMayRefreshACredential) {
  auto& s = *this->store_;
  EXPECT_TRUE(s.ClaimCrmRefresh("acme", "prod", "server-a", 1000, 30000).value());
  EXPECT_TRUE(
      s.ClaimCrmRefresh("acme", "prod", "server-a", 2000, 30000).value());  // its own: renewed
  EXPECT_FALSE(s.ClaimCrmRefresh("acme", "prod", "server-b", 2000, 30000).value());
  EXPECT_TRUE(
      s.ClaimCrmRefresh("acme", "dev", "server-b", 2000, 30000).value());  // another credential
  EXPECT_TRUE(
      s.ClaimCrmRefresh("acme", "prod", "server-b", 32000, 30000).value());  // expired: taken over
  ASSERT_TRUE(s.ReleaseCrmRefresh("acme", "prod", "server-a"));  // not the holder: no effect
  EXPECT_FALSE(s.ClaimCrmRefresh("acme", "prod", "server-a", 33000, 30000).value());
  ASSERT_TRUE(s.ReleaseCrmRefresh("acme", "prod", "server-b"));
  EXPECT_TRUE(s.ClaimCrmRefresh("acme", "prod", "server-a", 33000, 30000).value());
}

TYPED_TEST(StoreContract, TurnsOnAConversationRunInTicketOrderAndDeadTicketsExpire) {
  auto& s = *this->store_;
  const auto first = s.EnqueueTurn("c1", 10000, "server-a").value();
  const auto second = s.EnqueueTurn("c1", 20000, "server-b").value();
  const auto other = s.EnqueueTurn("c2", 20000, "server-b").value();
  EXPECT_LT(first, second);
  EXPECT_TRUE(s.IsTurnAtHead("c1", first, 1000, "server-a").value());
  EXPECT_FALSE(s.IsTurnAtHead("c1", second, 1000, "server-b").value());  // a's is older
  EXPECT_TRUE(s.IsTurnAtHead("c2", other, 1000, "server-b").value());
  EXPECT_TRUE(s.IsTurnAtHead("c1", second, 10000, "server-b").value());  // a's expired
  ASSERT_TRUE(s.DequeueTurn(first));
  EXPECT_TRUE(s.IsTurnAtHead("c1", second, 1000, "server-b").value());
}

TYPED_TEST(StoreContract, AServersOwnTicketsNeverHoldItUp) {
  // A server orders its own turns in memory: its own older ticket (one it could not delete, its
  // disk full) never holds up its next turn; another server's turn still waits for it.
  auto& s = *this->store_;
  ASSERT_TRUE(s.EnqueueTurn("c1", 100000, "server-a"));  // left behind by a failed turn
  const auto next = s.EnqueueTurn("c1", 100000, "server-a").value();
  const auto theirs = s.EnqueueTurn("c1", 100000, "server-b").value();
  EXPECT_TRUE(s.IsTurnAtHead("c1", next, 1000, "server-a").value());
  EXPECT_FALSE(s.IsTurnAtHead("c1", theirs, 1000, "server-b").value());
}

TYPED_TEST(StoreContract, WhatALapsedServerHeldIsReleasedAndOnlyThat) {
  auto& s = *this->store_;
  EXPECT_FALSE(s.RenewServerLease("server-a", 1000, 4000).value());  // its first lease
  EXPECT_TRUE(s.RenewServerLease("server-a", 2000, 5000).value());
  ASSERT_FALSE(s.RenewServerLease("server-b", 1000, 100000).value());
  ASSERT_TRUE(s.SetOrgSpendLimit("acme", 1.0));
  // server-a: a ticket, a running claim and a spend lease; server-b: a ticket behind a's.
  ASSERT_TRUE(s.EnqueueTurn("c1", 100000, "server-a"));
  const auto b_ticket = s.EnqueueTurn("c1", 100000, "server-b").value();
  const IdempotencyScope key{"acme", "prod", "k"};
  using O = IdempotencyClaim::Outcome;
  ASSERT_EQ(s.ClaimIdempotencyKey(key, "fp", 2000, 120000, "server-a").value().outcome,
            O::kClaimed);
  SpendReservationRequest lease{"acme", "bot", "2026-11", 0.6, std::nullopt, 2000, 0};
  lease.server_id = "server-a";
  ASSERT_TRUE(s.ReserveSpend(lease).value().reserved);
  lease.server_id = "server-b";
  lease.amount_usd = 0.3;
  ASSERT_TRUE(s.ReserveSpend(lease).value().reserved);

  EXPECT_EQ(s.ReleaseLapsedServers(4999).value(), 0);  // a's lease runs until 5000
  EXPECT_FALSE(s.IsTurnAtHead("c1", b_ticket, 4999, "server-b").value());
  EXPECT_EQ(s.ReleaseLapsedServers(5001).value(), 1);
  EXPECT_TRUE(s.IsTurnAtHead("c1", b_ticket, 5001, "server-b").value());
  EXPECT_EQ(s.ClaimIdempotencyKey(key, "fp", 5001, 120000, "server-b").value().outcome,
            O::kClaimed);  // free long before its 120 s
  const auto usage = s.GetUsage("acme", "2026-11").value();
  ASSERT_EQ(usage.size(), 1u);
  EXPECT_NEAR(usage[0].reserved_usd, 0.3, 1e-9);                     // only b's lease is left
  EXPECT_FALSE(s.RenewServerLease("server-a", 6000, 9000).value());  // it learns it lapsed
  EXPECT_EQ(s.ReleaseLapsedServers(6001).value(), 0);
}

TYPED_TEST(StoreContract, AServerThatEndsReleasesWhatItHeldAtOnce) {
  auto& s = *this->store_;
  ASSERT_TRUE(s.RenewServerLease("server-a", 1000, 100000));
  ASSERT_TRUE(s.RenewServerLease("server-b", 1000, 100000));
  ASSERT_TRUE(s.EnqueueTurn("c1", 100000, "server-a"));
  const auto b_ticket = s.EnqueueTurn("c1", 100000, "server-b").value();
  ASSERT_TRUE(s.EndServerLease("server-a", 2000));
  EXPECT_TRUE(s.IsTurnAtHead("c1", b_ticket, 2000, "server-b").value());
  EXPECT_EQ(s.ReleaseLapsedServers(2000).value(), 0);  // b lives on
}

TYPED_TEST(StoreContract, ATurnWhosePlaceWasReleasedCommitsNothing) {
  auto& s = *this->store_;
  ASSERT_TRUE(s.CommitTurn(Appending("t1", "c1", 1000, true)));
  ASSERT_TRUE(s.RenewServerLease("server-a", 1000, 2000));
  const auto ticket = s.EnqueueTurn("c1", 100000, "server-a").value();
  TurnCommit held = Appending("t2", "c1", 1500, false);
  held.queue_ticket = ticket;
  ASSERT_EQ(s.ReleaseLapsedServers(3000).value(), 1);  // its server's lease lapsed meanwhile
  const auto refused = s.CommitTurn(held);
  ASSERT_FALSE(refused);
  EXPECT_EQ(refused.error().code, ErrorCode::kConflict);
  EXPECT_FALSE(s.GetTurn("t2").value());
  EXPECT_EQ(s.LoadMessages("c1").value().size(), 1u);
}

TYPED_TEST(StoreContract, ATurnsCommitGivesItsPlaceUpSoTheConversationIsFreeAtOnce) {
  auto& s = *this->store_;
  ASSERT_TRUE(s.CommitTurn(Appending("t1", "c1", 1000, true)));
  const auto ticket = s.EnqueueTurn("c1", 100000, "server-a").value();
  EXPECT_TRUE(s.ConversationBusy("c1", 2000).value());
  TurnCommit turn = Appending("t2", "c1", 1500, false);
  turn.queue_ticket = ticket;
  ASSERT_TRUE(s.CommitTurn(turn));
  // Free before the server's own clean-up deletes the ticket, which then changes nothing.
  EXPECT_FALSE(s.ConversationBusy("c1", 2000).value());
  ASSERT_TRUE(s.DequeueTurn(ticket));
  EXPECT_FALSE(s.ConversationBusy("c1", 2000).value());
}

RunRecord Queued(std::string id, std::int64_t at_ms, std::string conversation = "") {
  RunRecord run;
  run.id = std::move(id);
  run.org_id = "acme";
  run.env = "prod";
  run.agent_id = "bot";
  run.token_id = "tok";
  run.conversation_id = std::move(conversation);
  run.request_json = R"({"message":"hi"})";
  run.created_at_ms = at_ms;
  return run;
}

TYPED_TEST(StoreContract, AnInterruptSupersedesTheLiveTicketsAheadAndTheirCommitsAreRefused) {
  auto& s = *this->store_;
  ASSERT_TRUE(s.CommitTurn(Appending("t1", "c1", 1000, true)));
  const auto running = s.EnqueueTurn("c1", 100000, "server-a").value();
  const auto waiting = s.EnqueueTurn("c1", 100000, "server-b").value();
  const auto expired = s.EnqueueTurn("c1", 1500, "server-b").value();
  const auto elsewhere = s.EnqueueTurn("c2", 100000, "server-a").value();
  const auto interrupting = s.EnqueueTurn("c1", 100000, "server-b").value();
  const auto later = s.EnqueueTurn("c1", 100000, "server-a").value();
  const auto superseded = s.SupersedeTurns("c1", interrupting, 2000).value();
  std::vector<std::pair<std::int64_t, std::string>> got;
  for (const auto& t : superseded) got.emplace_back(t.ticket, t.server_id);
  std::sort(got.begin(), got.end());
  // Only the live tickets ahead of it, on its conversation: not an expired one, nor a later one.
  EXPECT_EQ(got, (std::vector<std::pair<std::int64_t, std::string>>{{running, "server-a"},
                                                                    {waiting, "server-b"}}));
  EXPECT_EQ(s.SupersededTickets("server-a").value(), std::vector<std::int64_t>{running});
  EXPECT_EQ(s.SupersededTickets("server-b").value(), std::vector<std::int64_t>{waiting});
  TurnCommit late = Appending("t2", "c1", 1500, false);
  late.queue_ticket = running;
  const auto refused = s.CommitTurn(late);
  ASSERT_FALSE(refused);
  EXPECT_EQ(refused.error().code, ErrorCode::kSuperseded);
  EXPECT_FALSE(s.GetTurn("t2").value());
  EXPECT_EQ(s.LoadMessages("c1").value().size(), 1u);
  // The superseded turns still hold their places until they end: the interrupt waits for them.
  EXPECT_FALSE(s.IsTurnAtHead("c1", interrupting, 2000, "server-b").value());
  ASSERT_TRUE(s.DequeueTurn(running));
  ASSERT_TRUE(s.DequeueTurn(waiting));
  EXPECT_TRUE(s.IsTurnAtHead("c1", interrupting, 2000, "server-b").value());
  EXPECT_TRUE(s.SupersededTickets("server-a").value().empty());
  EXPECT_FALSE(s.IsTurnAtHead("c1", later, 2000, "server-a").value());  // behind the interrupt
  (void)expired;
  (void)elsewhere;
}

// A run that ran on server-a from 100 until `ended_at_ms` and completed saying "Hi".
RunRecord Completed(const std::string& id, std::int64_t ended_at_ms) {
  RunRecord run = Queued(id, 100);
  run.status = RunStatus::kCompleted;
  run.server_id = "server-a";
  run.started_at_ms = 100;
  run.ended_at_ms = ended_at_ms;
  run.result_json = R"({"response":"Hi"})";
  return run;
}

RunEvent Numbered(RunEvent event, std::int64_t seq) {
  event.seq = seq;
  return event;
}

// A run written once, as it ended, with these events.
RunWrite EndedOnce(const RunRecord& run, const std::vector<RunEvent>& events) {
  return RunWrite{RunWrite::Kind::kCreateEnded, run, events, 0, std::nullopt};
}

TYPED_TEST(StoreContract, AQueuedRunHoldsItsPlaceInLineUntilItEnds) {
  auto& s = *this->store_;
  ASSERT_TRUE(s.CommitTurn(Appending("t1", "c1", 1000, true)));
  const auto running = s.EnqueueTurn("c1", 100000, "server-a").value();
  ASSERT_TRUE(s.CreateRun(Queued("r1", 100, "c1"), 10, std::nullopt).value());
  ASSERT_TRUE(s.CreateRun(Queued("r2", 200, "c1"), 10, std::nullopt).value());
  RunRecord fresh = Queued("r3", 300, "c9");
  fresh.creates_conversation = true;  // nobody else can use its conversation yet: no place
  ASSERT_TRUE(s.CreateRun(fresh, 10, std::nullopt).value());
  EXPECT_FALSE(s.RunPlace("r3").value());
  const auto first = s.RunPlace("r1").value();
  ASSERT_TRUE(first);
  EXPECT_LT(running, *first);
  // Behind the running turn neither is claimed; a call arriving after them waits for both, on
  // every server (a queued run's place is nobody's own).
  auto claimed = s.ClaimRuns("server-a", 2000, 10).value();
  ASSERT_EQ(claimed.size(), 1u);
  EXPECT_EQ(claimed[0].id, "r3");
  const auto after = s.EnqueueTurn("c1", 100000, "server-a").value();
  ASSERT_TRUE(s.DequeueTurn(running));
  EXPECT_FALSE(s.IsTurnAtHead("c1", after, 2000, "server-a").value());
  claimed = s.ClaimRuns("server-b", 2000, 10).value();  // r1 only: r2 is behind it
  ASSERT_EQ(claimed.size(), 1u);
  EXPECT_EQ(claimed[0].id, "r1");
  EXPECT_EQ(s.TakeRunPlace("r1", "server-b", 50000).value(), first);
  EXPECT_FALSE(s.IsTurnAtHead("c1", after, 2000, "server-b").value());  // its own server's too
  EXPECT_TRUE(s.ClaimRuns("server-a", 2000, 10).value().empty());
  // Its end, however it comes, gives the place up; r2's cancel while queued too.
  RunRecord ended = claimed[0];
  ended.status = RunStatus::kCompleted;
  ended.ended_at_ms = 3000;
  ASSERT_TRUE(s.FinishRun(ended, {Numbered(run_events::Completed("{}"), 1)}).value());
  EXPECT_FALSE(s.RunPlace("r1").value());
  ASSERT_TRUE(s.CancelRun("r2", 3000, run_events::Failed(SupersededError())).value());
  EXPECT_FALSE(s.RunPlace("r2").value());
  EXPECT_TRUE(s.IsTurnAtHead("c1", after, 3000, "server-a").value());
}

TYPED_TEST(StoreContract, ClaimsTakeOrganizationsInTurnAndHoldEachToItsShare) {
  auto& s = *this->store_;
  // One organization's backlog of 24, queued first; another's single run, queued after it.
  for (int i = 0; i < 24; ++i) {
    RunRecord run = Queued("ra" + std::to_string(100 + i), 100 + i);
    run.org_id = "big";
    ASSERT_TRUE(s.CreateRun(run, 100, std::nullopt).value());
  }
  RunRecord other = Queued("rb", 500);
  other.org_id = "small";
  ASSERT_TRUE(s.CreateRun(other, 100, std::nullopt).value());
  // A claim of four takes each organization's oldest first: the other's run is not behind 24.
  auto claimed = s.ClaimRuns("server-a", 1000, 4, 3).value();
  ASSERT_EQ(claimed.size(), 4u);
  std::vector<std::string> ids;
  for (const auto& run : claimed) ids.push_back(run.id);
  EXPECT_NE(std::find(ids.begin(), ids.end(), "rb"), ids.end());
  EXPECT_EQ(std::count_if(claimed.begin(), claimed.end(),
                          [](const RunRecord& r) { return r.org_id == "big"; }),
            3);  // its share of three, though a fourth had room
  // With its share running (on any server), the busy organization gets no more.
  EXPECT_TRUE(s.ClaimRuns("server-b", 1000, 10, 3).value().empty());
  RunRecord done = claimed[0].org_id == "big" ? claimed[0] : claimed[1];
  done.status = RunStatus::kCompleted;
  done.ended_at_ms = 2000;
  ASSERT_TRUE(s.FinishRun(done, {Numbered(run_events::Completed("{}"), 1)}).value());
  claimed = s.ClaimRuns("server-b", 2000, 10, 3).value();
  ASSERT_EQ(claimed.size(), 1u);  // one ended: one more starts, the oldest left
  EXPECT_EQ(claimed[0].id, "ra103");
  // A streamed run (never queued) is not a background run: it takes nothing of the share.
  RunRecord streamed = Queued("rs", 2100);
  streamed.org_id = "small";
  streamed.status = RunStatus::kRunning;
  streamed.server_id = "server-a";
  ASSERT_TRUE(s.CreateRun(streamed, 100, std::nullopt).value());
  RunRecord later = Queued("rb2", 2200);
  later.org_id = "small";
  ASSERT_TRUE(s.CreateRun(later, 100, std::nullopt).value());
  claimed = s.ClaimRuns("server-a", 3000, 10, 2).value();
  ASSERT_EQ(claimed.size(), 1u);
  EXPECT_EQ(claimed[0].id, "rb2");
}

TYPED_TEST(StoreContract, RunsAreQueuedStartedOnceAndEndedWithTheirEvents) {
  auto& s = *this->store_;
  EXPECT_TRUE(s.CreateRun(Queued("r1", 100), 2, std::nullopt).value());
  EXPECT_TRUE(s.CreateRun(Queued("r2", 200), 2, std::nullopt).value());
  EXPECT_FALSE(s.CreateRun(Queued("r3", 300), 2, std::nullopt).value());  // acme's queue is full
  EXPECT_FALSE(s.GetRun("r3").value());
  const auto queued = s.GetRun("r1").value();
  ASSERT_TRUE(queued);
  EXPECT_EQ(queued->status, RunStatus::kQueued);
  EXPECT_EQ(queued->request_json, R"({"message":"hi"})");

  const auto first = s.ClaimRuns("server-a", 1000, 1).value();
  ASSERT_EQ(first.size(), 1u);
  EXPECT_EQ(first[0].id, "r1");  // the oldest first
  EXPECT_EQ(first[0].status, RunStatus::kRunning);
  EXPECT_EQ(first[0].request_json, R"({"message":"hi"})");  // for the server that runs it
  const auto second = s.ClaimRuns("server-b", 1000, 5).value();
  ASSERT_EQ(second.size(), 1u);
  EXPECT_EQ(second[0].id, "r2");
  EXPECT_TRUE(s.ClaimRuns("server-a", 1000, 5).value().empty());  // each starts once
  const auto running = s.GetRun("r1").value();
  EXPECT_EQ(running->server_id, "server-a");
  EXPECT_EQ(running->started_at_ms, 1000);
  EXPECT_EQ(running->request_json, "");  // the request leaves the store once the run starts

  ASSERT_TRUE(s.AppendRunEvents("r1", {Numbered(run_events::Started("r1", "", "bot"), 1),
                                       Numbered(run_events::TextDelta("Hel"), 2)}));
  EXPECT_EQ(s.ListRunEvents("r1", 0, 10).value().size(), 2u);
  const auto after_first = s.ListRunEvents("r1", 1, 10).value();
  ASSERT_EQ(after_first.size(), 1u);
  EXPECT_EQ(after_first[0].type, "text.delta");
  EXPECT_EQ(after_first[0].data, "{\"text\":\"Hel\"}");

  RunRecord done = *running;
  done.status = RunStatus::kCompleted;
  done.result_json = "{\"response\":\"Hello\"}";
  done.ended_at_ms = 2000;
  EXPECT_TRUE(s.FinishRun(done, {Numbered(run_events::Completed(done.result_json), 3)}).value());
  EXPECT_FALSE(s.FinishRun(done, {}).value());  // it ended already
  const auto ended = s.GetRun("r1").value();
  EXPECT_EQ(ended->status, RunStatus::kCompleted);
  EXPECT_EQ(ended->result_json, done.result_json);
  EXPECT_EQ(ended->ended_at_ms, 2000);
  EXPECT_EQ(s.ListRunEvents("r1", 2, 10).value().at(0).type, "run.completed");
  // Many events in one write (more than one INSERT's worth) keep their order and their text.
  std::vector<RunEvent> many;
  for (int i = 1; i <= 40; ++i)
    many.push_back(Numbered(run_events::TextDelta("part " + std::to_string(i)), i));
  ASSERT_TRUE(s.AppendRunEvents("r2", many));
  const auto read_back = s.ListRunEvents("r2", 0, 100).value();
  ASSERT_EQ(read_back.size(), 40u);
  for (int i = 1; i <= 40; ++i) {
    EXPECT_EQ(read_back[i - 1].seq, i);
    EXPECT_EQ(read_back[i - 1].data, "{\"text\":\"part " + std::to_string(i) + "\"}");
  }
  EXPECT_TRUE(s.CreateRun(Queued("r3", 300), 2, std::nullopt).value());  // room again
  // The environment's latest first; another environment's are not listed.
  RunRecord elsewhere = Queued("r4", 400);
  elsewhere.env = "staging";
  ASSERT_TRUE(s.CreateRun(elsewhere, 10, std::nullopt));
  const auto listed = s.ListRuns("acme", "prod", 2).value();
  ASSERT_EQ(listed.size(), 2u);
  EXPECT_EQ(listed[0].id, "r3");
  EXPECT_EQ(listed[1].id, "r2");
  EXPECT_EQ(listed[1].status, RunStatus::kRunning);
  // The events written with a run's end (one column) follow those written while it ran (rows),
  // read whole or in pages across the two.
  RunRecord r2_done = listed[1];
  r2_done.status = RunStatus::kCompleted;
  r2_done.result_json = "{\"response\":\"parts\"}";
  r2_done.ended_at_ms = 2100;
  std::vector<RunEvent> last;
  for (int i = 41; i <= 60; ++i)
    last.push_back(Numbered(run_events::TextDelta("part " + std::to_string(i)), i));
  last.push_back(Numbered(run_events::Completed(r2_done.result_json), 61));
  ASSERT_TRUE(s.FinishRun(r2_done, last).value());
  const auto whole = s.ListRunEvents("r2", 0, 100).value();
  ASSERT_EQ(whole.size(), 61u);
  for (int i = 1; i <= 60; ++i) {
    EXPECT_EQ(whole[i - 1].seq, i);
    EXPECT_EQ(whole[i - 1].data, "{\"text\":\"part " + std::to_string(i) + "\"}");
  }
  EXPECT_EQ(whole.back().type, "run.completed");
  EXPECT_EQ(whole.back().data, r2_done.result_json);
  const auto page = s.ListRunEvents("r2", 38, 5).value();
  ASSERT_EQ(page.size(), 5u);
  EXPECT_EQ(page.front().seq, 39);
  EXPECT_EQ(page.back().seq, 43);
  EXPECT_EQ(page.back().data, "{\"text\":\"part 43\"}");
  EXPECT_EQ(s.ListRunEvents("r2", 60, 5).value().size(), 1u);
  EXPECT_TRUE(s.ListRunEvents("r2", 61, 5).value().empty());
}

// One slow endpoint holds back nobody else's deliveries (docs/webhooks.md, "Sharing"): a claim
// takes the longest due first, but leaves no webhook more than its share in flight and no
// organization more than its own, counting what every claim holds until it is recorded or its
// hold ends.
TYPED_TEST(StoreContract, AWebhookClaimLeavesEachWebhookAndOrganizationItsShareInFlight) {
  auto& s = *this->store_;
  for (const auto& w :
       {WebhookRecord{
            "wh_dead", "acme", "prod", "https://dead.example/", {"run.completed"}, "sealed", 1},
        WebhookRecord{
            "wh_good", "acme", "prod", "https://good.example/", {"run.completed"}, "sealed", 2},
        WebhookRecord{
            "wh_beta", "beta", "prod", "https://beta.example/", {"run.completed"}, "sealed", 3}})
    ASSERT_TRUE(s.CreateWebhook(w));
  // Six of acme's runs end (each a delivery to both its webhooks), then one of beta's.
  std::vector<RunRecord> queued;
  for (int i = 0; i < 6; ++i) queued.push_back(Queued("run_a" + std::to_string(i), 100 + i));
  queued.push_back(Queued("run_b", 200));
  queued.back().org_id = "beta";
  for (auto& run : queued) {
    run.notify = true;
    ASSERT_TRUE(s.CreateRun(run, 100, std::nullopt));
  }
  std::int64_t ended_at = 2000;
  auto claimed = s.ClaimRuns("server-a", 1000, 10).value();
  // They end in the order they were queued: beta's last.
  std::sort(claimed.begin(), claimed.end(), [](const RunRecord& a, const RunRecord& b) {
    return a.created_at_ms < b.created_at_ms;
  });
  for (auto run : claimed) {
    run.status = RunStatus::kCompleted;
    run.ended_at_ms = ended_at++;
    run.result_json = R"({"response":"ok"})";
    ASSERT_TRUE(s.FinishRun(run, {Numbered(run_events::Completed(run.result_json), 1)}).value());
  }
  const WebhookShares shares{2, 3};
  const auto ids = [](const std::vector<WebhookJob>& jobs) {
    std::vector<std::string> out;
    for (const auto& job : jobs) out.push_back(job.delivery.id);
    return out;
  };
  // acme: two to the dead endpoint, one more for its good one (its organization's three); beta's
  // own, though it fell due last.
  const auto first = s.ClaimWebhookDeliveries(3000, 60'000, 32, shares).value();
  EXPECT_EQ(ids(first),
            (std::vector<std::string>{"msg_a0_dead", "msg_a0_good", "msg_a1_dead", "msg_b_beta"}));
  EXPECT_TRUE(s.ClaimWebhookDeliveries(3001, 60'000, 32, shares).value().empty());  // all held
  // A good delivery recorded makes room for acme's next to its good endpoint, none to the dead.
  WebhookDelivery delivered = first[1].delivery;
  delivered.status = "delivered";
  delivered.attempts = 1;
  ASSERT_TRUE(s.RecordWebhookAttempt(delivered));
  EXPECT_EQ(ids(s.ClaimWebhookDeliveries(3002, 60'000, 32, shares).value()),
            (std::vector<std::string>{"msg_a1_good"}));
  // A hold that ended (its server died mid-attempt) counts no more, and that delivery is due.
  const auto later = s.ClaimWebhookDeliveries(60'001, 120'000, 32, shares).value();
  EXPECT_EQ(ids(later),
            (std::vector<std::string>{"msg_a0_dead", "msg_a1_dead", "msg_a1_good", "msg_b_beta"}));
}

// Every end of a run that notifies (finished, canceled while queued, interrupted with its server)
// adds one delivery per webhook of its environment that wants its type, in the same transaction;
// claims hold a delivery from other claims; attempts are recorded; deleting a webhook takes its
// deliveries; finished deliveries are purged with the runs.
TYPED_TEST(StoreContract, RunEndsAreDeliveredToTheirEnvironmentsWebhooks) {
  auto& s = *this->store_;
  const WebhookRecord all{"wh_all",
                          "acme",
                          "prod",
                          "https://hooks.example/a",
                          {"run.completed", "run.failed", "run.canceled"},
                          "sealed-a",
                          10};
  // A sealed secret is bytes, not text.
  const std::string sealed("\x88\x00\xff-f", 5);
  const WebhookRecord failures{"wh_fail",      "acme", "prod", "https://hooks.example/f",
                               {"run.failed"}, sealed, 20};
  const WebhookRecord staging{"wh_stg",          "acme",     "staging", "https://hooks.example/s",
                              {"run.completed"}, "sealed-s", 30};
  for (const auto& w : {all, failures, staging}) ASSERT_TRUE(s.CreateWebhook(w));
  const auto listed = s.ListWebhooks("acme", "prod").value();
  ASSERT_EQ(listed.size(), 2u);
  EXPECT_EQ(listed[0].events, all.events);
  EXPECT_EQ(listed[1].sealed_secret, sealed);

  RunRecord notifying = Queued("run_00000000000000000000000000a1", 100);
  notifying.notify = true;
  RunRecord silent = Queued("run_00000000000000000000000000a2", 110);
  RunRecord canceled = Queued("run_00000000000000000000000000a3", 120);
  canceled.notify = true;
  for (const auto& r : {notifying, silent, canceled}) ASSERT_TRUE(s.CreateRun(r, 10, std::nullopt));
  auto claimed = s.ClaimRuns("server-a", 1000, 2).value();
  ASSERT_EQ(claimed.size(), 2u);
  EXPECT_TRUE(claimed[0].notify);
  for (auto run : claimed) {
    run.status = RunStatus::kCompleted;
    run.ended_at_ms = 2000;
    run.result_json = R"({"response":"ok"})";
    ASSERT_TRUE(s.FinishRun(run, {Numbered(run_events::Completed(run.result_json), 1)}).value());
  }
  const RunEvent cancel_event = run_events::Failed(Error(ErrorCode::kCanceled, "canceled"));
  ASSERT_TRUE(s.CancelRun(canceled.id, 2500, cancel_event));

  // The completed run goes to the webhook that wants completions, the canceled one too; the
  // silent run and the other environment's webhook get nothing.
  EXPECT_TRUE(s.ListWebhookDeliveries("wh_fail", 10).value().empty());
  EXPECT_TRUE(s.ListWebhookDeliveries("wh_stg", 10).value().empty());
  const auto deliveries = s.ListWebhookDeliveries("wh_all", 10).value();
  ASSERT_EQ(deliveries.size(), 2u);
  EXPECT_EQ(deliveries[0].type, "run.canceled");  // newest first
  EXPECT_EQ(deliveries[1].type, "run.completed");
  EXPECT_EQ(deliveries[1].run_id, notifying.id);
  EXPECT_EQ(deliveries[1].id, "msg_00000000000000000000000000a1_all");
  EXPECT_EQ(deliveries[1].status, "pending");

  // Due ones are claimed with their webhook and run, once until the hold ends.
  EXPECT_TRUE(
      s.ClaimWebhookDeliveries(1999, 5000, 10, WebhookShares{}).value().empty());  // not due yet
  auto jobs = s.ClaimWebhookDeliveries(3000, 5000, 10, WebhookShares{}).value();
  ASSERT_EQ(jobs.size(), 2u);
  EXPECT_EQ(jobs[0].delivery.type, "run.completed");
  EXPECT_EQ(jobs[0].webhook.url, all.url);
  ASSERT_TRUE(jobs[0].run.has_value());
  EXPECT_EQ(jobs[0].run->result_json, R"({"response":"ok"})");
  EXPECT_TRUE(s.ClaimWebhookDeliveries(4000, 9000, 10, WebhookShares{}).value().empty());  // held
  WebhookDelivery retried = jobs[0].delivery;
  retried.attempts = 1;
  retried.next_attempt_at_ms = 4500;
  retried.attempts_json = R"([{"status":500}])";
  ASSERT_TRUE(s.RecordWebhookAttempt(retried));
  WebhookDelivery delivered = jobs[1].delivery;
  delivered.status = "delivered";
  delivered.attempts = 1;
  ASSERT_TRUE(s.RecordWebhookAttempt(delivered));
  auto again = s.ClaimWebhookDeliveries(4500, 9000, 10, WebhookShares{})
                   .value();  // the retry, not the delivered
  ASSERT_EQ(again.size(), 1u);
  EXPECT_EQ(again[0].delivery.attempts, 1);
  EXPECT_EQ(again[0].delivery.attempts_json, R"([{"status":500}])");

  // Finished deliveries go with old runs; pending ones stay until they finish.
  ASSERT_TRUE(s.PurgeRuns(3000, 100));
  const auto kept = s.ListWebhookDeliveries("wh_all", 10).value();
  ASSERT_EQ(kept.size(), 1u);
  EXPECT_EQ(kept[0].status, "pending");
  EXPECT_FALSE(s.DeleteWebhook("acme", "staging", "wh_all").value());  // another environment's
  EXPECT_TRUE(s.DeleteWebhook("acme", "prod", "wh_all").value());
  EXPECT_TRUE(s.ListWebhookDeliveries("wh_all", 10).value().empty());
  EXPECT_EQ(s.ListWebhooks("acme", "prod").value().size(), 1u);
}

TYPED_TEST(StoreContract, AStreamedRunIsCreatedRunningOnItsServerPastTheQueuesBound) {
  auto& s = *this->store_;
  ASSERT_TRUE(s.CreateRun(Queued("q1", 100), 1, std::nullopt).value());
  RunRecord streamed = Queued("s1", 200);
  streamed.status = RunStatus::kRunning;
  streamed.server_id = "server-a";
  streamed.started_at_ms = 200;
  EXPECT_TRUE(s.CreateRun(streamed, 1, std::nullopt).value());  // the bound is the queue's
  const auto stored = s.GetRun("s1").value();
  ASSERT_TRUE(stored);
  EXPECT_EQ(stored->status, RunStatus::kRunning);
  EXPECT_EQ(stored->server_id, "server-a");
  EXPECT_EQ(stored->started_at_ms, 200);
  EXPECT_EQ(stored->request_json, "");  // it never waits, so its request is never kept
  const auto claimed = s.ClaimRuns("server-b", 300, 10).value();
  ASSERT_EQ(claimed.size(), 1u);  // only the queued one
  EXPECT_EQ(claimed[0].id, "q1");
}

TYPED_TEST(StoreContract, ACanceledQueuedRunEndsAtOnceAndARunningOneIsMarkedForItsServer) {
  auto& s = *this->store_;
  const RunEvent canceled = run_events::Failed(Error(ErrorCode::kCanceled, "canceled"));
  ASSERT_TRUE(s.CreateRun(Queued("q", 100), 10, std::nullopt));
  auto after = s.CancelRun("q", 500, canceled).value();
  ASSERT_TRUE(after);
  EXPECT_EQ(after->status, RunStatus::kCanceled);
  EXPECT_EQ(after->ended_at_ms, 500);
  EXPECT_EQ(after->error_json, canceled.data);
  const auto events = s.ListRunEvents("q", 0, 10).value();
  ASSERT_EQ(events.size(), 1u);
  EXPECT_EQ(events[0].seq, 1);
  EXPECT_EQ(events[0].type, "run.failed");
  EXPECT_EQ(s.CancelRun("q", 600, canceled).value()->ended_at_ms, 500);  // twice: no change
  EXPECT_TRUE(s.ClaimRuns("server-a", 700, 10).value().empty());         // never starts

  ASSERT_TRUE(s.CreateRun(Queued("r", 800), 10, std::nullopt));
  ASSERT_EQ(s.ClaimRuns("server-a", 900, 10).value().size(), 1u);
  after = s.CancelRun("r", 1000, canceled).value();
  EXPECT_EQ(after->status, RunStatus::kRunning);
  EXPECT_TRUE(after->cancel_requested);
  EXPECT_EQ(s.RunsToCancel("server-a").value(), std::vector<std::string>{"r"});
  EXPECT_TRUE(s.RunsToCancel("server-b").value().empty());
  EXPECT_FALSE(s.CancelRun("unknown", 1000, canceled).value());
}

// A turn that paused for approval: its run written with it (created for a plain call, else the
// running run it is).
TurnCommit Pausing(std::string turn_id, std::string run_id, bool create, std::int64_t expires) {
  TurnCommit commit;
  commit.turn = Turn(std::move(turn_id));
  commit.turn.stop_reason = "approval_required";
  commit.pause = RunPause{};
  commit.pause->create = create;
  RunRecord& run = commit.pause->run;
  run.id = std::move(run_id);
  run.org_id = "acme";
  run.env = "prod";
  run.agent_id = "bot";
  run.token_id = "tok";
  run.status = RunStatus::kRequiresAction;
  run.created_at_ms = 100;
  run.started_at_ms = 90;
  run.paused_json = R"({"version":1})";
  run.expires_at_ms = expires;
  return commit;
}

TYPED_TEST(StoreContract, APausedRunIsWrittenWithItsTurnAndClaimedOnceBeforeItExpires) {
  auto& s = *this->store_;
  ASSERT_TRUE(s.CommitTurn(Pausing("t1", "run_p", true, 5000)));
  auto paused = s.GetRun("run_p").value();
  ASSERT_TRUE(paused);
  EXPECT_EQ(paused->status, RunStatus::kRequiresAction);
  EXPECT_EQ(paused->paused_json, R"({"version":1})");
  EXPECT_EQ(paused->expires_at_ms, 5000);
  EXPECT_EQ(paused->token_id, "tok");
  EXPECT_TRUE(s.ClaimRuns("server-a", 200, 10).value().empty());      // never queued
  EXPECT_FALSE(s.ClaimPausedRun("run_p", "server-a", 5000).value());  // expired at 5000
  const auto claimed = s.ClaimPausedRun("run_p", "server-a", 4999).value();
  ASSERT_TRUE(claimed);
  EXPECT_EQ(claimed->status, RunStatus::kRunning);
  EXPECT_EQ(claimed->server_id, "server-a");
  EXPECT_FALSE(s.ClaimPausedRun("run_p", "server-b", 4999).value());  // decided once

  // It pauses again: its running row goes back to requires_action with its new state.
  TurnCommit again = Pausing("t2", "run_p", false, 9000);
  again.pause->run.paused_json = R"({"version":1,"again":true})";
  ASSERT_TRUE(s.CommitTurn(again));
  paused = s.GetRun("run_p").value();
  EXPECT_EQ(paused->status, RunStatus::kRequiresAction);
  EXPECT_EQ(paused->paused_json, R"({"version":1,"again":true})");
  EXPECT_EQ(paused->server_id, "");
  // A pause of a run no longer running is refused whole: no turn is stored either.
  auto refused = s.CommitTurn(Pausing("t3", "run_p", false, 9000));
  ASSERT_FALSE(refused);
  EXPECT_EQ(refused.error().code, ErrorCode::kConflict);
  EXPECT_FALSE(s.GetTurn("t3").value());
}

// A paused run waits in the store as a queued one does: it counts toward its organization's queue
// bound, and decided in the background it goes back to the queue, once, to start as any queued
// run (its decisions as its request), keeping where it paused.
TYPED_TEST(StoreContract, APausedRunCountsTowardTheQueueBoundAndADecisionQueuesItOnce) {
  auto& s = *this->store_;
  ASSERT_TRUE(s.CommitTurn(Pausing("t1", "run_p", true, 5000)));
  EXPECT_FALSE(s.CreateRun(Queued("run_q", 200), 1, std::nullopt).value());  // the bound is 1
  EXPECT_TRUE(s.CreateRun(Queued("run_q", 200), 2, std::nullopt).value());
  EXPECT_FALSE(s.CreateRun(Queued("run_r", 210), 2, std::nullopt).value());
  RunRecord other = Queued("run_o", 220);
  other.org_id = "beta";  // another organization's bound is its own
  EXPECT_TRUE(s.CreateRun(other, 1, std::nullopt).value());
  EXPECT_EQ(s.CountWaitingRuns("acme").value(), 2);  // run_p paused, run_q queued
  EXPECT_EQ(s.CountWaitingRuns("beta").value(), 1);
  EXPECT_EQ(s.ClaimRuns("server-a", 300, 10).value().size(), 2u);  // run_q and run_o
  EXPECT_EQ(s.CountWaitingRuns("acme").value(), 1);

  EXPECT_FALSE(s.QueueDecidedRun("run_p", R"({"decided":1})", 5000).value());  // expired
  const auto queued = s.QueueDecidedRun("run_p", R"({"decided":1})", 4000).value();
  ASSERT_TRUE(queued);
  EXPECT_EQ(queued->status, RunStatus::kQueued);
  EXPECT_FALSE(s.QueueDecidedRun("run_p", R"({"decided":2})", 4000).value());  // decided once
  EXPECT_FALSE(s.ClaimPausedRun("run_p", "server-b", 4000).value());
  EXPECT_FALSE(s.CreateRun(Queued("run_s", 230), 1, std::nullopt).value());  // still waiting
  const auto claimed = s.ClaimRuns("server-b", 4100, 10).value();
  ASSERT_EQ(claimed.size(), 1u);
  EXPECT_EQ(claimed[0].id, "run_p");
  EXPECT_EQ(claimed[0].status, RunStatus::kRunning);
  EXPECT_EQ(claimed[0].server_id, "server-b");
  EXPECT_EQ(claimed[0].started_at_ms, 90);  // when it first started
  EXPECT_EQ(claimed[0].request_json, R"({"decided":1})");
  EXPECT_EQ(claimed[0].paused_json, R"({"version":1})");
  EXPECT_TRUE(s.CreateRun(Queued("run_s", 230), 1, std::nullopt).value());  // it waits no more
}

TYPED_TEST(StoreContract, APausedRunNobodyDecidesEndsFailedAndACanceledOneEndsAtOnce) {
  auto& s = *this->store_;
  ASSERT_TRUE(s.CommitTurn(Pausing("t1", "run_a", true, 1000)));
  ASSERT_TRUE(s.CommitTurn(Pausing("t2", "run_b", true, 3000)));
  ASSERT_TRUE(s.AppendRunEvents("run_a", {Numbered(run_events::Started("run_a", "", "bot"), 1)}));
  const RunEvent expired = run_events::Failed(Error(ErrorCode::kApprovalExpired, "too late"));
  EXPECT_EQ(s.ExpirePausedRuns(999, 10, expired).value(), 0);
  EXPECT_EQ(s.ExpirePausedRuns(1000, 10, expired).value(), 1);
  const auto a = s.GetRun("run_a").value();
  EXPECT_EQ(a->status, RunStatus::kFailed);
  EXPECT_EQ(a->ended_at_ms, 1000);
  EXPECT_EQ(a->error_json, expired.data);
  const auto events = s.ListRunEvents("run_a", 0, 10).value();
  ASSERT_EQ(events.size(), 2u);
  EXPECT_EQ(events[1].seq, 2);  // after the run's own
  EXPECT_EQ(events[1].type, "run.failed");
  EXPECT_EQ(s.GetRun("run_b").value()->status, RunStatus::kRequiresAction);

  const RunEvent canceled = run_events::Failed(Error(ErrorCode::kCanceled, "canceled"));
  const auto b = s.CancelRun("run_b", 1500, canceled).value();
  EXPECT_EQ(b->status, RunStatus::kCanceled);
  EXPECT_EQ(b->ended_at_ms, 1500);
  EXPECT_FALSE(s.ClaimPausedRun("run_b", "server-a", 1600).value());
  EXPECT_EQ(s.ExpirePausedRuns(9000, 10, expired).value(), 0);
}

// What a paused run held (its system prompt with the call's host context, its tool results, its
// request) is cleared by the write that ends it, however it ends: the row is read back after each.
TYPED_TEST(StoreContract, AnEndedRunKeepsNothingOfWhatItHeldWhilePaused) {
  auto& s = *this->store_;
  const std::string held = R"({"version":1,"system":"host context: account 42"})";
  auto pause = [&](const std::string& turn_id, const std::string& run_id) {
    TurnCommit commit = Pausing(turn_id, run_id, true, 5000);
    commit.pause->run.paused_json = held;
    ASSERT_TRUE(s.CommitTurn(commit));
    ASSERT_EQ(s.GetRun(run_id).value()->paused_json, held);
  };
  auto expect_nothing_held = [&](const std::string& run_id, RunStatus status) {
    const auto row = s.GetRun(run_id).value();
    ASSERT_TRUE(row) << run_id;
    EXPECT_EQ(row->status, status) << run_id;
    EXPECT_EQ(row->paused_json, "") << run_id;
    EXPECT_EQ(row->request_json, "") << run_id;
  };

  pause("t1", "canceled");
  const RunEvent canceled = run_events::Failed(Error(ErrorCode::kCanceled, "canceled"));
  const auto answered = s.CancelRun("canceled", 1500, canceled).value();
  ASSERT_TRUE(answered);
  EXPECT_EQ(answered->paused_json, "");  // the record the cancel answers with holds none either
  expect_nothing_held("canceled", RunStatus::kCanceled);

  pause("t2", "expired");
  const RunEvent expired = run_events::Failed(Error(ErrorCode::kApprovalExpired, "too late"));
  ASSERT_EQ(s.ExpirePausedRuns(5000, 10, expired).value(), 1);
  expect_nothing_held("expired", RunStatus::kFailed);

  pause("t3", "completed");
  const auto claimed = s.ClaimPausedRun("completed", "server-a", 4000).value();
  ASSERT_TRUE(claimed);
  EXPECT_EQ(claimed->paused_json, held);  // the decision goes on from it
  RunRecord done = *claimed;
  done.status = RunStatus::kCompleted;
  done.ended_at_ms = 4100;
  done.result_json = R"({"response":"Refunded."})";
  const RunWrite finish{RunWrite::Kind::kFinish,
                        done,
                        {Numbered(run_events::Completed(done.result_json), 1)},
                        0,
                        std::nullopt};
  ASSERT_TRUE(s.WriteRuns({&finish}).front().value());
  expect_nothing_held("completed", RunStatus::kCompleted);
}

WebhookRecord PushConfig(const std::string& run_id, const std::string& config_id,
                         const std::string& url) {
  WebhookRecord config{"wh_" + config_id + run_id.substr(4),
                       "acme",
                       "prod",
                       url,
                       {"run.completed", "run.failed", "run.canceled", "run.requires_action"},
                       std::string("\x01sealed\x00", 8),
                       50};
  config.run_id = run_id;
  config.config_id = config_id;
  config.format = std::string(kA2aPush);
  config.auth_scheme = "Bearer";
  return config;
}

// An A2A task's push configs are webhooks of its run: at most so many, replaced by config id,
// sent the run's pause and end (whether or not it notifies its environment), caught up when
// saved after the run ended, deleted with their deliveries, and purged with their run.
TYPED_TEST(StoreContract, ATasksPushConfigsAreSentItsPauseAndEndAndPurgedWithIt) {
  auto& s = *this->store_;
  ASSERT_TRUE(s.CreateWebhook(WebhookRecord{"wh_env",
                                            "acme",
                                            "prod",
                                            "https://hooks.example/env",
                                            {"run.completed", "run.requires_action"},
                                            "sealed",
                                            10}));
  const std::string task = "run_000000000000000000000000000b1";
  EXPECT_EQ(s.SaveTaskPushConfig(PushConfig(task, "a", "https://a.example/1"), 2, 60).value(),
            PushConfigSaved::kCreated);
  EXPECT_EQ(s.SaveTaskPushConfig(PushConfig(task, "a", "https://a.example/2"), 2, 61).value(),
            PushConfigSaved::kReplaced);
  EXPECT_EQ(s.SaveTaskPushConfig(PushConfig(task, "b", "https://b.example/"), 2, 62).value(),
            PushConfigSaved::kCreated);
  EXPECT_EQ(s.SaveTaskPushConfig(PushConfig(task, "c", "https://c.example/"), 2, 63).value(),
            PushConfigSaved::kFull);
  auto configs = s.ListTaskPushConfigs(task).value();
  ASSERT_EQ(configs.size(), 2u);
  EXPECT_EQ(configs[0].config_id, "a");
  EXPECT_EQ(configs[0].url, "https://a.example/2");
  EXPECT_EQ(configs[0].sealed_secret, std::string("\x01sealed\x00", 8));
  EXPECT_EQ(configs[0].format, kA2aPush);
  EXPECT_EQ(configs[0].auth_scheme, "Bearer");
  // An environment's webhooks are not a task's, and the other way round.
  ASSERT_EQ(s.ListWebhooks("acme", "prod").value().size(), 1u);
  EXPECT_FALSE(s.DeleteWebhook("acme", "prod", configs[0].id).value());

  RunRecord queued = Queued(task, 100, "c1");
  queued.creates_conversation = true;
  ASSERT_TRUE(s.CreateRun(queued, 10, std::nullopt).value());
  auto claimed = s.ClaimRuns("server-a", 1000, 1).value();
  ASSERT_EQ(claimed.size(), 1u);
  RunRecord done = claimed[0];
  done.status = RunStatus::kCompleted;
  done.ended_at_ms = 2000;
  done.result_json = R"({"response":"ok"})";
  ASSERT_TRUE(s.FinishRun(done, {Numbered(run_events::Completed(done.result_json), 1)}).value());
  for (const auto& config : configs) {
    const auto sent = s.ListWebhookDeliveries(config.id, 10).value();
    ASSERT_EQ(sent.size(), 1u) << config.config_id;
    EXPECT_EQ(sent[0].type, "run.completed");
    EXPECT_EQ(sent[0].run_id, task);
  }
  EXPECT_TRUE(s.ListWebhookDeliveries("wh_env", 10).value().empty());  // the run does not notify

  // Saved after the end: the end is sent to it alone, once.
  const WebhookRecord late = PushConfig(task, "c", "https://c.example/");
  EXPECT_EQ(s.SaveTaskPushConfig(late, 3, 3000).value(), PushConfigSaved::kCreated);
  EXPECT_EQ(s.SaveTaskPushConfig(late, 3, 3100).value(), PushConfigSaved::kReplaced);
  const auto caught_up = s.ListWebhookDeliveries(late.id, 10).value();
  ASSERT_EQ(caught_up.size(), 1u);
  EXPECT_EQ(caught_up[0].type, "run.completed");
  EXPECT_EQ(caught_up[0].next_attempt_at_ms, 3000);
  EXPECT_EQ(s.ListWebhookDeliveries(configs[0].id, 10).value().size(), 1u);

  // Deleted with what it had to send.
  EXPECT_TRUE(s.DeleteTaskPushConfig(task, "b").value());
  EXPECT_FALSE(s.DeleteTaskPushConfig(task, "b").value());
  EXPECT_TRUE(s.ListWebhookDeliveries(configs[1].id, 10).value().empty());
  EXPECT_EQ(s.ListTaskPushConfigs(task).value().size(), 2u);

  // A pause of a run of a conversation is sent to its configs too, as its turn commits it.
  const std::string paused = "run_000000000000000000000000000b2";
  ASSERT_TRUE(s.SaveTaskPushConfig(PushConfig(paused, "p", "https://p.example/"), 10, 70));
  TurnCommit pausing = Pausing("t-pause", paused, true, 5000);
  pausing.pause->run.conversation_id = "c2";
  ASSERT_TRUE(s.CommitTurn(pausing));
  const auto pause_sent = s.ListWebhookDeliveries(PushConfig(paused, "p", "").id, 10).value();
  ASSERT_EQ(pause_sent.size(), 1u);
  EXPECT_EQ(pause_sent[0].type, "run.requires_action");

  // Purged with the run.
  EXPECT_GE(s.PurgeRuns(1'000'000, 10).value(), 1);
  EXPECT_TRUE(s.ListTaskPushConfigs(task).value().empty());
  EXPECT_TRUE(s.ListWebhookDeliveries(configs[0].id, 10).value().empty());
  EXPECT_TRUE(s.ListWebhookDeliveries(late.id, 10).value().empty());
  EXPECT_EQ(s.ListTaskPushConfigs(paused).value().size(), 1u);  // its run waits: kept
}

// A short streamed run is written once, as it ended, its events folded into its row; one that
// ran longer was created running with its events so far, and a pause may have written it first.
TYPED_TEST(StoreContract, AStreamedRunWrittenOnceAtItsEndKeepsItsEventsAndWebhooks) {
  auto& s = *this->store_;
  ASSERT_TRUE(s.CreateWebhook(WebhookRecord{
      "wh_1", "acme", "prod", "https://hooks.example/a", {"run.completed"}, "sealed", 10}));
  RunRecord done = Completed("short", 140);
  done.notify = true;
  std::vector<RunEvent> events;
  events.push_back(Numbered(run_events::Started("short", "", "bot"), 1));
  events.push_back(Numbered(run_events::TextDelta("line\n\ttab"), 2));
  events.push_back(Numbered(run_events::Completed(done.result_json), 3));
  const RunWrite once = EndedOnce(done, events);
  ASSERT_TRUE(s.WriteRuns({&once}).front().value());
  const auto stored = s.GetRun("short").value();
  ASSERT_TRUE(stored);
  EXPECT_EQ(stored->status, RunStatus::kCompleted);
  EXPECT_EQ(stored->result_json, done.result_json);
  EXPECT_EQ(stored->started_at_ms, 100);
  EXPECT_EQ(stored->ended_at_ms, 140);
  EXPECT_EQ(stored->request_json, "");
  const auto all = s.ListRunEvents("short", 0, 10).value();
  ASSERT_EQ(all.size(), 3u);
  for (std::size_t i = 0; i < 3; ++i) {
    EXPECT_EQ(all[i].seq, events[i].seq);
    EXPECT_EQ(all[i].type, events[i].type);
    EXPECT_EQ(all[i].data, events[i].data);
  }
  const auto rest = s.ListRunEvents("short", 1, 1).value();  // after a Last-Event-ID, bounded
  ASSERT_EQ(rest.size(), 1u);
  EXPECT_EQ(rest[0].type, "text.delta");
  EXPECT_EQ(s.ListWebhookDeliveries("wh_1", 10).value().size(), 1u);  // as any run's end
  EXPECT_FALSE(s.FinishRun(done, {}).value());                        // it ended already
  EXPECT_EQ(s.PurgeRuns(1000, 10).value(), 1);
  EXPECT_TRUE(s.ListRunEvents("short", 0, 10).value().empty());

  // Created running with its events so far, after its turn's pause wrote it: it stays paused.
  ASSERT_TRUE(s.CommitTurn(Pausing("t1", "paused", true, 5000)));
  RunRecord running = Queued("paused", 200);
  running.status = RunStatus::kRunning;
  running.server_id = "server-a";
  running.started_at_ms = 200;
  const RunWrite late{RunWrite::Kind::kCreate,
                      running,
                      {Numbered(run_events::Started("paused", "", "bot"), 1)},
                      0,
                      std::nullopt};
  ASSERT_TRUE(s.WriteRuns({&late}).front().value());
  EXPECT_EQ(s.GetRun("paused").value()->status, RunStatus::kRequiresAction);
  EXPECT_EQ(s.ListRunEvents("paused", 0, 10).value().size(), 1u);
  // The other order: created running first, then its pause pauses it as a running run.
  running.id = "first";
  const RunWrite early{RunWrite::Kind::kCreate, running, {}, 0, std::nullopt};
  ASSERT_TRUE(s.WriteRuns({&early}).front().value());
  ASSERT_TRUE(s.CommitTurn(Pausing("t2", "first", true, 6000)));
  const auto first = s.GetRun("first").value();
  EXPECT_EQ(first->status, RunStatus::kRequiresAction);
  EXPECT_EQ(first->expires_at_ms, 6000);
  EXPECT_EQ(first->server_id, "");
  // A created pause of a run no longer running is refused as any pause is.
  ASSERT_TRUE(s.CancelRun("first", 7000, run_events::Failed(Error(ErrorCode::kCanceled, "x"))));
  auto refused = s.CommitTurn(Pausing("t3", "first", true, 9000));
  ASSERT_FALSE(refused);
  EXPECT_EQ(refused.error().code, ErrorCode::kConflict);
}

// A group commit's turns and runs: a refused turn, even alone, takes nothing else with it.
TYPED_TEST(StoreContract, ABatchOfTurnsAndRunsKeepsEachOnesOutcome) {
  auto& s = *this->store_;
  ASSERT_TRUE(s.CommitTurn(Appending("t1", "c1", 1000, true)));
  const TurnCommit again = Appending("t1", "c2", 1100, true);  // the same turn id: refused
  RunRecord done = Queued("run_b", 100);
  done.status = RunStatus::kCompleted;
  done.started_at_ms = 100;
  done.ended_at_ms = 200;
  const RunWrite once = EndedOnce(done, {Numbered(run_events::Completed("{}"), 1)});
  const auto results = s.CommitBatch({&again}, {&once});
  ASSERT_EQ(results.turns.size(), 1u);
  ASSERT_FALSE(results.turns[0]);
  EXPECT_EQ(results.turns[0].error().code, ErrorCode::kConflict);
  ASSERT_EQ(results.runs.size(), 1u);
  EXPECT_TRUE(results.runs[0].value());
  EXPECT_EQ(s.GetRun("run_b").value()->status, RunStatus::kCompleted);
  EXPECT_FALSE(s.GetConversation("c2").value());
  const TurnCommit next = Appending("t2", "c3", 1200, true);
  const auto turn_only = s.CommitBatch({&next}, {});
  ASSERT_EQ(turn_only.turns.size(), 1u);
  EXPECT_TRUE(turn_only.turns[0]);
  EXPECT_TRUE(turn_only.runs.empty());
  EXPECT_TRUE(s.GetConversation("c3").value());
}

// A short streamed run ends in its turn's commit: written with the turn, and not when it is
// refused.
TYPED_TEST(StoreContract, ATurnsEndedRunIsWrittenWithItsTurnOnly) {
  auto& s = *this->store_;
  const RunRecord done = Completed("rides", 150);
  TurnCommit turn = Appending("t1", "c1", 1000, true);
  turn.ended_run = EndedOnce(done, {Numbered(run_events::Started("rides", "", "bot"), 1),
                                    Numbered(run_events::Completed(done.result_json), 2)});
  const auto results = s.CommitBatch({&turn}, {});
  ASSERT_EQ(results.turns.size(), 1u);
  ASSERT_TRUE(results.turns[0]);
  const auto stored = s.GetRun("rides").value();
  ASSERT_TRUE(stored);
  EXPECT_EQ(stored->status, RunStatus::kCompleted);
  EXPECT_EQ(stored->ended_at_ms, 150);
  const auto events = s.ListRunEvents("rides", 0, 10).value();
  ASSERT_EQ(events.size(), 2u);
  EXPECT_EQ(events[0].data, run_events::Started("rides", "", "bot").data);
  EXPECT_EQ(events[1].type, "run.completed");
  EXPECT_EQ(events[1].data, done.result_json);

  // The same turn again is refused, alone or in a group: its run is not written either.
  for (const bool alone : {true, false}) {
    TurnCommit again = Appending("t1", alone ? "c2" : "c3", 1100, true);
    again.ended_run = turn.ended_run;
    again.ended_run->run.id = alone ? "refused_alone" : "refused_in_group";
    const TurnCommit other = Appending("t2", "c4", 1200, true);
    const auto refused = alone ? s.CommitBatch({&again}, {}) : s.CommitBatch({&again, &other}, {});
    ASSERT_FALSE(refused.turns[0]);
    EXPECT_FALSE(s.GetRun(again.ended_run->run.id).value());
    if (!alone) {
      EXPECT_TRUE(refused.turns[1]);
    }
  }
}

// A short stateless streamed run ends in its turn's commit, written once with its events
// (docs/runs.md): it reads, lists, cancels, notifies and is purged as any ended run, and its turn
// stays for its own retention.
TYPED_TEST(StoreContract, ARunEndedInItsTurnsCommitReadsListsAndIsPurgedAsAnyEndedRun) {
  auto& s = *this->store_;
  ASSERT_TRUE(s.CreateWebhook(WebhookRecord{
      "wh", "acme", "prod", "https://hooks.example/a", {"run.completed"}, "sealed", 10}));
  // Quick runs created at 150 and 450, around a run of its own created at 300.
  auto quick = [&](const std::string& hex, std::int64_t created_at_ms) {
    RunRecord run = Completed("run_" + hex, created_at_ms + 50);
    run.created_at_ms = run.started_at_ms = created_at_ms;
    run.token_id = "tok_" + hex;
    run.notify = true;
    TurnCommit commit;
    commit.turn = Turn("turn_" + hex, "", created_at_ms);
    commit.ended_run = EndedOnce(run, {Numbered(run_events::Started(run.id, "", "bot"), 1),
                                       Numbered(run_events::TextDelta("Hi"), 2),
                                       Numbered(run_events::Completed(run.result_json), 3)});
    return commit;
  };
  const TurnCommit first = quick("00a1", 150), second = quick("00a2", 450);
  ASSERT_TRUE(s.CommitTurn(first));
  ASSERT_TRUE(s.CreateRun(Queued("run_own", 300), 10, std::nullopt));
  ASSERT_TRUE(s.CommitTurn(second));

  const auto stored = s.GetRun("run_00a1").value();
  ASSERT_TRUE(stored);
  EXPECT_EQ(stored->org_id, "acme");
  EXPECT_EQ(stored->env, "prod");
  EXPECT_EQ(stored->agent_id, "bot");
  EXPECT_EQ(stored->token_id, "tok_00a1");
  EXPECT_EQ(stored->status, RunStatus::kCompleted);
  EXPECT_EQ(stored->conversation_id, "");
  EXPECT_EQ(stored->created_at_ms, 150);
  EXPECT_EQ(stored->started_at_ms, 150);
  EXPECT_EQ(stored->ended_at_ms, 200);
  EXPECT_EQ(stored->server_id, "server-a");
  EXPECT_TRUE(stored->notify);
  EXPECT_EQ(stored->result_json, R"({"response":"Hi"})");
  EXPECT_FALSE(s.GetRun("run_00a9").value());
  EXPECT_FALSE(s.GetRun("turn_00a1").value());  // a turn's id is not its run's

  EXPECT_EQ(s.ListRunEvents("run_00a1", 0, 1).value().at(0).data,
            run_events::Started("run_00a1", "", "bot").data);
  const auto events = s.ListRunEvents("run_00a1", 1, 10).value();
  ASSERT_EQ(events.size(), 2u);
  EXPECT_EQ(events[0].type, "text.delta");
  EXPECT_EQ(events[1].seq, 3);
  EXPECT_EQ(events[1].data, R"({"response":"Hi"})");

  // Listed with the runs of their own, newest first.
  const auto listed = s.ListRuns("acme", "prod", 10).value();
  ASSERT_EQ(listed.size(), 3u);
  EXPECT_EQ(listed[0].id, "run_00a2");
  EXPECT_EQ(listed[1].id, "run_own");
  EXPECT_EQ(listed[2].id, "run_00a1");
  const auto newest = s.ListRuns("acme", "prod", 2).value();
  ASSERT_EQ(newest.size(), 2u);
  EXPECT_EQ(newest[1].id, "run_own");
  EXPECT_TRUE(s.ListRuns("acme", "staging", 10).value().empty());

  // Canceling an ended run changes nothing.
  const auto canceled =
      s.CancelRun("run_00a1", 900, run_events::Failed(Error(ErrorCode::kCanceled, "x"))).value();
  ASSERT_TRUE(canceled);
  EXPECT_EQ(canceled->status, RunStatus::kCompleted);
  EXPECT_EQ(s.GetRun("run_00a1").value()->status, RunStatus::kCompleted);

  // Its end goes to the environment's webhook, claimed with the run.
  const auto jobs = s.ClaimWebhookDeliveries(1'000'000, 1'005'000, 10, WebhookShares{}).value();
  ASSERT_EQ(jobs.size(), 2u);
  for (const auto& job : jobs) {
    ASSERT_TRUE(job.run.has_value()) << job.delivery.run_id;
    EXPECT_EQ(job.run->id, job.delivery.run_id);
    EXPECT_EQ(job.run->result_json, R"({"response":"Hi"})");
  }

  // Purged once it ended before the cutoff; the turn stays.
  EXPECT_EQ(s.PurgeRuns(300, 10).value(), 1);
  EXPECT_FALSE(s.GetRun("run_00a1").value());
  EXPECT_TRUE(s.ListRunEvents("run_00a1", 0, 10).value().empty());
  EXPECT_TRUE(s.GetTurn("turn_00a1").value());
  EXPECT_TRUE(s.GetRun("run_00a2").value());
  EXPECT_EQ(s.ListRuns("acme", "prod", 10).value().size(), 2u);
  EXPECT_EQ(s.PurgeRuns(1'000'000, 10).value(), 1);  // the queued one stays
  EXPECT_FALSE(s.GetRun("run_00a2").value());
  EXPECT_TRUE(s.GetTurn("turn_00a2").value());
}

// Retention reaches the runs ended in their turns' commits in every organization and environment,
// at most its limit a pass, and only those that ended before its cutoff.
TYPED_TEST(StoreContract, RunsEndedWithTheirTurnsArePurgedInEveryEnvironmentWithinTheLimit) {
  auto& s = *this->store_;
  ASSERT_TRUE(s.CreateEnvironment("acme", "staging"));
  ASSERT_TRUE(s.CreateOrg(OrgRecord{"beta", "Beta", std::nullopt, 1}));
  ASSERT_TRUE(s.CreateEnvironment("beta", "prod"));
  auto quick = [&](const std::string& hex, const std::string& org, const std::string& env,
                   std::int64_t created_at_ms) {
    RunRecord run = Completed("run_" + hex, created_at_ms + 10);
    run.org_id = org;
    run.env = env;
    run.created_at_ms = run.started_at_ms = created_at_ms;
    TurnCommit commit;
    commit.turn = Turn("turn_" + hex, "", created_at_ms);
    commit.turn.org_id = org;
    commit.turn.env = env;
    commit.ended_run = EndedOnce(run, {Numbered(run_events::Started(run.id, "", "bot"), 1),
                                       Numbered(run_events::Completed(run.result_json), 2)});
    return commit;
  };
  const std::vector<TurnCommit> commits = {
      quick("0b01", "acme", "prod", 100), quick("0b02", "acme", "staging", 110),
      quick("0b03", "beta", "prod", 120), quick("0b04", "beta", "prod", 130),
      quick("0b05", "acme", "staging", 5000)};
  for (const auto& commit : commits) ASSERT_TRUE(s.CommitTurn(commit));
  EXPECT_EQ(s.ListRuns("acme", "staging", 10).value().size(), 2u);
  EXPECT_EQ(s.ListRuns("beta", "prod", 10).value().size(), 2u);

  EXPECT_EQ(s.PurgeRuns(1000, 3).value(), 3);  // at most the limit
  EXPECT_EQ(s.PurgeRuns(1000, 3).value(), 1);  // the rest that ended before the cutoff
  EXPECT_EQ(s.PurgeRuns(1000, 3).value(), 0);
  for (const char* gone : {"run_0b01", "run_0b02", "run_0b03", "run_0b04"})
    EXPECT_FALSE(s.GetRun(gone).value()) << gone;
  EXPECT_TRUE(s.GetRun("run_0b05").value());  // ended after the cutoff
  EXPECT_TRUE(s.ListRuns("beta", "prod", 10).value().empty());
  ASSERT_EQ(s.ListRuns("acme", "staging", 10).value().size(), 1u);
}

TYPED_TEST(StoreContract, ARunOfALapsedServerEndsInterruptedWithOneTerminalEvent) {
  auto& s = *this->store_;
  ASSERT_TRUE(s.RenewServerLease("server-a", 1000, 5000));
  ASSERT_TRUE(s.CreateRun(Queued("r", 100), 10, std::nullopt));
  auto claimed = s.ClaimRuns("server-a", 1100, 1).value();
  ASSERT_EQ(claimed.size(), 1u);
  ASSERT_TRUE(s.AppendRunEvents("r", {Numbered(run_events::Started("r", "", "bot"), 1)}));
  ASSERT_EQ(s.ReleaseLapsedServers(6000).value(), 1);
  const auto run = s.GetRun("r").value();
  EXPECT_EQ(run->status, RunStatus::kFailed);
  EXPECT_EQ(run->ended_at_ms, 6000);
  EXPECT_NE(run->error_json.find("\"code\":\"interrupted\""), std::string::npos);
  const auto events = s.ListRunEvents("r", 1, 10).value();
  ASSERT_EQ(events.size(), 1u);
  EXPECT_EQ(events[0].seq, 2);
  EXPECT_EQ(events[0].type, "run.failed");
  RunRecord late = claimed[0];
  late.status = RunStatus::kCompleted;
  EXPECT_FALSE(s.FinishRun(late, {}).value());  // never ends twice
}

TYPED_TEST(StoreContract, AConversationIsBusyWhileARunOrATicketHoldsIt) {
  auto& s = *this->store_;
  EXPECT_FALSE(s.ConversationBusy("c1", 1000).value());
  ASSERT_TRUE(s.CreateRun(Queued("r", 100, "c1"), 10, std::nullopt));
  EXPECT_TRUE(s.ConversationBusy("c1", 1000).value());
  EXPECT_FALSE(s.ConversationBusy("c2", 1000).value());
  ASSERT_TRUE(s.CancelRun("r", 1000, run_events::Failed(Error(ErrorCode::kCanceled, "x"))));
  EXPECT_FALSE(s.ConversationBusy("c1", 1000).value());
  ASSERT_TRUE(s.EnqueueTurn("c1", 5000, "server-a"));
  EXPECT_TRUE(s.ConversationBusy("c1", 4999).value());
  EXPECT_FALSE(s.ConversationBusy("c1", 5000).value());  // an expired ticket holds nothing
}

TYPED_TEST(StoreContract, EndedRunsArePurgedWithTheirEventsAndQueuedOnesNever) {
  auto& s = *this->store_;
  const RunEvent canceled = run_events::Failed(Error(ErrorCode::kCanceled, "x"));
  for (const char* id : {"old", "new"}) ASSERT_TRUE(s.CreateRun(Queued(id, 100), 10, std::nullopt));
  ASSERT_TRUE(s.CancelRun("old", 1000, canceled));
  ASSERT_TRUE(s.CancelRun("new", 3000, canceled));
  ASSERT_TRUE(s.CreateRun(Queued("waiting", 100), 10, std::nullopt));
  EXPECT_EQ(s.PurgeRuns(2000, 10).value(), 1);
  EXPECT_FALSE(s.GetRun("old").value());
  EXPECT_TRUE(s.ListRunEvents("old", 0, 10).value().empty());
  EXPECT_TRUE(s.GetRun("new").value());
  EXPECT_EQ(s.PurgeRuns(1'000'000, 10).value(), 1);
  EXPECT_TRUE(s.GetRun("waiting").value());
}

// Runs it keeps (one waiting from long ago, one ended after the cutoff) do not stop a purge; it
// takes at most its limit a call, the oldest first, and runs many at a time.
TYPED_TEST(StoreContract, APurgePassesTheRunsItKeepsAndTakesAtMostItsLimit) {
  auto& s = *this->store_;
  const RunEvent canceled = run_events::Failed(Error(ErrorCode::kCanceled, "x"));
  ASSERT_TRUE(s.CreateRun(Queued("waiting", 100), 1000, std::nullopt));
  ASSERT_TRUE(s.CreateRun(Queued("lately", 150), 1000, std::nullopt));
  ASSERT_TRUE(s.CancelRun("lately", 2500, canceled));
  for (int i = 0; i < 300; ++i) {
    const std::string id = "ended" + std::to_string(i);
    ASSERT_TRUE(s.CreateRun(Queued(id, 200 + i), 1000, std::nullopt));
    ASSERT_TRUE(s.CancelRun(id, 1000 + i, canceled));
  }
  ASSERT_TRUE(s.CreateRun(Queued("young", 5000), 1000, std::nullopt));
  ASSERT_TRUE(s.CancelRun("young", 5001, canceled));

  EXPECT_EQ(s.PurgeRuns(2000, 280).value(), 280);
  EXPECT_FALSE(s.GetRun("ended279").value());
  EXPECT_TRUE(s.GetRun("ended280").value());
  EXPECT_EQ(s.PurgeRuns(2000, 500).value(), 20);
  EXPECT_EQ(s.PurgeRuns(2000, 500).value(), 0);
  for (const char* kept : {"waiting", "lately", "young"}) EXPECT_TRUE(s.GetRun(kept).value());
  EXPECT_EQ(s.PurgeRuns(6000, 500).value(), 2);  // lately, young
  EXPECT_TRUE(s.GetRun("waiting").value());
}

TYPED_TEST(StoreContract, AQueuedRunIsTheAnswerOfItsIdempotencyKey) {
  auto& s = *this->store_;
  const IdempotencyScope key{"acme", "prod", "k"};
  using O = IdempotencyClaim::Outcome;
  ASSERT_EQ(s.ClaimIdempotencyKey(key, "fp", 1000, 120000, "server-a").value().outcome,
            O::kClaimed);
  const IdempotencyCompletion answer{key, 1000, 202, "{\"run_id\":\"r\"}", 90000};
  EXPECT_TRUE(s.CreateRun(Queued("r", 1000), 10, answer).value());
  const auto replay = s.ClaimIdempotencyKey(key, "fp", 2000, 120000, "server-a").value();
  EXPECT_EQ(replay.outcome, O::kCompleted);
  EXPECT_EQ(replay.status, 202);
  EXPECT_EQ(replay.body, "{\"run_id\":\"r\"}");
  // A claim that is no longer this call's queues nothing.
  const IdempotencyCompletion stale{IdempotencyScope{"acme", "prod", "other"}, 1, 202, "{}", 9};
  const auto refused = s.CreateRun(Queued("r2", 1000), 10, stale);
  ASSERT_FALSE(refused);
  EXPECT_EQ(refused.error().code, ErrorCode::kConflict);
  EXPECT_FALSE(s.GetRun("r2").value());
}

TYPED_TEST(StoreContract, MessagesAppendInOrder) {
  auto& s = *this->store_;
  ASSERT_TRUE(s.CreateConversation(ConversationRecord{"c1", "acme", "prod", "bot", "", 1}));
  ASSERT_TRUE(s.CommitTurn(TurnCommit{
      Turn("t1", "c1"), {{0, "user", "hi", 1}, {0, "assistant", "hello", 2}}, {}, {}, {}, {}, {}}));
  ASSERT_TRUE(
      s.CommitTurn(TurnCommit{Turn("t2", "c1"), {{0, "user", "again", 3}}, {}, {}, {}, {}, {}}));
  auto m = s.LoadMessages("c1").value();
  ASSERT_EQ(m.size(), 3u);
  EXPECT_EQ(m[0].seq, 1);
  EXPECT_EQ(m[2].seq, 3);
  EXPECT_EQ(m[1].content, "hello");
  EXPECT_EQ(s.GetConversation("c1").value()->agent_id, "bot");
  EXPECT_FALSE(s.GetConversation("c2").value());
}

TYPED_TEST(StoreContract, ConversationsAreListedNewestFirstWithTheirTurnsAndFilters) {
  auto& s = *this->store_;
  ASSERT_TRUE(s.CreateOrg(OrgRecord{"other", "Other", std::nullopt, 1}));
  ASSERT_TRUE(s.CreateConversation(ConversationRecord{"c1", "acme", "prod", "bot", "", 100}));
  ASSERT_TRUE(s.CreateConversation(ConversationRecord{"c2", "acme", "dev", "bot", "", 200}));
  ASSERT_TRUE(s.CreateConversation(ConversationRecord{"c3", "acme", "prod", "zed", "s1", 200}));
  ASSERT_TRUE(s.CreateConversation(ConversationRecord{"c4", "acme", "prod", "bot", "", 300}));
  ASSERT_TRUE(s.CreateConversation(ConversationRecord{"o1", "other", "prod", "bot", "", 250}));
  for (auto [id, conversation, at, cost] :
       std::vector<std::tuple<std::string, std::string, std::int64_t, double>>{
           {"t1", "c1", 110, 0.25}, {"t2", "c1", 150, 0.5}, {"t3", "c3", 210, 1.0}}) {
    TurnCommit commit{Turn(id, conversation, at), {}, {}, {}, {}, {}, {}};
    commit.turn.cost_usd = cost;
    ASSERT_TRUE(s.CommitTurn(commit));
  }
  const auto ids = [](const std::vector<ConversationListing>& page) {
    std::string out;
    for (const auto& c : page) out += c.conversation.id + " ";
    return out;
  };
  const auto filter = [](std::string org, std::optional<std::string> agent = std::nullopt,
                         std::optional<std::string> env = std::nullopt) {
    ConversationFilter f;
    f.org_id = std::move(org);
    f.agent_id = std::move(agent);
    f.env = std::move(env);
    return f;
  };
  const ConversationFilter all = filter("acme");
  auto page = s.ListConversations(all, 10).value();
  EXPECT_EQ(ids(page), "c4 c3 c2 c1 ");  // newest first; a tie in time by id, descending
  EXPECT_EQ(page[3].turns, 2);
  EXPECT_EQ(page[3].last_turn_at_ms, 150);
  EXPECT_DOUBLE_EQ(page[3].cost_usd, 0.75);
  EXPECT_EQ(page[1].conversation.instance_id, "s1");
  EXPECT_EQ(page[0].turns, 0);
  EXPECT_EQ(page[0].last_turn_at_ms, 0);

  auto first = s.ListConversations(all, 2).value();
  EXPECT_EQ(ids(first), "c4 c3 ");
  ConversationFilter next = all;
  next.before = std::pair{first.back().conversation.created_at_ms, first.back().conversation.id};
  EXPECT_EQ(ids(s.ListConversations(next, 2).value()), "c2 c1 ");

  const ConversationFilter bot_prod = filter("acme", "bot", "prod");
  EXPECT_EQ(ids(s.ListConversations(bot_prod, 10).value()), "c4 c1 ");
  ConversationFilter window = all;
  window.since_ms = 200;
  window.until_ms = 300;  // [200, 300)
  EXPECT_EQ(ids(s.ListConversations(window, 10).value()), "c3 c2 ");
  EXPECT_EQ(ids(s.ListConversations(filter("other"), 10).value()), "o1 ");
}

TYPED_TEST(StoreContract, DurationPercentilesAreTheNearestRank) {
  // Ten turns of 1..10 ms: the 95th percentile's nearest rank is the 10th (ceil(9.5)), the
  // median's the 5th. SQLite used to pick floor(q * (n - 1)), the 9th, where PostgreSQL's
  // percentile_disc picks the 10th.
  auto& s = *this->store_;
  for (int i = 1; i <= 10; ++i) {
    TurnCommit c{Turn("t" + std::to_string(i), "", 1000 + i), {}, {}, {}, {}, {}, {}};
    c.turn.duration_ms = i;
    ASSERT_TRUE(s.CommitTurn(c));
  }
  const auto durations = s.TurnDurationPercentiles(0).value();
  EXPECT_EQ(durations.turns, 10);
  EXPECT_EQ(durations.p50_ms, 5);
  EXPECT_EQ(durations.p95_ms, 10);
}

TYPED_TEST(StoreContract, TheOverviewCountsTurnsPerDaySpendPerOrgAndGatewayCalls) {
  auto& s = *this->store_;
  constexpr std::int64_t kDay = 24 * 60 * 60 * 1000;
  int n = 0;
  const auto commit = [&](std::int64_t at, std::int64_t duration, std::string reason) {
    TurnCommit c{Turn("t" + std::to_string(++n), "", at), {}, {}, {}, {}, {}, {}};
    c.turn.duration_ms = duration;
    c.turn.stop_reason = std::move(reason);
    ASSERT_TRUE(s.CommitTurn(c));
  };
  commit(9 * kDay + 5, 500, "");  // before the window
  for (int i = 1; i <= 18; ++i) commit(10 * kDay + i, i * 10, "");
  commit(10 * kDay + 100, 1000, "max_iterations");
  commit(11 * kDay + 1, 2000, "turn_timeout");
  commit(11 * kDay + 2, 30, "");

  auto days = s.CountTurnsPerDay(10 * kDay).value();
  ASSERT_EQ(days.size(), 4u);
  EXPECT_EQ(days[0].day, 10);
  EXPECT_EQ(days[0].key, "");
  EXPECT_EQ(days[0].count, 18);
  EXPECT_EQ(days[1].key, "max_iterations");
  EXPECT_EQ(days[2].day, 11);
  EXPECT_EQ(days[3].key, "turn_timeout");

  // 21 durations: 10..180, 30, 1000, 2000 -> nearest ranks 11 (p50) and 20 (p95) of 21.
  auto durations = s.TurnDurationPercentiles(10 * kDay).value();
  EXPECT_EQ(durations.turns, 21);
  EXPECT_EQ(durations.p50_ms, 100);
  EXPECT_EQ(durations.p95_ms, 1000);
  EXPECT_EQ(s.TurnDurationPercentiles(20 * kDay).value().turns, 0);

  ASSERT_TRUE(s.CreateOrg(OrgRecord{"other", "Other", std::nullopt, 1}));
  EXPECT_TRUE(s.SpendPerOrg("2026-11").value().empty());
  const SpendReservationRequest bot{"acme", "bot", "2026-11", 0.4, std::nullopt, 1, 0};
  const SpendReservationRequest helper{"acme", "helper", "2026-11", 0.2, std::nullopt, 1, 0};
  const auto settled = s.ReserveSpend(bot).value();
  ASSERT_TRUE(s.ReserveSpend(helper).value().reserved);  // still reserved
  ASSERT_TRUE(
      s.CommitTurn(Settling("paid", {Cost(settled.reservation_id, 0.25, 1, 1, "2026-11", 0.4)})));
  auto spend = s.SpendPerOrg("2026-11").value();
  ASSERT_EQ(spend.size(), 1u);  // "other" spent nothing
  EXPECT_EQ(spend[0].org_id, "acme");
  EXPECT_NEAR(spend[0].settled_usd, 0.25, 1e-12);
  EXPECT_NEAR(spend[0].reserved_usd, 0.2, 1e-12);
  EXPECT_TRUE(s.SpendPerOrg("2026-12").value().empty());

  ASSERT_TRUE(s.AddGatewayCalls(10, {{200, 5}, {404, 1}}));
  ASSERT_TRUE(s.AddGatewayCalls(10, {{200, 2}}));  // another server's minute
  ASSERT_TRUE(s.AddGatewayCalls(12, {{502, 3}}));
  auto calls = s.GatewayCallsPerDay(10).value();
  ASSERT_EQ(calls.size(), 3u);
  EXPECT_EQ(calls[0].key, "200");
  EXPECT_EQ(calls[0].count, 7);
  EXPECT_EQ(calls[1].key, "404");
  EXPECT_EQ(calls[2].day, 12);
  EXPECT_EQ(s.PurgeGatewayCalls(12).value(), 2);
  EXPECT_EQ(s.GatewayCallsPerDay(0).value().size(), 1u);
}

TYPED_TEST(StoreContract, OldTurnsArePurgedOldestFirstAndTheirConversationsKeepTheirMessages) {
  auto& s = *this->store_;
  ASSERT_TRUE(s.CreateConversation(ConversationRecord{"c1", "acme", "prod", "bot", "", 1}));
  for (int i = 1; i <= 5; ++i) {
    TurnCommit commit{Turn("t" + std::to_string(i), "c1", i * 100), {}, {}, {}, {}, {}, {}};
    commit.messages = {MessageRecord{0, "user", "m" + std::to_string(i), i * 100}};
    ASSERT_TRUE(s.CommitTurn(commit));
  }
  ASSERT_TRUE(s.CommitTurn(TurnCommit{Turn("stateless", "", 250), {}, {}, {}, {}, {}, {}}));
  EXPECT_EQ(s.PurgeTurns(450, 2).value(), 2);  // t1, t2: the oldest first, at most the limit
  EXPECT_FALSE(s.GetTurn("t2").value());
  EXPECT_TRUE(s.GetTurn("t3").value());
  EXPECT_EQ(s.PurgeTurns(450, 10).value(), 3);  // a stateless turn ages out the same: t3, it, t4
  EXPECT_FALSE(s.GetTurn("stateless").value());
  EXPECT_EQ(s.PurgeTurns(450, 10).value(), 0);
  ASSERT_EQ(s.ListTurns("c1").value().size(), 1u);  // t5, started at 500
  EXPECT_EQ(s.LoadRecentMessages("c1", 1 << 20, 100).value().size(), 5u);
}

// A stateful turn at `at_ms` adding one message to `conversation`; `creates` makes it the first.

constexpr std::int64_t kDayMs = 24 * 60 * 60 * 1000;

TYPED_TEST(StoreContract, IdleConversationsArePurgedWithAllOfTheirsAndOnlyThem) {
  auto& s = *this->store_;
  ASSERT_TRUE(s.CommitTurn(Appending("t-old-1", "c-old", 1 * kDayMs, true)));
  ASSERT_TRUE(s.CommitTurn(Appending("t-old-2", "c-old", 2 * kDayMs + 5, false)));
  ASSERT_TRUE(s.RecordConversationCall("c-old", 2 * kDayMs, 120000, 1).value().allowed);
  ASSERT_TRUE(
      s.EnqueueTurn("c-old", 2 * kDayMs + 1000, "server-a"));  // a ticket of a turn that died
  ASSERT_TRUE(s.CommitTurn(Appending("t-revived-1", "c-revived", 1 * kDayMs, true)));
  ASSERT_TRUE(s.CommitTurn(Appending("t-revived-2", "c-revived", 9 * kDayMs, false)));
  ASSERT_TRUE(s.CommitTurn(Appending("t-queued", "c-queued", 1 * kDayMs, true)));
  ASSERT_TRUE(s.EnqueueTurn("c-queued", 10 * kDayMs, "server-a"));  // a turn on it is running now
  ASSERT_TRUE(
      s.CreateConversation(ConversationRecord{"c-empty", "acme", "prod", "bot", "", 3 * kDayMs}));
  const std::int64_t now = 9 * kDayMs + 10;

  // Idle since before day 5: c-old (last used on day 2) and c-empty (created on day 3); not
  // c-revived (a turn on day 9) nor c-queued (a live ticket). The longest idle goes first.
  EXPECT_EQ(s.PurgeIdleConversations(5, now, 1).value(), 1);
  EXPECT_FALSE(s.GetConversation("c-old").value());
  EXPECT_TRUE(s.GetConversation("c-empty").value());
  EXPECT_EQ(s.PurgeIdleConversations(5, now, 10).value(), 1);
  EXPECT_EQ(s.PurgeIdleConversations(5, now, 10).value(), 0);
  EXPECT_FALSE(s.GetConversation("c-empty").value());
  EXPECT_TRUE(s.GetConversation("c-revived").value());
  EXPECT_EQ(s.LoadRecentMessages("c-revived", 1 << 20, 100).value().size(), 2u);
  EXPECT_EQ(s.ListTurns("c-revived").value().size(), 2u);
  EXPECT_TRUE(s.GetConversation("c-queued").value());

  // Everything of c-old went with it: its messages, turns, call window and queue tickets.
  EXPECT_TRUE(s.LoadRecentMessages("c-old", 1 << 20, 100).value().empty());
  EXPECT_TRUE(s.ListTurns("c-old").value().empty());
  EXPECT_FALSE(s.GetTurn("t-old-2").value());
  EXPECT_TRUE(s.RecordConversationCall("c-old", 2 * kDayMs + 10, 120000, 1).value().allowed);
  const auto ticket = s.EnqueueTurn("c-old", 3 * kDayMs, "server-a").value();
  EXPECT_TRUE(s.IsTurnAtHead("c-old", ticket, 2 * kDayMs + 500, "server-a").value());
}

TYPED_TEST(StoreContract, ATurnOnAConversationPurgedMeanwhileStoresNothingAndSparesItsBatch) {
  auto& s = *this->store_;
  ASSERT_TRUE(s.CommitTurn(Appending("t1", "c1", 1 * kDayMs, true)));
  ASSERT_EQ(s.PurgeIdleConversations(5, 9 * kDayMs, 10).value(), 1);

  const IdempotencyScope key{"acme", "prod", "k"};
  ASSERT_EQ(s.ClaimIdempotencyKey(key, "fp", 9 * kDayMs, 120000, "server-a").value().outcome,
            IdempotencyClaim::Outcome::kClaimed);
  const MemoryScope scope{"acme", "prod", "bot", ""};
  TurnCommit late = Appending("t-late", "c1", 9 * kDayMs, false);
  late.idempotency = IdempotencyCompletion{key, 9 * kDayMs, 200, "{}", 10 * kDayMs};
  late.facts = {RememberedFact{scope, "never stored", 9 * kDayMs}};
  const TurnCommit other = Appending("t-other", "c2", 9 * kDayMs, true);
  const auto results = s.CommitTurns({&late, &other});
  ASSERT_EQ(results.size(), 2u);
  ASSERT_FALSE(results[0]);
  EXPECT_EQ(results[0].error().code, ErrorCode::kConversationNotFound);
  EXPECT_TRUE(results[1]);  // the rest of its batch commits

  EXPECT_FALSE(s.GetTurn("t-late").value());
  EXPECT_FALSE(s.GetConversation("c1").value());
  EXPECT_TRUE(s.ListMemories(scope, 10).value().empty());
  EXPECT_EQ(s.ClaimIdempotencyKey(key, "fp", 9 * kDayMs + 1, 120000, "server-a").value().outcome,
            IdempotencyClaim::Outcome::kInUse);  // still its claim, not a stored answer
  EXPECT_TRUE(s.GetTurn("t-other").value());
}

TYPED_TEST(StoreContract, OldFactsArePurgedOldestFirst) {
  auto& s = *this->store_;
  const MemoryScope a{"acme", "prod", "bot", ""};
  const MemoryScope b{"acme", "prod", "bot", "team-b"};
  ASSERT_TRUE(s.AddMemory(a, "tea in the morning", 100));
  ASSERT_TRUE(s.AddMemory(b, "tea for team b", 150));
  ASSERT_TRUE(s.AddMemory(a, "tea at noon", 200));
  ASSERT_TRUE(s.AddMemory(a, "tea in the evening", 300));
  EXPECT_EQ(s.PurgeMemories(250, 2).value(), 2);  // 100 and 150: the oldest first, the limit
  EXPECT_EQ(s.ListMemories(a, 10).value().size(), 2u);
  EXPECT_EQ(s.PurgeMemories(250, 10).value(), 1);  // 200
  EXPECT_EQ(s.PurgeMemories(250, 10).value(), 0);
  const auto kept = s.ListMemories(a, 10).value();
  ASSERT_EQ(kept.size(), 1u);
  EXPECT_EQ(kept[0].fact, "tea in the evening");
  EXPECT_TRUE(s.ListMemories(b, 10).value().empty());
  // The full-text index forgot them too.
  const auto recalled = s.RecallMemories(a, {"tea"}, 10).value();
  ASSERT_EQ(recalled.size(), 1u);
  EXPECT_EQ(recalled[0].fact, "tea in the evening");
}

TYPED_TEST(StoreContract, RecentMessagesAreReadFromTheTailUpToABudget) {
  auto& s = *this->store_;
  ASSERT_TRUE(s.CreateConversation(ConversationRecord{"c1", "acme", "prod", "bot", "", 1}));
  ASSERT_TRUE(s.CreateConversation(ConversationRecord{"c2", "acme", "prod", "bot", "", 1}));
  TurnCommit commit{Turn("t1", "c1"), {}, {}, {}, {}, {}, {}};
  for (int i = 0; i < 300; ++i) {  // ten bytes each: more than one page on PostgreSQL
    const std::string n = std::to_string(1000 + i);
    commit.messages.push_back({0, i % 2 == 0 ? "user" : "assistant", "message" + n.substr(1), i});
  }
  ASSERT_TRUE(s.CommitTurn(commit));
  ASSERT_TRUE(
      s.CommitTurn(TurnCommit{Turn("t2", "c2"), {{0, "user", "other", 1}}, {}, {}, {}, {}, {}}));

  auto tail = s.LoadRecentMessages("c1", 25, 1000).value();  // 25 bytes: three messages cross it
  ASSERT_EQ(tail.size(), 3u);
  EXPECT_EQ(tail[0].content, "message297");
  EXPECT_EQ(tail[2].content, "message299");
  EXPECT_EQ(tail[2].seq, 300);
  EXPECT_EQ(tail[1].role, "user");

  auto most = s.LoadRecentMessages("c1", 2000, 1000).value();  // 201 messages, oldest first
  ASSERT_EQ(most.size(), 201u);
  EXPECT_EQ(most.front().content, "message099");
  for (std::size_t i = 1; i < most.size(); ++i) EXPECT_EQ(most[i].seq, most[i - 1].seq + 1);

  EXPECT_EQ(s.LoadRecentMessages("c1", 1000000, 1000).value().size(), 300u);
  EXPECT_EQ(s.LoadRecentMessages("c1", 0, 1000).value().size(), 1u);
  EXPECT_EQ(s.LoadRecentMessages("c2", 1000000, 1000).value().size(), 1u);
  EXPECT_TRUE(s.LoadRecentMessages("nope", 1000000, 1000).value().empty());
  auto counted = s.LoadRecentMessages("c1", 1000000, 40).value();  // many, but short, messages
  ASSERT_EQ(counted.size(), 40u);
  EXPECT_EQ(counted.front().content, "message260");
}

TYPED_TEST(StoreContract, AFirstCallsConversationAndRememberedFactsCommitWithItsTurn) {
  auto& s = *this->store_;
  const MemoryScope scope{"acme", "prod", "bot", "g1"};
  TurnCommit first{Turn("t1", "c-new"),
                   {{0, "user", "hi", 5}, {0, "assistant", "hello", 6}},
                   {},
                   {},
                   ConversationRecord{"c-new", "acme", "prod", "bot", "", 5},
                   {RememberedFact{scope, "likes tea", 5}, RememberedFact{scope, "hates fax", 6}},
                   {}};
  ASSERT_TRUE(s.CommitTurn(first));
  EXPECT_EQ(s.GetConversation("c-new").value()->agent_id, "bot");
  EXPECT_EQ(s.LoadMessages("c-new").value().size(), 2u);
  auto facts = s.ListMemories(scope, 10).value();
  ASSERT_EQ(facts.size(), 2u);
  EXPECT_EQ(facts[1].fact, "hates fax");
  // The first call is in the conversation's call window: with a limit of 1 the next is refused.
  EXPECT_FALSE(s.RecordConversationCall("c-new", 1000, 120000, 1).value().allowed);

  // A turn that fails (its conversation id is taken) stores neither its facts nor its messages.
  TurnCommit clash{Turn("t2", "c-new"),
                   {{0, "user", "again", 7}},
                   {},
                   {},
                   ConversationRecord{"c-new", "acme", "prod", "bot", "", 7},
                   {RememberedFact{scope, "never stored", 7}},
                   {}};
  EXPECT_FALSE(s.CommitTurn(clash));
  EXPECT_EQ(s.ListMemories(scope, 10).value().size(), 2u);
  EXPECT_EQ(s.LoadMessages("c-new").value().size(), 2u);
  EXPECT_FALSE(s.GetTurn("t2").value());
}

TYPED_TEST(StoreContract, TurnsAreListedPerConversationInOrder) {
  auto& s = *this->store_;
  ASSERT_TRUE(s.CommitTurn(TurnCommit{TurnRecord{"t2", "c1", "acme", "prod", "bot", 1, 200, 5,
                                                 "max_iterations", false, 3, 10, 4, 0.5, "[2]"},
                                      {},
                                      {},
                                      {},
                                      {},
                                      {},
                                      {}}));
  ASSERT_TRUE(s.CommitTurn(TurnCommit{
      TurnRecord{"t1", "c1", "acme", "prod", "bot", 1, 100, 7, "", true, 1, 1, 1, 0.0, "[1]"},
      {},
      {},
      {},
      {},
      {},
      {}}));
  ASSERT_TRUE(s.CommitTurn(TurnCommit{
      TurnRecord{"t3", "", "acme", "prod", "bot", 1, 300, 1, "", false, 1, 1, 1, 0.0, "[3]"},
      {},
      {},
      {},
      {},
      {},
      {}}));
  auto turns = s.ListTurns("c1").value();
  ASSERT_EQ(turns.size(), 2u);
  EXPECT_EQ(turns[0].id, "t1");
  EXPECT_TRUE(turns[0].blocked);
  EXPECT_EQ(turns[1].stop_reason, "max_iterations");
  EXPECT_EQ(turns[1].model_calls, 3);
  EXPECT_DOUBLE_EQ(turns[1].cost_usd, 0.5);
  EXPECT_EQ(turns[1].transcript_json, "[2]");
  EXPECT_TRUE(s.ListTurns("").value().empty());  // a stateless turn is on no conversation
  auto stateless = s.GetTurn("t3").value();
  ASSERT_TRUE(stateless);
  EXPECT_EQ(stateless->conversation_id, "");
  EXPECT_EQ(stateless->transcript_json, "[3]");
  EXPECT_FALSE(s.GetTurn("nope").value());
  EXPECT_EQ(s.CommitTurn(TurnCommit{Turn("t1", "c1"), {}, {}, {}, {}, {}, {}}).error().code,
            ErrorCode::kConflict);
}

TYPED_TEST(StoreContract, MemoriesAreIsolatedByScopeAndListedNewestWindowOldestFirst) {
  auto& s = *this->store_;
  const MemoryScope a{"acme", "prod", "bot", "team-a"};
  const MemoryScope b{"acme", "prod", "bot", "team-b"};
  for (int i = 1; i <= 5; ++i) ASSERT_TRUE(s.AddMemory(a, "fact " + std::to_string(i), i));
  ASSERT_TRUE(s.AddMemory(b, "other", 1));
  auto listed = s.ListMemories(a, 3).value();
  ASSERT_EQ(listed.size(), 3u);
  EXPECT_EQ(listed[0].fact, "fact 3");
  EXPECT_EQ(listed[2].fact, "fact 5");
  EXPECT_EQ(s.ListMemories(b, 10).value().size(), 1u);
  EXPECT_TRUE(s.ListMemories(MemoryScope{"other", "prod", "bot", "team-a"}, 10).value().empty());
}

TYPED_TEST(StoreContract, RecallSearchesEveryFactOfItsScopeOnlyBestFirst) {
  auto& s = *this->store_;
  const MemoryScope a{"acme", "prod", "bot", "team-a"};
  ASSERT_TRUE(s.AddMemory(a, "The VAT number of Acme GmbH is DE123456789", 1));
  for (int i = 0; i < 300; ++i)  // newer facts that say nothing about it
    ASSERT_TRUE(
        s.AddMemory(a, "Shipping note " + std::to_string(i) + ": boxes leave on Friday", 2 + i));
  ASSERT_TRUE(s.AddMemory(a, "Acme prefers invoices by email", 400));
  // The same words in other scopes are never returned.
  for (const auto& other :
       {MemoryScope{"acme", "prod", "bot", "team-b"}, MemoryScope{"acme", "dev", "bot", "team-a"},
        MemoryScope{"acme", "prod", "aide", "team-a"},
        MemoryScope{"beta", "prod", "bot", "team-a"}})
    ASSERT_TRUE(s.AddMemory(other, "The VAT number of Acme GmbH is secret elsewhere", 500));

  auto hits = s.RecallMemories(a, {"vat", "number", "acme"}, 5).value();
  ASSERT_EQ(hits.size(), 2u);
  EXPECT_EQ(hits[0].fact, "The VAT number of Acme GmbH is DE123456789");  // three words beat one
  EXPECT_EQ(hits[1].fact, "Acme prefers invoices by email");
  EXPECT_EQ(s.RecallMemories(a, {"invoice"}, 5).value().at(0).fact,  // stemmed: invoices
            "Acme prefers invoices by email");
  EXPECT_TRUE(s.RecallMemories(a, {"zebra"}, 5).value().empty());
  EXPECT_TRUE(s.RecallMemories(a, {}, 5).value().empty());
  EXPECT_EQ(s.RecallMemories(a, {"friday"}, 3).value().size(), 3u);  // the limit holds
  // A term that looks like engine syntax is a word like any other.
  EXPECT_TRUE(s.RecallMemories(a, {"or", "near", "and"}, 3).value().empty());
}

TYPED_TEST(StoreContract, AConversationSummaryCommitsWithItsTurnAndOnlyMovesForward) {
  auto& s = *this->store_;
  ASSERT_TRUE(s.CreateConversation(ConversationRecord{"c1", "acme", "prod", "bot", "", 1}));
  EXPECT_EQ(s.LoadConversationSummary("c1").value().through_seq, 0);
  EXPECT_EQ(s.LoadConversationSummary("c1").value().text, "");
  TurnCommit first;
  first.turn = Turn("t-1", "c1");
  first.summary = ConversationSummary{"The user's code word is PINEAPPLE.", 40};
  ASSERT_TRUE(s.CommitTurn(first));
  auto summary = s.LoadConversationSummary("c1").value();
  EXPECT_EQ(summary.text, "The user's code word is PINEAPPLE.");
  EXPECT_EQ(summary.through_seq, 40);
  // A summary of less history never replaces one of more.
  TurnCommit stale;
  stale.turn = Turn("t-2", "c1");
  stale.summary = ConversationSummary{"older", 20};
  ASSERT_TRUE(s.CommitTurn(stale));
  EXPECT_EQ(s.LoadConversationSummary("c1").value().through_seq, 40);
  EXPECT_EQ(s.LoadConversationSummary("nope").value().through_seq, 0);
  // Nothing is deleted: the messages it covers stay.
}

TYPED_TEST(StoreContract, TheLastMessageNamesTheTurnThatWroteIt) {
  auto& s = *this->store_;
  ASSERT_TRUE(s.CreateConversation(ConversationRecord{"c1", "acme", "prod", "bot", "", 1}));
  EXPECT_EQ(s.LastMessageTurn("c1").value(), "");  // no messages yet
  for (const char* turn : {"turn_1", "turn_2"}) {
    TurnCommit commit;
    commit.turn = Turn(turn, "c1");
    commit.messages = {MessageRecord{0, "user", "q", 1, turn},
                       MessageRecord{0, "assistant", "a", 2, turn}};
    ASSERT_TRUE(s.CommitTurn(commit));
    EXPECT_EQ(s.LastMessageTurn("c1").value(), turn);
  }
  // A turn that wrote no message (a pause) does not move it.
  TurnCommit paused;
  paused.turn = Turn("turn_3", "c1");
  ASSERT_TRUE(s.CommitTurn(paused));
  EXPECT_EQ(s.LastMessageTurn("c1").value(), "turn_2");
  EXPECT_EQ(s.LastMessageTurn("nope").value(), "");
}

TYPED_TEST(StoreContract, ATurnsMessagesAreReadBackInOrder) {
  auto& s = *this->store_;
  ASSERT_TRUE(s.CreateConversation(ConversationRecord{"c1", "acme", "prod", "bot", "", 1}));
  TurnCommit first;
  first.turn = Turn("turn_1", "c1");
  // A seeded first turn: the history its call brought, then its own message and reply.
  first.messages = {MessageRecord{0, "user", "earlier", 1, "turn_1"},
                    MessageRecord{0, "assistant", "noted", 1, "turn_1"},
                    MessageRecord{0, "user", "q1", 1, "turn_1"},
                    MessageRecord{0, "assistant", "a1", 2, "turn_1"}};
  ASSERT_TRUE(s.CommitTurn(first));
  TurnCommit second;
  second.turn = Turn("turn_2", "c1");
  second.messages = {MessageRecord{0, "user", "q2", 3, "turn_2"},
                     MessageRecord{0, "assistant", "a2", 4, "turn_2"}};
  ASSERT_TRUE(s.CommitTurn(second));
  const auto one = s.TurnMessages("c1", "turn_1").value();
  ASSERT_EQ(one.size(), 4u);
  EXPECT_EQ(one.front().content, "earlier");
  EXPECT_EQ(one.back().content, "a1");
  const auto two = s.TurnMessages("c1", "turn_2").value();
  ASSERT_EQ(two.size(), 2u);
  EXPECT_EQ(two[0].role, "user");
  EXPECT_EQ(two[1].content, "a2");
  EXPECT_TRUE(s.TurnMessages("c1", "turn_9").value().empty());
  EXPECT_TRUE(s.TurnMessages("nope", "turn_1").value().empty());
}

TYPED_TEST(StoreContract, AResponseAskIsKeptReplacedAndPurgedWithTheTurnsOfItsAge) {
  auto& s = *this->store_;
  ASSERT_TRUE(s.PutResponseAsk({"resp_a1", "acme", "prod", R"({"metadata":{"k":"v"}})", 100}));
  ASSERT_TRUE(s.PutResponseAsk({"resp_a2", "acme", "prod", "{}", 600}));
  auto read = s.GetResponseAsk("resp_a1").value();
  ASSERT_TRUE(read.has_value());
  EXPECT_EQ(read->org_id, "acme");
  EXPECT_EQ(read->env, "prod");
  EXPECT_EQ(read->asked_json, R"({"metadata":{"k":"v"}})");
  EXPECT_EQ(read->created_at_ms, 100);
  // A second write for one response (an idempotent replay's) replaces what it asked.
  ASSERT_TRUE(s.PutResponseAsk({"resp_a1", "acme", "prod", R"({"store":true})", 100}));
  EXPECT_EQ(s.GetResponseAsk("resp_a1").value()->asked_json, R"({"store":true})");
  EXPECT_FALSE(s.GetResponseAsk("resp_none").value().has_value());
  // Turns' retention takes asks by the same age, oldest first.
  ASSERT_TRUE(s.PurgeTurns(500, 10));
  EXPECT_FALSE(s.GetResponseAsk("resp_a1").value().has_value());
  EXPECT_TRUE(s.GetResponseAsk("resp_a2").value().has_value());
}

TYPED_TEST(StoreContract, ConversationItemsArePagedAppendedAndDeletedWhileNoTurnRuns) {
  auto& s = *this->store_;
  ConversationRecord open{"c1", "acme", "prod", "", "", 1};
  open.metadata_json = R"({"topic":"billing"})";
  ASSERT_TRUE(s.CreateConversation(open));
  const auto written = s.AppendConversationItems("c1",
                                                 {MessageRecord{0, "user", "q1", 2},
                                                  MessageRecord{0, "assistant", "a1", 2},
                                                  MessageRecord{0, "user", "q2", 2}},
                                                 2 * kDayMs)
                           .value();
  ASSERT_EQ(written.size(), 3u);
  EXPECT_EQ(written[2].seq, 3);
  const auto read = s.GetConversation("c1").value();
  ASSERT_TRUE(read);
  EXPECT_EQ(read->metadata_json, R"({"topic":"billing"})");
  EXPECT_EQ(read->agent_id, "");

  const auto first = s.ConversationItems("c1", ItemPage{std::nullopt, 2, false}).value();
  ASSERT_EQ(first.size(), 2u);
  EXPECT_EQ(first[1].content, "a1");
  const auto rest = s.ConversationItems("c1", ItemPage{first[1].seq, 2, false}).value();
  ASSERT_EQ(rest.size(), 1u);
  EXPECT_EQ(rest[0].content, "q2");
  const auto newest = s.ConversationItems("c1", ItemPage{std::nullopt, 2, true}).value();
  ASSERT_EQ(newest.size(), 2u);
  EXPECT_EQ(newest[0].content, "q2");
  EXPECT_EQ(s.ConversationItems("c1", ItemPage{2, 5, true}).value().size(), 1u);

  // Bound once, by the first to ask.
  ASSERT_TRUE(s.BindConversation("c1", "bot", ""));
  ASSERT_TRUE(s.BindConversation("c1", "other", "x"));
  EXPECT_EQ(s.GetConversation("c1").value()->agent_id, "bot");
  ASSERT_TRUE(s.SetConversationMetadata("c1", "{}"));
  EXPECT_EQ(s.GetConversation("c1").value()->metadata_json, "{}");

  // A turn in line: its history is not changed under it.
  const auto ticket = s.EnqueueTurn("c1", 10 * kDayMs, "srv_a").value();
  auto refused = s.AppendConversationItems("c1", {MessageRecord{0, "user", "late", 3}}, 3);
  ASSERT_FALSE(refused);
  EXPECT_EQ(refused.error().code, ErrorCode::kConversationBusy);
  EXPECT_EQ(s.DeleteConversationItem("c1", 1, 3).error().code, ErrorCode::kConversationBusy);
  EXPECT_EQ(s.DeleteConversation("c1", 3).error().code, ErrorCode::kConversationBusy);
  ASSERT_TRUE(s.DequeueTurn(ticket));

  EXPECT_TRUE(s.DeleteConversationItem("c1", 2, 3).value());
  EXPECT_FALSE(s.DeleteConversationItem("c1", 2, 3).value());
  EXPECT_EQ(s.LoadMessages("c1").value().size(), 2u);
  EXPECT_EQ(
      s.AppendConversationItems("c1", {MessageRecord{0, "user", "q3", 4}}, 4).value().front().seq,
      4);
  EXPECT_EQ(s.AppendConversationItems("none", {MessageRecord{0, "user", "q", 4}}, 4).error().code,
            ErrorCode::kConversationNotFound);
  EXPECT_TRUE(s.DeleteConversation("c1", 5).value());
  EXPECT_FALSE(s.GetConversation("c1").value());
  EXPECT_TRUE(s.LoadMessages("c1").value().empty());
  EXPECT_FALSE(s.DeleteConversation("c1", 5).value());
}

TYPED_TEST(StoreContract, RecallFindsARareFactAmongThousandsHoldingCommonWords) {
  auto& s = *this->store_;
  const MemoryScope a{"acme", "prod", "bot", "team-a"};
  TurnCommit commit;
  commit.turn = Turn("t-facts");
  commit.facts.push_back(RememberedFact{a, "The shipping code for Zurich is ZX81", 1});
  for (int i = 0; i < 1500; ++i)  // more holders of "shipping" and "friday" than recall ranks
    commit.facts.push_back(
        RememberedFact{a, "Shipping batch " + std::to_string(i) + " leaves on Friday", 2 + i});
  ASSERT_TRUE(s.CommitTurn(commit));
  this->backend_.Settle();

  auto hits = s.RecallMemories(a, {"shipping", "friday", "zx81"}, 3).value();
  ASSERT_FALSE(hits.empty());
  EXPECT_EQ(hits[0].fact, "The shipping code for Zurich is ZX81");
  // Every term common: its newest holders, newest first.
  hits = s.RecallMemories(a, {"friday"}, 3).value();
  ASSERT_EQ(hits.size(), 3u);
  EXPECT_EQ(hits[0].fact, "Shipping batch 1499 leaves on Friday");
  EXPECT_EQ(hits[2].fact, "Shipping batch 1497 leaves on Friday");
}

TYPED_TEST(StoreContract, OperatorsListAndDeleteMemoriesByAgentEnvGroupOrId) {
  auto& s = *this->store_;
  ASSERT_TRUE(s.AddMemory(MemoryScope{"acme", "prod", "bot", ""}, "default group", 1));
  ASSERT_TRUE(s.AddMemory(MemoryScope{"acme", "prod", "bot", "team-a"}, "team a one", 2));
  ASSERT_TRUE(s.AddMemory(MemoryScope{"acme", "prod", "bot", "team-a"}, "team a two", 3));
  ASSERT_TRUE(s.AddMemory(MemoryScope{"acme", "dev", "bot", "team-a"}, "dev fact", 4));
  ASSERT_TRUE(s.AddMemory(MemoryScope{"acme", "prod", "aide", ""}, "other agent", 5));
  const MemoryFilter bot{"acme", "bot", std::nullopt, std::nullopt};
  auto all = s.ListMemoryPage(bot, INT64_MAX, 10).value();
  ASSERT_EQ(all.size(), 4u);
  EXPECT_EQ(all[0].fact, "dev fact");  // newest first
  EXPECT_EQ(all[0].scope.env, "dev");
  auto page = s.ListMemoryPage(bot, all[1].id, 10).value();
  ASSERT_EQ(page.size(), 2u);
  EXPECT_EQ(page[0].fact, "team a one");
  const MemoryFilter default_group{"acme", "bot", "prod", ""};
  ASSERT_EQ(s.ListMemoryPage(default_group, INT64_MAX, 10).value().size(), 1u);
  // One wrong fact, then a whole group.
  EXPECT_EQ(
      s.DeleteMemories(MemoryFilter{"beta", std::nullopt, std::nullopt, std::nullopt}, all[1].id)
          .value(),
      0);  // another org's id deletes nothing
  EXPECT_EQ(
      s.DeleteMemories(MemoryFilter{"acme", std::nullopt, std::nullopt, std::nullopt}, all[1].id)
          .value(),
      1);
  EXPECT_EQ(s.DeleteMemories(MemoryFilter{"acme", "bot", "prod", "team-a"}, std::nullopt).value(),
            1);
  EXPECT_EQ(s.ListMemoryPage(bot, INT64_MAX, 10).value().size(), 2u);
  // Deleted facts leave the index too.
  EXPECT_TRUE(
      s.RecallMemories(MemoryScope{"acme", "prod", "bot", "team-a"}, {"team"}, 5).value().empty());
  EXPECT_EQ(
      s.ListMemoryPage(MemoryFilter{"acme", "aide", std::nullopt, std::nullopt}, INT64_MAX, 10)
          .value()
          .size(),
      1u);
}

TYPED_TEST(StoreContract, IdempotencyClaimsRunReplayAndExpire) {
  auto& s = *this->store_;
  using O = IdempotencyClaim::Outcome;
  const IdempotencyScope k{"acme", "prod", "key-1"};
  EXPECT_EQ(s.ClaimIdempotencyKey(k, "fp", 1000, 120000, "server-a").value().outcome, O::kClaimed);
  EXPECT_EQ(s.ClaimIdempotencyKey(k, "fp", 2000, 120000, "server-a").value().outcome, O::kInUse);
  EXPECT_EQ(s.ClaimIdempotencyKey(k, "other", 2000, 120000, "server-a").value().outcome,
            O::kFingerprintMismatch);
  EXPECT_EQ(s.ClaimIdempotencyKey({"acme", "dev", "key-1"}, "fp", 2000, 120000, "server-a")
                .value()
                .outcome,
            O::kClaimed);
  ASSERT_TRUE(s.CommitTurn(Answering(k, 1000, R"({"response":"hi"})", 5000)));
  auto replay = s.ClaimIdempotencyKey(k, "fp", 3000, 120000, "server-a").value();
  EXPECT_EQ(replay.outcome, O::kCompleted);
  EXPECT_EQ(replay.status, 200);
  EXPECT_EQ(replay.body, R"({"response":"hi"})");
  EXPECT_EQ(s.ClaimIdempotencyKey(k, "fp", 5000, 120000, "server-a").value().outcome,
            O::kClaimed);  // expired
}

TYPED_TEST(StoreContract, AStaleRunningClaimIsTakenOverAndAReleasedOneIsFree) {
  auto& s = *this->store_;
  using O = IdempotencyClaim::Outcome;
  const IdempotencyScope k{"acme", "prod", "key-2"};
  EXPECT_EQ(s.ClaimIdempotencyKey(k, "fp", 0, 120000, "server-a").value().outcome, O::kClaimed);
  EXPECT_EQ(s.ClaimIdempotencyKey(k, "fp", 119999, 120000, "server-a").value().outcome, O::kInUse);
  EXPECT_EQ(s.ClaimIdempotencyKey(k, "fp", 120000, 120000, "server-a").value().outcome,
            O::kClaimed);
  ASSERT_TRUE(s.ReleaseIdempotencyKey(k, 0));  // the claim taken over: not its to release
  EXPECT_EQ(s.ClaimIdempotencyKey(k, "fp", 120001, 120000, "server-a").value().outcome, O::kInUse);
  ASSERT_TRUE(s.ReleaseIdempotencyKey(k, 120000));
  EXPECT_EQ(s.ClaimIdempotencyKey(k, "fp", 120001, 120000, "server-a").value().outcome,
            O::kClaimed);
  ASSERT_TRUE(s.CommitTurn(Answering(k, 120001, "{}", 200000)));
  ASSERT_TRUE(s.ReleaseIdempotencyKey(k, 120001));  // a completed key stays completed
  EXPECT_EQ(s.ClaimIdempotencyKey(k, "fp", 120002, 120000, "server-a").value().outcome,
            O::kCompleted);
  EXPECT_EQ(s.PurgeIdempotencyKeys(199999).value(), 0);
  EXPECT_EQ(s.PurgeIdempotencyKeys(200000).value(), 1);
}

TYPED_TEST(StoreContract, ATurnCommitsWithItsAnswerOrNotAtAll) {
  auto& s = *this->store_;
  using O = IdempotencyClaim::Outcome;
  ASSERT_TRUE(s.CreateConversation(ConversationRecord{"c1", "acme", "prod", "bot", "", 1}));
  const IdempotencyScope k{"acme", "prod", "key-3"};
  ASSERT_EQ(s.ClaimIdempotencyKey(k, "fp", 0, 120000, "server-a").value().outcome, O::kClaimed);
  // The turn outlived the cap and a retry took the key over: the late commit writes nothing.
  ASSERT_EQ(s.ClaimIdempotencyKey(k, "fp", 120000, 120000, "server-a").value().outcome,
            O::kClaimed);
  TurnCommit late{Turn("t-late", "c1"),
                  {{0, "user", "pay", 1}, {0, "assistant", "paid", 2}},
                  {},
                  IdempotencyCompletion{k, 0, 200, "late", 999999},
                  {},
                  {},
                  {}};
  auto refused = s.CommitTurn(late);
  ASSERT_FALSE(refused);
  EXPECT_EQ(refused.error().code, ErrorCode::kConflict);
  EXPECT_TRUE(s.LoadMessages("c1").value().empty());
  EXPECT_FALSE(s.GetTurn("t-late").value());
  EXPECT_EQ(s.ClaimIdempotencyKey(k, "fp", 120001, 120000, "server-a").value().outcome, O::kInUse);

  // The retry's own commit: messages, turn and answer together.
  TurnCommit retry{Turn("t-retry", "c1"),
                   {{0, "user", "pay", 3}, {0, "assistant", "paid once", 4}},
                   {},
                   IdempotencyCompletion{k, 120000, 200, R"({"response":"paid once"})", 999999},
                   {},
                   {},
                   {}};
  ASSERT_TRUE(s.CommitTurn(retry));
  EXPECT_EQ(s.LoadMessages("c1").value().size(), 2u);
  EXPECT_TRUE(s.GetTurn("t-retry").value());
  auto replay = s.ClaimIdempotencyKey(k, "fp", 130000, 120000, "server-a").value();
  EXPECT_EQ(replay.outcome, O::kCompleted);
  EXPECT_EQ(replay.body, R"({"response":"paid once"})");

  // A commit that fails part-way (a turn id that exists) leaves the claim running.
  const IdempotencyScope k2{"acme", "prod", "key-4"};
  ASSERT_EQ(s.ClaimIdempotencyKey(k2, "fp", 5, 120000, "server-a").value().outcome, O::kClaimed);
  TurnCommit clash{Turn("t-retry", "c1"),
                   {{0, "user", "again", 5}},
                   {},
                   IdempotencyCompletion{k2, 5, 200, "{}", 999999},
                   {},
                   {},
                   {}};
  EXPECT_EQ(s.CommitTurn(clash).error().code, ErrorCode::kConflict);
  EXPECT_EQ(s.LoadMessages("c1").value().size(), 2u);
  EXPECT_EQ(s.ClaimIdempotencyKey(k2, "fp", 6, 120000, "server-a").value().outcome, O::kInUse);
}

TYPED_TEST(StoreContract, ExactlyOneConcurrentClaimWins) {
  auto& s = *this->store_;
  std::atomic<int> claimed{0};
  std::vector<std::thread> threads;
  for (int i = 0; i < 8; ++i) {
    threads.emplace_back([&] {
      auto r = s.ClaimIdempotencyKey({"acme", "prod", "race"}, "fp", 1000, 120000, "server-a");
      if (r && r->outcome == IdempotencyClaim::Outcome::kClaimed) ++claimed;
    });
  }
  for (auto& t : threads) t.join();
  EXPECT_EQ(claimed.load(), 1);
}

// Servers that start together on an empty database: each applies the migrations or waits for
// the one that does, and all of them end up on one working schema.
TYPED_TEST(StoreContract, StoresOpenedTogetherMigrateOnce) {
  TypeParam fresh;
  std::vector<std::unique_ptr<Store>> stores(4);
  std::atomic<int> failures{0};
  std::vector<std::thread> threads;
  for (auto& store : stores) {
    threads.emplace_back([&] {
      try {
        store = fresh.Open(1);
      } catch (const std::exception&) {
        ++failures;
      }
    });
  }
  for (auto& t : threads) t.join();
  ASSERT_EQ(failures.load(), 0);
  ASSERT_TRUE(stores[0]->CreateOrg(OrgRecord{"acme", "Acme", std::nullopt, 1}));
  for (auto& store : stores) EXPECT_EQ(store->CountOrgs().value(), 1);
}

TYPED_TEST(StoreContract, TheCallWindowSlidesAndRefusedCallsDoNotCount) {
  auto& s = *this->store_;
  const std::int64_t window = 120000;
  for (int i = 0; i < 3; ++i)
    EXPECT_TRUE(s.RecordConversationCall("c", 1000 + i, window, 3).value().allowed);
  auto refused = s.RecordConversationCall("c", 60000, window, 3).value();
  EXPECT_FALSE(refused.allowed);
  EXPECT_EQ(refused.retry_after_seconds, 61);  // the call at 1000 leaves at 121000
  EXPECT_FALSE(s.RecordConversationCall("c", 120999, window, 3).value().allowed);
  EXPECT_TRUE(s.RecordConversationCall("c", 121000, window, 3).value().allowed);
  EXPECT_TRUE(s.RecordConversationCall("other", 121000, window, 3).value().allowed);
}

TYPED_TEST(StoreContract, ARefusedCallStillClearsTheCallsThatLeftTheWindow) {
  // The clean-up is right whatever the verdict: calls that left the window are gone once a call
  // looked, allowed or not (SQLite rolled it back with a refusal, PostgreSQL kept it). With one
  // limit a refusal never finds such calls; a limit lowered between calls shows it.
  auto& s = *this->store_;
  const std::int64_t window = 120000;
  const std::string rows = "SELECT COUNT(*) FROM conversation_calls WHERE conversation_id = 'c'";
  for (const std::int64_t at : {1000, 100000, 100001})
    EXPECT_TRUE(s.RecordConversationCall("c", at, window, 3).value().allowed);
  ASSERT_EQ(this->backend_.Count(rows), 3);
  // At 121000 the call at 1000 has left; the two at 100000 fill a window of 2.
  EXPECT_FALSE(s.RecordConversationCall("c", 121000, window, 2).value().allowed);
  EXPECT_EQ(this->backend_.Count(rows), 2);
}

TYPED_TEST(StoreContract, SpendIsReservedAgainstBothLimitsThenSettled) {
  auto& s = *this->store_;
  ASSERT_TRUE(s.SetOrgSpendLimit("acme", 1.0).value());
  SpendReservationRequest r{"acme", "bot", "2026-11", 0.4, 0.5, 1, 0};
  auto first = s.ReserveSpend(r).value();
  ASSERT_TRUE(first.reserved);
  auto second = s.ReserveSpend(r).value();  // agent has 0.4 of 0.5: may cross once
  ASSERT_TRUE(second.reserved);
  auto third = s.ReserveSpend(r).value();
  EXPECT_FALSE(third.reserved);
  EXPECT_EQ(third.scope, "agent");
  EXPECT_DOUBLE_EQ(third.limit_usd, 0.5);
  EXPECT_DOUBLE_EQ(third.spent_usd, 0.8);
  // The turn's commit settles both calls, each taking its whole reservation off.
  ASSERT_TRUE(
      s.CommitTurn(Settling("t1", {Cost(first.reservation_id, 0.01, 100, 20, "2026-11", 0.4),
                                   Cost(second.reservation_id, 0.02, 200, 40, "2026-11", 0.4)})));
  // Released reservations settle nothing.
  ASSERT_TRUE(s.ReleaseSpend({first.reservation_id, second.reservation_id}));
  EXPECT_EQ(s.CommitTurn(Settling("t2", {Cost(second.reservation_id, 0.02)})).error().code,
            ErrorCode::kConflict);
  EXPECT_FALSE(s.GetTurn("t2").value());
  auto usage = s.GetUsage("acme", "2026-11").value();
  ASSERT_EQ(usage.size(), 1u);
  EXPECT_NEAR(usage[0].spent_usd, 0.03, 1e-12);
  EXPECT_NEAR(usage[0].reserved_usd, 0.0, 1e-12);
  EXPECT_EQ(usage[0].input_tokens, 300);
  EXPECT_EQ(usage[0].model_calls, 2);
  EXPECT_TRUE(s.GetUsage("acme", "2026-12").value().empty());
}

TYPED_TEST(StoreContract, StrandedReservationsAreReleased) {
  auto& s = *this->store_;
  auto old = s.ReserveSpend({"acme", "bot", "2026-11", 0.3, std::nullopt, 100, 0}).value();
  auto recent = s.ReserveSpend({"acme", "bot", "2026-11", 0.2, std::nullopt, 900, 0}).value();
  ASSERT_TRUE(old.reserved && recent.reserved);
  EXPECT_EQ(s.ReleaseSpendReservations(500).value(), 1);
  auto usage = s.GetUsage("acme", "2026-11").value();
  ASSERT_EQ(usage.size(), 1u);
  EXPECT_NEAR(usage[0].reserved_usd, 0.2, 1e-12);
  // A turn whose reservation was released as stranded (it outlived the cap) commits nothing.
  EXPECT_EQ(s.CommitTurn(Settling("t-old", {Cost(recent.reservation_id, 0.1),
                                            Cost(old.reservation_id, 0.1)}))
                .error()
                .code,
            ErrorCode::kConflict);
  EXPECT_FALSE(s.GetTurn("t-old").value());
  ASSERT_TRUE(s.CommitTurn(Settling("t-recent", {Cost(recent.reservation_id, 0.1)})));
  EXPECT_NEAR(s.GetUsage("acme", "2026-11").value()[0].spent_usd, 0.1, 1e-12);
}

TYPED_TEST(StoreContract, AReleasedReservationFreesItsSpendAtOnce) {
  auto& s = *this->store_;
  auto a = s.ReserveSpend({"acme", "bot", "2026-11", 0.3, std::nullopt, 1, 0}).value();
  auto b = s.ReserveSpend({"acme", "bot", "2026-11", 0.2, std::nullopt, 1, 0}).value();
  ASSERT_TRUE(s.ReleaseSpend({a.reservation_id, "no-such-reservation"}));
  auto usage = s.GetUsage("acme", "2026-11").value();
  EXPECT_NEAR(usage.at(0).reserved_usd, 0.2, 1e-12);
  EXPECT_NEAR(usage.at(0).spent_usd, 0.0, 1e-12);
  EXPECT_EQ(usage.at(0).model_calls, 0);  // a released call was never paid for
  EXPECT_EQ(s.CommitTurn(Settling("t-a", {Cost(a.reservation_id, 0.1)})).error().code,
            ErrorCode::kConflict);
  ASSERT_TRUE(s.ReleaseSpend({b.reservation_id}));
  EXPECT_NEAR(s.GetUsage("acme", "2026-11").value().at(0).reserved_usd, 0.0, 1e-12);
}

TYPED_TEST(StoreContract, ABatchCommitsEachTurnAllOrNothing) {
  auto& s = *this->store_;
  ASSERT_TRUE(s.CreateConversation(ConversationRecord{"c1", "acme", "prod", "bot", "", 1}));
  auto paid = s.ReserveSpend({"acme", "bot", "2026-11", 0.3, std::nullopt, 1, 0}).value();
  const IdempotencyScope taken{"acme", "prod", "taken-over"};
  ASSERT_TRUE(s.ClaimIdempotencyKey(taken, "fp", 0, 1000, "server-a"));
  ASSERT_TRUE(s.ClaimIdempotencyKey(taken, "fp", 5000, 1000, "server-a"));  // a retry took it over
  TurnCommit first = Settling("b1", {Cost(paid.reservation_id, 0.1)});
  TurnCommit lost = Answering(taken, 0, "{}", 999999, "b2");
  lost.messages = {{0, "user", "lost", 1}};
  lost.turn.conversation_id = "c1";
  TurnCommit duplicate = Settling("b1", {});  // the same turn id again
  TurnCommit last;
  last.turn = Turn("b3", "c1");
  last.messages = {{0, "user", "kept", 2}, {0, "assistant", "yes", 3}};
  const auto results = s.CommitTurns({&first, &lost, &duplicate, &last});
  ASSERT_EQ(results.size(), 4u);
  EXPECT_TRUE(results[0]);
  EXPECT_EQ(results[1].error().code, ErrorCode::kConflict);
  EXPECT_EQ(results[2].error().code, ErrorCode::kConflict);
  EXPECT_TRUE(results[3]);
  EXPECT_TRUE(s.GetTurn("b1").value());
  EXPECT_FALSE(s.GetTurn("b2").value());
  const auto messages = s.LoadMessages("c1").value();
  ASSERT_EQ(messages.size(), 2u);  // nothing of the refused turn, all of the last
  EXPECT_EQ(messages[0].content, "kept");
  EXPECT_EQ(messages[0].seq, 1);
  EXPECT_NEAR(s.GetUsage("acme", "2026-11").value().at(0).spent_usd, 0.1, 1e-12);
}

TYPED_TEST(StoreContract, ABatchOfTurnsKeepsEveryFieldExactly) {
  auto& s = *this->store_;
  std::vector<TurnCommit> commits(3);
  const std::string awkward[] = {R"({"a":"q\"uote","b":"back\\slash"})", "NULL",
                                 "{,}\" \\ \u00e9 é"};
  for (int i = 0; i < 3; ++i) {
    TurnRecord& t = commits[i].turn;
    t = Turn("k" + std::to_string(i), "", 1700000000000 + i);
    t.version = 7 + i;
    t.duration_ms = 120000 - i;
    t.stop_reason = i == 1 ? "max_iterations" : "";
    t.blocked = i == 2;
    t.model_calls = 3;
    t.input_tokens = 1234567890123 + i;
    t.output_tokens = 42;
    t.cost_usd = 0.1 + 0.2 * i;
    t.transcript_json = awkward[i];
  }
  const auto results = s.CommitTurns({&commits[0], &commits[1], &commits[2]});
  ASSERT_EQ(results.size(), 3u);
  for (int i = 0; i < 3; ++i) {
    ASSERT_TRUE(results[i]);
    const TurnRecord& want = commits[i].turn;
    const auto got = s.GetTurn(want.id).value();
    ASSERT_TRUE(got);
    EXPECT_EQ(got->conversation_id, "");
    EXPECT_EQ(got->version, want.version);
    EXPECT_EQ(got->started_at_ms, want.started_at_ms);
    EXPECT_EQ(got->duration_ms, want.duration_ms);
    EXPECT_EQ(got->stop_reason, want.stop_reason);
    EXPECT_EQ(got->blocked, want.blocked);
    EXPECT_EQ(got->model_calls, want.model_calls);
    EXPECT_EQ(got->input_tokens, want.input_tokens);
    EXPECT_EQ(got->output_tokens, want.output_tokens);
    EXPECT_DOUBLE_EQ(got->cost_usd, want.cost_usd);
    EXPECT_EQ(got->transcript_json, want.transcript_json);
  }
}

TYPED_TEST(StoreContract, ABatchSettlesOnlyItsCommittedTurnsAgainstASharedLease) {
  auto& s = *this->store_;
  auto lease = s.ReserveSpend({"acme", "bot", "2026-11", 0.1, std::nullopt, 1, 1.0}).value();
  auto other = s.ReserveSpend({"acme", "bot", "2026-12", 0.1, std::nullopt, 1, 0}).value();
  ASSERT_TRUE(lease.reserved && other.reserved);
  TurnCommit a = Settling("s1", {Cost(lease.reservation_id, 0.02, 10, 1, "2026-11", 0.1),
                                 Cost(lease.reservation_id, 0.03, 20, 2, "2026-11", 0.1)});
  TurnCommit b = Settling("s2", {Cost(lease.reservation_id, 0.04, 40, 4, "2026-11", 0.1),
                                 Cost(other.reservation_id, 0.05, 50, 5, "2026-12", 0.1)});
  TurnCommit again = Settling("s1", {Cost(lease.reservation_id, 0.5, 1, 1, "2026-11", 0.1)});
  const auto results = s.CommitTurns({&a, &again, &b});
  ASSERT_TRUE(results[0] && results[2]);
  EXPECT_EQ(results[1].error().code, ErrorCode::kConflict);  // a duplicate turn settles nothing
  auto november = s.GetUsage("acme", "2026-11").value().at(0);
  EXPECT_NEAR(november.spent_usd, 0.09, 1e-12);
  EXPECT_NEAR(november.reserved_usd, 0.7, 1e-12);  // 1.0 leased, three parts of 0.1 taken off
  EXPECT_EQ(november.input_tokens, 70);
  EXPECT_EQ(november.model_calls, 3);
  auto december = s.GetUsage("acme", "2026-12").value().at(0);
  EXPECT_NEAR(december.spent_usd, 0.05, 1e-12);
  EXPECT_NEAR(december.reserved_usd, 0.0, 1e-12);
  EXPECT_EQ(december.model_calls, 1);
}

// Committed alone (no other turn in its group), a refused turn leaves nothing either: not its
// settlement, not its row.
TYPED_TEST(StoreContract, ARefusedTurnCommittedAloneLeavesNothing) {
  auto& s = *this->store_;
  auto lease = s.ReserveSpend({"acme", "bot", "2026-11", 0.1, std::nullopt, 1, 1.0}).value();
  ASSERT_TRUE(lease.reserved);
  TurnCommit first = Settling("alone", {Cost(lease.reservation_id, 0.02, 10, 1, "2026-11", 0.1)});
  ASSERT_TRUE(s.CommitTurns({&first}).at(0));
  TurnCommit again = Settling("alone", {Cost(lease.reservation_id, 0.5, 7, 3, "2026-11", 0.1)});
  const auto refused = s.CommitTurns({&again});
  ASSERT_EQ(refused.size(), 1u);
  EXPECT_EQ(refused[0].error().code, ErrorCode::kConflict);
  const auto november = s.GetUsage("acme", "2026-11").value().at(0);
  EXPECT_NEAR(november.spent_usd, 0.02, 1e-12);
  EXPECT_NEAR(november.reserved_usd, 0.9, 1e-12);
  EXPECT_EQ(november.input_tokens, 10);
  EXPECT_EQ(november.model_calls, 1);
  TurnCommit next = Settling("next", {Cost(lease.reservation_id, 0.03, 5, 1, "2026-11", 0.1)});
  EXPECT_TRUE(s.CommitTurns({&next}).at(0));  // the store is left as it was, ready for more
  EXPECT_NEAR(s.GetUsage("acme", "2026-11").value().at(0).spent_usd, 0.05, 1e-12);
}

TYPED_TEST(StoreContract, TheOrgLimitCountsEveryAgent) {
  auto& s = *this->store_;
  ASSERT_TRUE(s.SetOrgSpendLimit("acme", 1.0).value());
  ASSERT_TRUE(s.ReserveSpend({"acme", "a", "2026-11", 0.6, std::nullopt, 1, 0}).value().reserved);
  ASSERT_TRUE(s.ReserveSpend({"acme", "b", "2026-11", 0.6, std::nullopt, 1, 0}).value().reserved);
  auto refused = s.ReserveSpend({"acme", "c", "2026-11", 0.1, std::nullopt, 1, 0}).value();
  EXPECT_FALSE(refused.reserved);
  EXPECT_EQ(refused.scope, "organization");
  EXPECT_TRUE(s.ReserveSpend({"acme", "c", "2026-12", 0.1, std::nullopt, 1, 0}).value().reserved);
}

TYPED_TEST(StoreContract, AChangedOrgLimitHoldsFromTheNextReservation) {
  auto& s = *this->store_;  // acme starts without a limit
  ASSERT_TRUE(s.ReserveSpend({"acme", "a", "2026-11", 5.0, std::nullopt, 1, 0}).value().reserved);
  ASSERT_TRUE(s.SetOrgSpendLimit("acme", 1.0).value());
  auto refused = s.ReserveSpend({"acme", "a", "2026-11", 0.1, std::nullopt, 2, 0}).value();
  EXPECT_FALSE(refused.reserved);
  EXPECT_EQ(refused.scope, "organization");
  EXPECT_DOUBLE_EQ(refused.limit_usd, 1.0);
  ASSERT_TRUE(s.SetOrgSpendLimit("acme", std::nullopt).value());
  EXPECT_TRUE(s.ReserveSpend({"acme", "a", "2026-11", 0.1, std::nullopt, 3, 0}).value().reserved);
}

TYPED_TEST(StoreContract, ALeaseIsSettledInPartsAndGivesBackWhatIsUnused) {
  auto& s = *this->store_;
  ASSERT_TRUE(s.SetOrgSpendLimit("acme", 10.0).value());
  // A server asks for 32 calls of 0.05: the headroom's quarter (2.5) covers 1.6, so all of it.
  auto lease = s.ReserveSpend({"acme", "bot", "2026-11", 0.05, std::nullopt, 1, 1.6}).value();
  ASSERT_TRUE(lease.reserved);
  EXPECT_DOUBLE_EQ(lease.amount_usd, 1.6);
  // Two turns settle parts of it: each takes its part off, whatever it cost.
  ASSERT_TRUE(
      s.CommitTurn(Settling("p1", {Cost(lease.reservation_id, 0.01, 1, 1, "2026-11", 0.05)})));
  ASSERT_TRUE(
      s.CommitTurn(Settling("p2", {Cost(lease.reservation_id, 0.02, 1, 1, "2026-11", 0.05)})));
  auto usage = s.GetUsage("acme", "2026-11").value().at(0);
  EXPECT_NEAR(usage.spent_usd, 0.03, 1e-12);
  EXPECT_NEAR(usage.reserved_usd, 1.5, 1e-12);
  EXPECT_EQ(usage.model_calls, 2);
  // The server gives back what it will not use; the rest stays reserved until released.
  ASSERT_TRUE(s.ReturnSpend(lease.reservation_id, 1.2));
  EXPECT_NEAR(s.GetUsage("acme", "2026-11").value().at(0).reserved_usd, 0.3, 1e-12);
  ASSERT_TRUE(s.ReturnSpend("no-such-reservation", 1.0));  // nothing to give back
  ASSERT_TRUE(s.ReleaseSpend({lease.reservation_id}));
  EXPECT_NEAR(s.GetUsage("acme", "2026-11").value().at(0).reserved_usd, 0.0, 1e-12);
  ASSERT_TRUE(s.ReturnSpend(lease.reservation_id, 0.1));  // released: still nothing
  EXPECT_NEAR(s.GetUsage("acme", "2026-11").value().at(0).reserved_usd, 0.0, 1e-12);
  // Near the limit a lease shrinks to a quarter of the headroom, never below one call.
  ASSERT_TRUE(s.SetOrgSpendLimit("acme", 0.43).value());
  auto small = s.ReserveSpend({"acme", "bot", "2026-11", 0.05, std::nullopt, 2, 1.6}).value();
  EXPECT_NEAR(small.amount_usd, 0.1, 1e-12);  // (0.43 - 0.03) / 4
  auto last = s.ReserveSpend({"acme", "bot", "2026-11", 0.3, std::nullopt, 3, 1.6}).value();
  ASSERT_TRUE(last.reserved);  // headroom 0.3: one call may cross
  EXPECT_NEAR(last.amount_usd, 0.3, 1e-12);
  EXPECT_FALSE(
      s.ReserveSpend({"acme", "bot", "2026-11", 0.01, std::nullopt, 4, 1.6}).value().reserved);
}

}  // namespace
TYPED_TEST(StoreContract, AnAgentsRunsArePagedLatestChangeFirstAndFilteredByOutcome) {
  auto& s = *this->store_;
  const auto run = [](std::string id, std::string agent, RunStatus status, std::int64_t created,
                      std::int64_t ended, std::string result = "") {
    RunRecord r;
    r.id = std::move(id);
    r.org_id = "acme";
    r.env = "prod";
    r.agent_id = std::move(agent);
    r.token_id = "t1";
    r.status = status;
    r.conversation_id = "conv_a";
    r.created_at_ms = created;
    r.started_at_ms = ended > 0 ? created + 1 : 0;
    r.ended_at_ms = ended;
    r.result_json = std::move(result);
    return r;
  };
  std::vector<RunRecord> runs = {
      run("run_1", "bot", RunStatus::kCompleted, 100, 900,
          R"({"response":"ok","terminated_reason":null,"blocked":false})"),
      run("run_2", "bot", RunStatus::kCompleted, 200, 800,
          R"({"response":"\"blocked\":true","terminated_reason":"max_iterations","blocked":false})"),
      run("run_3", "bot", RunStatus::kCompleted, 300, 700,
          R"({"response":"[withheld]","terminated_reason":null,"blocked":true})"),
      run("run_4", "bot", RunStatus::kQueued, 1000, 0),
      run("run_5", "other", RunStatus::kQueued, 1100, 0),
      run("run_6", "bot", RunStatus::kQueued, 1200, 0)};
  runs[5].conversation_id = "";  // a stateless run: no task of a context
  for (const auto& r : runs) {
    if (r.status == RunStatus::kQueued) {
      ASSERT_TRUE(s.CreateRun(r, 100, std::nullopt).value());
    } else {
      const RunWrite once = EndedOnce(r, {});
      ASSERT_TRUE(s.WriteRuns({&once}).at(0).value());
    }
  }
  AgentRunsQuery query{"acme", "prod", "bot", "", "", 0, 0, "", 2};
  const auto ids = [&](const AgentRunsQuery& q) {
    std::vector<std::string> out;
    for (const auto& r : s.ListAgentRuns(q).value()) out.push_back(r.id);
    return out;
  };
  EXPECT_EQ(ids(query), (std::vector<std::string>{"run_4", "run_1"}));  // by the latest change
  EXPECT_EQ(s.CountAgentRuns(query).value(), 4);
  query.before_changed_ms = 900;
  query.before_id = "run_1";
  EXPECT_EQ(ids(query), (std::vector<std::string>{"run_2", "run_3"}));
  query = AgentRunsQuery{"acme", "prod", "bot", "", ",completed,", 0, 0, "", 10};
  EXPECT_EQ(ids(query), (std::vector<std::string>{"run_1"}));  // a stop or a block is "stopped"
  query.outcomes = ",stopped,";
  EXPECT_EQ(ids(query), (std::vector<std::string>{"run_2", "run_3"}));
  EXPECT_EQ(s.CountAgentRuns(query).value(), 2);
  query = AgentRunsQuery{"acme", "prod", "bot", "conv_other", "", 0, 0, "", 10};
  EXPECT_TRUE(ids(query).empty());
  query = AgentRunsQuery{"acme", "prod", "bot", "", "", 850, 0, "", 10};
  EXPECT_EQ(ids(query), (std::vector<std::string>{"run_4", "run_1"}));
}

}  // namespace agentgate::testing
