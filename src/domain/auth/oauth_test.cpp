#include "domain/auth/access_token.hpp"
#include "domain/auth/oauth_metadata.hpp"
#include "domain/auth/oauth_token_request.hpp"

#include <gtest/gtest.h>
#include <boost/json/parse.hpp>

namespace agentgate::oauth {
namespace {

constexpr std::string_view kForm = "application/x-www-form-urlencoded";

ClientAuthorization Basic(std::optional<std::string> decoded) {
  return ClientAuthorization{ClientAuthorization::Kind::kBasic, std::move(decoded)};
}

// A refusal as the token endpoint writes it: §5.2's name and status, and whether it asks for
// HTTP Basic.
struct Refused {
  std::string error;
  int status = 0;
  bool basic_challenge = false;
};

Refused Refusal(const Result<TokenRequest>& read, const ClientAuthorization& authorization = {}) {
  EXPECT_FALSE(read);
  if (read) return Refused{};
  return Refused{std::string(OAuthErrorName(read.error())), OAuthStatusOf(read.error()),
                 ChallengesBasic(read.error(), authorization)};
}

}  // namespace

TEST(TokenRequest, ReadsBothClientAuthenticationsAndTheOptionalParameters) {
  auto basic =
      ReadTokenRequest(kForm, "grant_type=client_credentials&scope=mcp", Basic("agc_1:s%3Acret+x"));
  ASSERT_TRUE(basic);
  const auto& b = *basic;
  EXPECT_EQ(b.client_id, "agc_1");
  EXPECT_EQ(b.client_secret, "s:cret x");  // form-encoded inside Basic (RFC 6749 §2.3.1)
  EXPECT_EQ(b.authentication, ClientAuthentication::kBasic);
  EXPECT_EQ(b.scope, "mcp");
  EXPECT_FALSE(b.resource);

  auto post = ReadTokenRequest("application/x-www-form-urlencoded; charset=utf-8",
                               "grant_type=client_credentials&client_id=agc_1&client_secret=s&"
                               "resource=https%3A%2F%2Fa%2Fmcp",
                               {});
  ASSERT_TRUE(post);
  EXPECT_EQ(post->authentication, ClientAuthentication::kPost);
  EXPECT_EQ(post->resource, "https://a/mcp");
}

TEST(TokenRequest, RefusesEachMalformedRequestWithTheProtocolsCode) {
  const std::string grant = "grant_type=client_credentials";
  EXPECT_EQ(Refusal(ReadTokenRequest("application/json", "{}", {})).error, "invalid_request");
  EXPECT_EQ(Refusal(ReadTokenRequest(std::nullopt, grant, {})).error, "invalid_request");
  EXPECT_EQ(Refusal(ReadTokenRequest(kForm, "client_id=a&client_secret=b", {})).error,
            "invalid_request");
  const auto other = Refusal(ReadTokenRequest(kForm, "grant_type=authorization_code", {}));
  EXPECT_EQ(other.error, "unsupported_grant_type");
  EXPECT_EQ(other.status, 400);
  EXPECT_EQ(Refusal(ReadTokenRequest(kForm, grant + "&grant_type=password", {})).error,
            "invalid_request");  // repeated
  EXPECT_EQ(Refusal(ReadTokenRequest(kForm, grant + "&scope=%zz", {})).error, "invalid_request");
  const auto none = Refusal(ReadTokenRequest(kForm, grant, {}));
  EXPECT_EQ(none.error, "invalid_client");
  EXPECT_EQ(none.status, 401);
  EXPECT_FALSE(none.basic_challenge);
  const auto unreadable =
      Refusal(ReadTokenRequest(kForm, grant, Basic(std::nullopt)), Basic(std::nullopt));
  EXPECT_EQ(unreadable.error, "invalid_client");
  EXPECT_TRUE(unreadable.basic_challenge);
  EXPECT_EQ(Refusal(ReadTokenRequest(kForm, grant, Basic("no-colon"))).error, "invalid_client");
  EXPECT_EQ(Refusal(ReadTokenRequest(kForm, grant + "&client_secret=x", Basic("a:b"))).error,
            "invalid_request");  // two methods
  EXPECT_EQ(Refusal(ReadTokenRequest(kForm, grant,
                                     ClientAuthorization{ClientAuthorization::Kind::kOther, {}}))
                .error,
            "invalid_client");
  // A parameter without a value is omitted (RFC 6749 §3.2).
  EXPECT_EQ(Refusal(ReadTokenRequest(kForm, grant + "&client_id=a&client_secret=", {})).error,
            "invalid_client");
}

TEST(TokenRequest, OnlyAnIdShapedLikeOursIsLookedUp) {
  EXPECT_TRUE(IsClientIdShaped("agc_0123456789abcdef"));
  EXPECT_TRUE(IsClientIdShaped("agc_1"));
  EXPECT_FALSE(IsClientIdShaped("agc_"));
  EXPECT_FALSE(IsClientIdShaped("agc_ABC"));
  EXPECT_FALSE(IsClientIdShaped("agc_a b"));
  EXPECT_FALSE(IsClientIdShaped("client-1"));
  EXPECT_FALSE(IsClientIdShaped("agc_" + std::string(61, 'a')));
  EXPECT_TRUE(IsClientIdShaped("agc_" + std::string(60, 'a')));
  EXPECT_FALSE(IsClientIdShaped("agc_" + std::string(1 << 20, 'a')));
}

TEST(TokenRequest, GrantsTheOneScopeAndOnlyOurResource) {
  EXPECT_EQ(GrantedScope(std::nullopt).value(), "mcp a2a");  // none asked: every scope
  EXPECT_EQ(GrantedScope("mcp").value(), "mcp");
  EXPECT_EQ(GrantedScope("mcp  mcp").value(), "mcp");
  EXPECT_EQ(GrantedScope("a2a").value(), "a2a");
  EXPECT_EQ(GrantedScope("a2a mcp").value(), "mcp a2a");
  EXPECT_EQ(OAuthErrorName(GrantedScope("mcp admin").error()), "invalid_scope");
  EXPECT_EQ(OAuthErrorName(GrantedScope(" ").error()), "invalid_scope");
}

TEST(TokenRequest, ATokenIsForTheResourceAskedWithItsScopeOrForEachScopeGranted) {
  const auto both = TargetOf(std::nullopt, "mcp a2a", "https://a").value();
  EXPECT_EQ(both.audiences, (std::vector<std::string>{"https://a/mcp", "https://a/a2a"}));
  EXPECT_EQ(both.scope, "mcp a2a");
  EXPECT_EQ(TargetOf(std::nullopt, "a2a", "https://a").value().audiences,
            (std::vector<std::string>{"https://a/a2a"}));
  const auto a2a = TargetOf("https://a/a2a", "mcp a2a", "https://a").value();
  EXPECT_EQ(a2a.audiences, (std::vector<std::string>{"https://a/a2a"}));
  EXPECT_EQ(a2a.scope, "a2a");  // the resource's scope alone
  EXPECT_EQ(TargetOf("https://a/mcp", "mcp a2a", "https://a").value().scope, "mcp");
  EXPECT_EQ(OAuthErrorName(TargetOf("https://a/a2a", "mcp", "https://a").error()),
            "invalid_target");
  EXPECT_EQ(OAuthErrorName(TargetOf("https://b/mcp", "mcp", "https://a").error()),
            "invalid_target");
}

TEST(AccessToken, ATokenForBothResourcesIsAcceptedByEachForItsScope) {
  AccessTokenClaims claims{
      "https://a", {"https://a/mcp", "https://a/a2a"}, "agc_1", "mcp a2a", "j1", 1000, 1600};
  const std::string payload = AccessTokenPayload(claims);
  EXPECT_TRUE(boost::json::parse(payload).at("aud").is_array());
  EXPECT_TRUE(AcceptedClaims(payload, "https://a", "https://a/a2a", "a2a", 1500));
  EXPECT_TRUE(AcceptedClaims(payload, "https://a", "https://a/mcp", "mcp", 1500));
  EXPECT_FALSE(AcceptedClaims(payload, "https://a", "https://a/admin", "a2a", 1500));
  claims.scope = "mcp";
  EXPECT_FALSE(
      AcceptedClaims(AccessTokenPayload(claims), "https://a", "https://a/a2a", "a2a", 1500));
}

TEST(TokenRequest, ARefusalsOAuthNameAndStatusComeFromItsCode) {
  EXPECT_EQ(OAuthErrorName(Error(ErrorCode::kUnavailable, "down")), "temporarily_unavailable");
  EXPECT_EQ(OAuthStatusOf(Error(ErrorCode::kUnavailable, "down")), 503);
  EXPECT_EQ(OAuthErrorName(Error(ErrorCode::kPayloadTooLarge, "big")), "invalid_request");
  EXPECT_EQ(OAuthStatusOf(Error(ErrorCode::kPayloadTooLarge, "big")), 413);
  // Anything else the store or a key says is the server's own error.
  EXPECT_EQ(OAuthErrorName(Error(ErrorCode::kNotFound, "gone")), "server_error");
  EXPECT_EQ(OAuthStatusOf(Error(ErrorCode::kNotFound, "gone")), 500);
  const Error named = OAuthRefusal(ErrorCode::kInvalidRequest, "unauthorized_client", "revoked");
  EXPECT_EQ(OAuthErrorName(named), "unauthorized_client");
  EXPECT_EQ(OAuthStatusOf(named), 400);
  EXPECT_FALSE(ChallengesBasic(named, Basic("a:b")));
}

TEST(AccessToken, AcceptsItsOwnClaimsAndRefusesAnotherIssuerAudienceScopeOrAnExpiredOne) {
  AccessTokenClaims claims{"https://a", {"https://a/mcp"}, "agc_1", "mcp", "j1", 1000, 1600};
  const std::string payload = AccessTokenPayload(claims);
  const auto parsed = boost::json::parse(payload).as_object();
  EXPECT_EQ(parsed.at("sub"), "agc_1");  // RFC 9068 §2.2: the client, with no user
  auto ok = AcceptedClaims(payload, "https://a", "https://a/mcp", "mcp", 1599);
  ASSERT_TRUE(ok);
  EXPECT_EQ(ok->client_id, "agc_1");
  EXPECT_EQ(ok->expires_at_s, 1600);
  const auto refused = [&](std::string_view issuer, std::string_view audience,
                           std::string_view scope, std::int64_t now) {
    auto r = AcceptedClaims(payload, issuer, audience, scope, now);
    return !r ? r.error().message : std::string();
  };
  EXPECT_NE(refused("https://a", "https://a/mcp", "mcp", 1600).find("expired"), std::string::npos);
  EXPECT_NE(refused("https://b", "https://a/mcp", "mcp", 1000).find("iss"), std::string::npos);
  EXPECT_NE(refused("https://a", "https://b/mcp", "mcp", 1000).find("aud"), std::string::npos);
  EXPECT_NE(refused("https://a", "https://a/mcp", "admin", 1000).find("scope"), std::string::npos);
  EXPECT_FALSE(AcceptedClaims("[]", "https://a", "https://a/mcp", "mcp", 1000));
  EXPECT_FALSE(AcceptedClaims(R"({"iss":"https://a","aud":"https://a/mcp","exp":"1600","iat":1})",
                              "https://a", "https://a/mcp", "mcp", 1000));
}

TEST(AccessToken, TheHeaderMustBeOursES256AtJwtWithAKeyId) {
  EXPECT_EQ(SigningKeyOf(AccessTokenHeader("k1")).value(), "k1");
  EXPECT_FALSE(SigningKeyOf(R"({"alg":"none","typ":"at+jwt","kid":"k1"})"));
  EXPECT_FALSE(SigningKeyOf(R"({"alg":"HS256","typ":"at+jwt","kid":"k1"})"));
  EXPECT_FALSE(SigningKeyOf(R"({"alg":"ES256","typ":"JWT","kid":"k1"})"));
  EXPECT_FALSE(SigningKeyOf(R"({"alg":"ES256","typ":"at+jwt"})"));
  EXPECT_FALSE(SigningKeyOf("not json"));
}

TEST(OAuthMetadata, TheDocumentsPointAtEachOtherAndTheChallengeAtTheResourcesDocument) {
  const auto resource =
      boost::json::parse(ProtectedResourceMetadata("https://gw.example")).as_object();
  EXPECT_EQ(resource.at("resource"), "https://gw.example/mcp");
  EXPECT_EQ(resource.at("authorization_servers").as_array().at(0), "https://gw.example");
  const auto server =
      boost::json::parse(AuthorizationServerMetadata("https://gw.example")).as_object();
  EXPECT_EQ(server.at("issuer"), "https://gw.example");
  EXPECT_EQ(server.at("token_endpoint"), "https://gw.example/oauth/token");
  EXPECT_EQ(server.at("jwks_uri"), "https://gw.example/oauth/jwks");
  EXPECT_EQ(server.at("grant_types_supported").as_array().size(), 1u);
  EXPECT_EQ(BearerChallenge("https://gw.example", std::nullopt),
            "Bearer resource_metadata=\"https://gw.example/.well-known/oauth-protected-resource\"");
  EXPECT_EQ(BearerChallenge("https://gw.example", std::string("it \"has\" expired")),
            "Bearer resource_metadata=\"https://gw.example/.well-known/oauth-protected-resource\", "
            "error=\"invalid_token\", error_description=\"it has expired\"");
  // No base to point at (no public_url beyond loopback): the challenge names no metadata.
  EXPECT_EQ(BearerChallenge("", std::nullopt), "Bearer");
  EXPECT_EQ(BearerChallenge("", std::string("no")),
            "Bearer error=\"invalid_token\", error_description=\"no\"");
}

}  // namespace agentgate::oauth
