#include "crypto/crypto.hpp"

#include <gtest/gtest.h>

#include <set>

namespace agentgate::crypto {

TEST(Crypto, Sha256MatchesTheKnownVector) {
  EXPECT_EQ(ToHex(Sha256("abc")),
            "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
}

TEST(Crypto, HmacSha256AndBase64MatchTheKnownVectors) {
  // RFC 4231 test case 2.
  EXPECT_EQ(ToHex(HmacSha256("Jefe", "what do ya want for nothing?")),
            "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843");
  EXPECT_EQ(Base64(""), "");
  EXPECT_EQ(Base64("f"), "Zg==");
  EXPECT_EQ(Base64("fo"), "Zm8=");
  EXPECT_EQ(Base64("foobar"), "Zm9vYmFy");
  for (const std::string& raw :
       std::vector<std::string>{"", "f", "fo", "foo", std::string("\0\xff\x10", 3)}) {
    EXPECT_EQ(FromBase64(Base64(raw)), raw);
  }
  EXPECT_FALSE(FromBase64("Zm9"));
  EXPECT_FALSE(FromBase64("Zm9v!!!!"));
}

TEST(Crypto, RandomBytesDrawnFromTheThreadPoolNeverRepeatAcrossRefills) {
  std::set<std::string> seen;
  for (int i = 0; i < 3000; ++i) ASSERT_TRUE(seen.insert(RandomHex(12)).second);  // ~9 refills
  EXPECT_EQ(RandomBytes(1000).size(), 1000u);  // past what the pool serves: drawn directly
  EXPECT_NE(RandomBytes(1000), RandomBytes(1000));
}

TEST(Crypto, RandomSecretsHaveTheRequestedSizeAndDiffer) {
  EXPECT_EQ(RandomHex(8).size(), 16u);
  EXPECT_EQ(RandomBase64Url(32).size(), 43u);  // 256 bits, unpadded
  EXPECT_NE(RandomBase64Url(32), RandomBase64Url(32));
}

TEST(Crypto, TimeOrderedIdsSortByTimeAndDifferWithinAMillisecond) {
  const std::string earlier = TimeOrderedHex(1'764'000'000'000, 8);
  const std::string later = TimeOrderedHex(1'764'000'000'001, 8);
  EXPECT_EQ(earlier.size(), 28u);
  EXPECT_EQ(earlier.substr(0, 12), "019ab697e800");
  EXPECT_LT(earlier, later);
  EXPECT_LT(TimeOrderedHex(0xfffffffffff, 8), TimeOrderedHex(0x100000000000, 8));  // fixed width
  EXPECT_NE(TimeOrderedHex(5, 8), TimeOrderedHex(5, 8));
  EXPECT_EQ(TimeOrderedHex(-1, 1).substr(0, 12), "000000000000");  // a clock before 1970 clamps
}

TEST(Crypto, ConstantTimeEqualsComparesContentAndLength) {
  EXPECT_TRUE(ConstantTimeEquals("abc", "abc"));
  EXPECT_FALSE(ConstantTimeEquals("abc", "abd"));
  EXPECT_FALSE(ConstantTimeEquals("abc", "abcd"));
}

TEST(Crypto, MasterKeyMustBe64HexCharacters) {
  EXPECT_TRUE(ParseMasterKey(std::string(64, 'a'), "key"));
  EXPECT_FALSE(ParseMasterKey(std::string(63, 'a'), "key"));
  EXPECT_FALSE(ParseMasterKey(std::string(64, 'g'), "key"));
}

TEST(Crypto, SealedSecretsOpenOnlyWithTheirKeyAndContext) {
  const auto key = ParseMasterKey(std::string(64, '1'), "key").value();
  const auto other = ParseMasterKey(std::string(64, '2'), "key").value();
  const std::string sealed = Seal(key, "refresh-token-secret", "crm:acme/prod");
  EXPECT_EQ(sealed.find("refresh-token-secret"), std::string::npos);
  auto opened = Open(key, sealed, "crm:acme/prod");
  ASSERT_TRUE(opened);
  EXPECT_EQ(*opened, "refresh-token-secret");
  EXPECT_FALSE(Open(other, sealed, "crm:acme/prod"));
  EXPECT_FALSE(Open(key, sealed, "crm:acme/dev"));
  std::string tampered = sealed;
  tampered[20] ^= 1;
  EXPECT_FALSE(Open(key, tampered, "crm:acme/prod"));
  EXPECT_FALSE(Open(key, "short", "crm:acme/prod"));
  EXPECT_NE(Seal(key, "x", "c"), Seal(key, "x", "c"));  // fresh nonce each time
}

}  // namespace agentgate::crypto
