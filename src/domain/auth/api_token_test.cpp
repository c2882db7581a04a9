#include "domain/auth/api_token.hpp"

#include <gtest/gtest.h>

namespace agentgate {

TEST(ApiToken, FormatThenParseRoundTrips) {
  const ApiTokenParts parts{"0123456789abcdef", std::string(43, 'A')};
  const auto token = FormatApiToken(parts);
  EXPECT_EQ(token, "agt_0123456789abcdef." + std::string(43, 'A'));
  const auto parsed = ParseApiToken(token);
  ASSERT_TRUE(parsed);
  EXPECT_EQ(parsed->id, parts.id);
  EXPECT_EQ(parsed->secret, parts.secret);
}

TEST(ApiToken, RejectsAnythingElse) {
  const std::string good = "agt_0123456789abcdef." + std::string(43, 'x');
  EXPECT_TRUE(ParseApiToken(good));
  EXPECT_FALSE(ParseApiToken(""));
  EXPECT_FALSE(ParseApiToken(good + "x"));
  EXPECT_FALSE(ParseApiToken(good.substr(1)));
  EXPECT_FALSE(ParseApiToken("xyz_0123456789abcdef." + std::string(43, 'x')));
  EXPECT_FALSE(ParseApiToken("agt_0123456789ABCDEF." + std::string(43, 'x')));  // id is lower hex
  EXPECT_FALSE(ParseApiToken("agt_0123456789abcdef-" + std::string(43, 'x')));
  EXPECT_FALSE(ParseApiToken("agt_0123456789abcdef." + std::string(42, 'x') + "="));
}

TEST(ApiKey, WrapsATokenWithItsOrganizationAndEnvironmentAndUnwrapsAtTheFirstTwoDots) {
  const std::string token = "agt_0123456789abcdef." + std::string(43, 'x');
  const std::string key = WrapApiKey(ApiKeyParts{"acme-eu_1", "prod", token});
  EXPECT_EQ(key, "agk_acme-eu_1.prod." + token);
  const auto back = UnwrapApiKey(key);
  ASSERT_TRUE(back);
  EXPECT_EQ(back->org, "acme-eu_1");
  EXPECT_EQ(back->env, "prod");
  EXPECT_EQ(back->token, token);  // its own dot stays in it
  for (const char* bad : {"", "agk_", "agk_acme", "agk_acme.prod", "agk_acme.prod.", "agk_.prod.t",
                          "agk_acme..t", "sk-acme.prod.t", "agt_0123456789abcdef.x"})
    EXPECT_FALSE(UnwrapApiKey(bad)) << bad;
}

TEST(BearerCredential, TheSchemeIsMatchedWithoutRegardToCase) {
  EXPECT_EQ(BearerCredential("Bearer abc"), "abc");
  EXPECT_EQ(BearerCredential("bearer abc"), "abc");
  EXPECT_EQ(BearerCredential("BEARER  abc"), "abc");
  EXPECT_FALSE(BearerCredential("Bearer "));
  EXPECT_FALSE(BearerCredential("Bearerabc"));
  EXPECT_FALSE(BearerCredential("Basic abc"));
  EXPECT_FALSE(BearerCredential(""));
}

}  // namespace agentgate
