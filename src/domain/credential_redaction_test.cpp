#include "domain/credential_redaction.hpp"

#include <gtest/gtest.h>

namespace agentgate {

TEST(CredentialRedaction, OpenAisMaskedKeyIsRedactedAndTheRestKept) {
  const std::string said =
      "Incorrect API key provided: sk-proj-****************************************abcd. You can "
      "find your API key at https://platform.openai.com/account/api-keys.";
  EXPECT_EQ(RedactCredentials(said),
            "Incorrect API key provided: [redacted]. You can find your API key at "
            "https://platform.openai.com/account/api-keys.");
}

TEST(CredentialRedaction, KnownSecretsAndKeyShapesAreRedactedWherePlainWordsAreNot) {
  EXPECT_EQ(RedactCredentials("key my-own-secret-value was refused", {"my-own-secret-value"}),
            "key [redacted] was refused");
  EXPECT_EQ(RedactCredentials("bad key sk-ant-api03-abcdef (invalid)"),
            "bad key [redacted] (invalid)");
  EXPECT_EQ(RedactCredentials("AKIAIOSFODNN7EXAMPLE,ghp_0123456789abcdef"),
            "[redacted],[redacted]");
  EXPECT_EQ(RedactCredentials("token 0123456789abcdef0123456789abcdef01 expired"),
            "token [redacted] expired");
  const std::string plain =
      "401: invalid_api_key: the model gpt-4o-mini is not available; rate_limit_exceeded at "
      "sk- level";
  EXPECT_EQ(RedactCredentials(plain), plain);
  EXPECT_EQ(RedactCredentials("short", {"abc"}), "short");  // too short to be a secret
  EXPECT_EQ(RedactCredentials(""), "");
}

}  // namespace agentgate
