#include "crypto/jws.hpp"

#include "crypto/crypto.hpp"

#include <gtest/gtest.h>

namespace agentgate::crypto {

TEST(Base64Url, IsRfc4648sUrlAlphabetUnpaddedAndReadsOnlyCanonicalText) {
  EXPECT_EQ(Base64Url(""), "");
  EXPECT_EQ(Base64Url("f"), "Zg");
  EXPECT_EQ(Base64Url("fo"), "Zm8");
  EXPECT_EQ(Base64Url(std::string("\xfb\xff", 2)), "-_8");
  for (const std::string& raw : {std::string(), std::string("f"), std::string("\xfb\xff\x00", 3)})
    EXPECT_EQ(FromBase64Url(Base64Url(raw)), raw);
  EXPECT_FALSE(FromBase64Url("Zg=="));  // padded
  EXPECT_FALSE(FromBase64Url("+/8"));   // the standard alphabet
  EXPECT_FALSE(FromBase64Url("Z"));     // no whole byte
  EXPECT_FALSE(FromBase64Url("Zh"));    // "f" with an unused bit set: not canonical
}

TEST(Es256, ASignatureVerifiesWithItsKeyOnlyAndOverItsDataOnly) {
  const auto key = GenerateEs256Key();
  ASSERT_EQ(key.private_scalar.size(), 32u);
  ASSERT_EQ(key.public_point.size(), 65u);
  EXPECT_EQ(key.public_point[0], '\x04');
  const std::string signature = SignEs256(key, "header.payload");
  ASSERT_EQ(signature.size(), 64u);
  EXPECT_TRUE(VerifyEs256(key.public_point, "header.payload", signature));
  EXPECT_FALSE(VerifyEs256(key.public_point, "header.payloaD", signature));
  EXPECT_FALSE(VerifyEs256(GenerateEs256Key().public_point, "header.payload", signature));
  std::string flipped = signature;
  flipped[10] = static_cast<char>(flipped[10] ^ 1);
  EXPECT_FALSE(VerifyEs256(key.public_point, "header.payload", flipped));
  EXPECT_FALSE(VerifyEs256(key.public_point, "header.payload", signature.substr(0, 63)));
  std::string off_curve = key.public_point;
  off_curve[64] = static_cast<char>(off_curve[64] ^ 1);
  EXPECT_FALSE(VerifyEs256(off_curve, "header.payload", signature));
  EXPECT_FALSE(VerifyEs256("", "header.payload", signature));
}

TEST(CompactJws, ReadsBackWhatItSignsAndRefusesOtherShapes) {
  const auto key = GenerateEs256Key();
  const std::string token = SignCompactJws(R"({"alg":"ES256"})", R"({"sub":"c"})", key);
  const auto read = ReadCompactJws(token);
  ASSERT_TRUE(read);
  EXPECT_EQ(read->header_json, R"({"alg":"ES256"})");
  EXPECT_EQ(read->payload_json, R"({"sub":"c"})");
  EXPECT_EQ(read->signing_input, token.substr(0, token.rfind('.')));
  EXPECT_TRUE(VerifyEs256(key.public_point, read->signing_input, read->signature));
  EXPECT_FALSE(ReadCompactJws("a.b"));
  EXPECT_FALSE(ReadCompactJws("a.b.c.d"));
  EXPECT_FALSE(ReadCompactJws("e30.e30.!!"));
  EXPECT_FALSE(ReadCompactJws(""));
}

TEST(Es256, SignaturesAreLowSAndTheHighSFormIsRefused) {
  const auto key = GenerateEs256Key();
  int high_forms_seen = 0;
  for (int i = 0; i < 64; ++i) {
    const std::string data = "header.payload" + std::to_string(i);
    const std::string signature = SignEs256(key, data);
    ASSERT_TRUE(VerifyEs256(key.public_point, data, signature));
    const std::string other = HighSForm(signature);
    ASSERT_NE(other, signature);
    EXPECT_FALSE(VerifyEs256(key.public_point, data, other)) << i;
    // n - s of a low s is high: its first byte is at least 0x7f (n begins 0xff...).
    if (static_cast<unsigned char>(other[32]) >= 0x7f) ++high_forms_seen;
  }
  EXPECT_EQ(high_forms_seen, 64);
}

}  // namespace agentgate::crypto
