// The built-in authorization server's use case (app/authorization_server) on a real SQLite store:
// what a token acts as, the key made once and rotated, and the bound on what it remembers.
#include "app/access/authorization_server.hpp"

#include "domain/auth/access_token.hpp"
#include "store/store_backends.hpp"
#include "support/manual_clock.hpp"
#include "support/run_async.hpp"

#include <gtest/gtest.h>
#include <boost/asio/thread_pool.hpp>

namespace agentgate::testing {
namespace {

namespace asio = boost::asio;
constexpr const char* kBase = "https://gw.example";

class AuthorizationServerTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_TRUE(store_->CreateOrg(OrgRecord{"acme", "Acme", std::nullopt, 1}));
    ASSERT_TRUE(store_->CreateEnvironment("acme", "prod"));
    ASSERT_TRUE(store_->CreateToken(TokenRecord{"t1", "acme", "backend", "h", {}, 1, false}));
    for (const char* id : {"agc_1", "agc_2", "agc_3", "agc_4"}) {
      ASSERT_TRUE(store_->CreateOAuthClient(
          OAuthClientRecord{id, "acme", "prod", "t1", id, crypto::Sha256("secret"), 1}));
    }
  }
  void TearDown() override { pool_.join(); }

  std::string Token(const char* client_id) {
    oauth::TokenRequest request;
    request.client_id = client_id;
    request.client_secret = "secret";
    auto issued = RunAsync(io_, server_.IssueToken(request, kBase));
    EXPECT_TRUE(issued);
    return issued ? issued->access_token : std::string();
  }
  Result<Caller> Admit(const std::string& token) {
    return RunAsync(io_, server_.Admit(token, kBase));
  }

  SqliteBackend backend_;
  std::unique_ptr<Store> store_ = backend_.Open();
  asio::thread_pool pool_{1};
  asio::io_context io_;
  StoreRunner runner_{*store_, pool_};
  ManualClock clock_{1763700000000};
  TenantDirectory tenants_{runner_, clock_};
  AuthorizationServer server_{runner_, tenants_, clock_, crypto::MasterKey{},
                              AuthorizationServerSettings{600, 3}};
};

TEST_F(AuthorizationServerTest, ATokenActsAsItsClientsApiTokenUntilItExpires) {
  const std::string token = Token("agc_1");
  auto caller = Admit(token);
  ASSERT_TRUE(caller) << caller.error().message;
  EXPECT_EQ(caller->org_id, "acme");
  EXPECT_EQ(caller->env, "prod");
  EXPECT_EQ(caller->token_id, "t1");
  clock_.Advance(std::chrono::seconds(600));
  auto expired = Admit(token);
  ASSERT_FALSE(expired);
  EXPECT_EQ(expired.error().code, ErrorCode::kUnauthenticated);
  EXPECT_NE(expired.error().message.find("expired"), std::string::npos);
}

TEST_F(AuthorizationServerTest, OneKeyIsMadeOnFirstUseAndARotationKeepsTheOldOneVerifying) {
  const std::string before = Token("agc_1");
  Token("agc_2");
  ASSERT_EQ(store_->ListSigningKeys().value().size(), 1u);  // made once
  auto rotated = RunAsync(io_, server_.RotateSigningKey());
  ASSERT_TRUE(rotated);
  EXPECT_TRUE(rotated->sealed_private.empty());  // the admin API never sees it
  const std::string after = Token("agc_3");
  EXPECT_NE(before.substr(0, before.find('.')), after.substr(0, after.find('.')));  // another kid
  EXPECT_TRUE(Admit(before));
  EXPECT_TRUE(Admit(after));
  auto published = RunAsync(io_, server_.PublishedKeys());
  ASSERT_TRUE(published);
  EXPECT_EQ(published->size(), 2u);
  // Past its overlap, the retired key no longer verifies nor is published.
  clock_.Advance(std::chrono::milliseconds(oauth::kRetiredKeyVerifiesForMs + 1000));
  EXPECT_EQ(RunAsync(io_, server_.PublishedKeys())->size(), 1u);
  // The sealed key opens only under its master key.
  const auto keys = store_->ListSigningKeys().value();
  EXPECT_FALSE(crypto::Open(crypto::MasterKey{1}, keys[0].sealed_private,
                            "oauth_signing_key:" + keys[0].kid));
}

TEST_F(AuthorizationServerTest, ARevokedKeysTokensAreRefusedAtOnceAndTheNextTokenHasANewKey) {
  const std::string before = Token("agc_1");
  ASSERT_TRUE(Admit(before));  // verified, and remembered as verified
  const std::string kid = store_->ListSigningKeys().value().at(0).kid;
  EXPECT_EQ(RunAsync(io_, server_.RevokeSigningKey("no-such-kid")).error().code,
            ErrorCode::kNotFound);
  ASSERT_TRUE(RunAsync(io_, server_.RevokeSigningKey(kid)));
  const auto refused = Admit(before);
  ASSERT_FALSE(refused);
  EXPECT_EQ(refused.error().code, ErrorCode::kUnauthenticated);
  const std::string after = Token("agc_2");
  EXPECT_TRUE(Admit(after));
  EXPECT_NE(store_->ListSigningKeys().value().at(0).kid, kid);
}

TEST_F(AuthorizationServerTest, ATokenVerifiedBeforeIsRefusedOnceAnotherServerRevokedItsKey) {
  const std::string token = Token("agc_1");
  ASSERT_TRUE(Admit(token));
  // Deleted through the store, as another server's revocation is: seen once the keys are read
  // again, within kKeysFreshForMs.
  ASSERT_TRUE(store_->DeleteSigningKey(store_->ListSigningKeys().value().at(0).kid).value());
  clock_.Advance(std::chrono::milliseconds(AuthorizationServer::kKeysFreshForMs));
  EXPECT_FALSE(Admit(token));
}

TEST_F(AuthorizationServerTest, WhatItRemembersOfVerifiedTokensStaysWithinItsCapacity) {
  std::vector<std::string> tokens;
  for (const char* id : {"agc_1", "agc_2", "agc_3", "agc_4"}) tokens.push_back(Token(id));
  for (const auto& token : tokens) ASSERT_TRUE(Admit(token));
  EXPECT_LE(server_.VerifiedCountForTest(), 3u);
  for (const auto& token : tokens) ASSERT_TRUE(Admit(token));  // verified again when forgotten
  EXPECT_LE(server_.VerifiedCountForTest(), 3u);
}

TEST_F(AuthorizationServerTest, AWrongSecretAnUnknownClientAndARevokedApiTokenGetNoToken) {
  oauth::TokenRequest request;
  request.client_id = "agc_1";
  request.client_secret = "wrong";
  auto wrong = RunAsync(io_, server_.IssueToken(request, kBase));
  ASSERT_FALSE(wrong);
  EXPECT_EQ(oauth::OAuthErrorName(wrong.error()), "invalid_client");
  request.client_id = "agc_unknown";
  request.client_secret = "secret";
  auto unknown = RunAsync(io_, server_.IssueToken(request, kBase));
  EXPECT_EQ(oauth::OAuthErrorName(unknown.error()), "invalid_client");
  const std::string token = Token("agc_1");
  ASSERT_TRUE(store_->RevokeToken("acme", "t1").value());
  tenants_.Invalidate();
  auto refused = Admit(token);
  ASSERT_FALSE(refused);
  EXPECT_NE(refused.error().message.find("API token"), std::string::npos);
  request.client_id = "agc_1";
  auto no_token = RunAsync(io_, server_.IssueToken(request, kBase));
  EXPECT_EQ(oauth::OAuthErrorName(no_token.error()), "unauthorized_client");
}

}  // namespace
}  // namespace agentgate::testing
