// The hold-back's property (tests/support/reply_stream_property.hpp) over random replies seeded
// with matches of every detector and of block patterns with a bound, in random chunkings (one
// byte at a time included). A fixed seed: a failure names its case and replays.
#include "support/reply_stream_property.hpp"

#include <gtest/gtest.h>

#include <random>

namespace agentgate {
namespace {

// What replies are made of: prose, and the pieces matches are made of and nearly made of.
const std::vector<std::string> kWords = {"The ",
                                         "renewal ",
                                         "is ",
                                         "due ",
                                         "in ",
                                         "March",
                                         ". ",
                                         ", ",
                                         "\n",
                                         "A",
                                         "AK",
                                         "AKIA",
                                         "sk",
                                         "sk-",
                                         "proj-",
                                         "ant-",
                                         "s",
                                         "x",
                                         "xox",
                                         "gh",
                                         "ghp_",
                                         "AIza",
                                         "00D",
                                         "!",
                                         "-",
                                         "--",
                                         "-----",
                                         "BEGIN ",
                                         "RSA ",
                                         "PRIVATE ",
                                         "KEY",
                                         "4111",
                                         "1111",
                                         " ",
                                         "42",
                                         "0",
                                         "9",
                                         "12345",
                                         "-12-",
                                         "internal",
                                         "only",
                                         "project",
                                         "alpha",
                                         "beta",
                                         "DROP",
                                         "TABLE",
                                         "caf\xC3\xA9",
                                         "\xE2\x86\x92",
                                         "\xF0\x9F\x98\x80",
                                         "(?i)",
                                         "Internal ",
                                         "ONLY",
                                         "key=",
                                         "abcdefghij",
                                         "ABCDEFGHIJKLMNOP"};

// Whole matches, one of each kind.
const std::vector<std::string> kMatches = {"4111 1111 1111 1111",
                                           "4111-1111-1111-1111",
                                           "4242424242424242",
                                           "378282246310005",
                                           "sk-proj-ABCDEFGHIJKLMNOPQRSTUVWX",
                                           "sk-ant-abcdefghijklmnopqrstuvwx12",
                                           "AKIAABCDEFGHIJKLMNOP",
                                           "ghp_abcdefghijklmnopqrstuvwxyz0123456789",
                                           "xoxb-1234567890abc",
                                           "AIzaABCDEFGHIJKLMNOPQRSTUVWXYZ012345678",
                                           "-----BEGIN RSA PRIVATE KEY-----",
                                           "00DABCDEFGHIJKL!abcdefghijklmnopqrstu",
                                           "internal only",
                                           "INTERNAL ONLY",
                                           "project alpha",
                                           "project beta",
                                           "123-45-6789",
                                           "DROP TABLE"};

SafetyPolicy Policy(int which) {
  SafetyPolicy policy;
  policy.detect_credit_card = which != 1;
  policy.detect_secret = which != 2;
  if (which >= 2) {
    policy.block_patterns = {"(?i)internal only",
                             R"(\bproject (alpha|beta)\b)",
                             "[0-9]{3}-[0-9]{2}-[0-9]{4}",
                             "DROP TABLE$",
                             {"secret.*plan", 4096}};  // bounded by its max_match_bytes
  }
  return policy;
}

std::string Reply(std::mt19937& rng) {
  std::string reply;
  const int words = std::uniform_int_distribution<int>(1, 60)(rng);
  for (int i = 0; i < words; ++i) {
    if (std::uniform_int_distribution<int>(0, 19)(rng) == 0) {
      reply += kMatches[std::uniform_int_distribution<std::size_t>(0, kMatches.size() - 1)(rng)];
    } else {
      reply += kWords[std::uniform_int_distribution<std::size_t>(0, kWords.size() - 1)(rng)];
    }
  }
  return reply;
}

// A chunking's piece sizes, cycled through: every fourth round one byte at a time.
std::vector<std::size_t> Pieces(std::mt19937& rng, int round) {
  std::vector<std::size_t> pieces;
  if (round % 4 == 0) return pieces;
  const int n = std::uniform_int_distribution<int>(1, 12)(rng);
  for (int i = 0; i < n; ++i)
    pieces.push_back(std::uniform_int_distribution<std::size_t>(1, 9)(rng));
  return pieces;
}

TEST(ReplyStreamProperty, NothingReleasedLiesAtOrAfterAMatchAndAPassingReplyIsShownWhole) {
  std::mt19937 rng(20261207);
  int blocked = 0;
  for (int round = 0; round < 4000; ++round) {
    const std::string reply = Reply(rng);
    const std::vector<std::size_t> pieces = Pieces(rng, round);
    const SafetyPolicy policy = Policy(round % 4);
    const std::size_t budget = round % 7 == 0 ? 8 : 1000;
    const std::string broken = testing::CheckReplyStream(policy, reply, pieces, budget);
    ASSERT_EQ(broken, "") << "round " << round << ": " << reply;
    if (SafetyChecker(policy).Blocks(reply)) ++blocked;
  }
  EXPECT_GT(blocked, 800);  // the matches were there to be caught
}

// A growing reply's checks read from what was released on (BlocksFrom): at every step of the
// hold-back they say what the whole text's checks say.
TEST(ReplyStreamProperty, ChecksFromWhatWasReleasedAgreeWithChecksOfTheWholeText) {
  std::mt19937 rng(20261208);
  for (int round = 0; round < 4000; ++round) {
    const std::string reply = Reply(rng);
    const std::vector<std::size_t> pieces = Pieces(rng, round);
    ASSERT_EQ(testing::CheckChecksFromReleased(Policy(round % 4), reply, pieces), "")
        << "round " << round << ": " << reply;
  }
}

}  // namespace
}  // namespace agentgate
