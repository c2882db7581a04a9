#include "domain/runs/reply_stream.hpp"

#include <gtest/gtest.h>
#include <boost/json/parse.hpp>

namespace agentgate {
namespace {

namespace json = boost::json;

SafetyChecker Detectors() {
  SafetyPolicy policy;
  policy.detect_credit_card = true;
  policy.detect_secret = true;
  return SafetyChecker(policy);
}

// The text an event shows ("" for other events).
std::string TextOf(const RunEvent& event) {
  if (event.type != "text.delta") return "";
  return std::string(json::parse(event.data).as_object().at("text").as_string());
}

// One model call's text fed `piece` bytes at a time: every event the stream answers, in order.
std::vector<RunEvent> Stream(ReplyStream& stream, int call, std::string_view text,
                             std::size_t piece) {
  std::vector<RunEvent> out;
  stream.CallStarted(call);
  for (std::size_t at = 0; at < text.size(); at += piece) {
    if (auto event = stream.Piece(text.substr(at, piece))) out.push_back(std::move(*event));
  }
  return out;
}

std::string Shown(const std::vector<RunEvent>& events) {
  std::string out;
  for (const auto& e : events) out += TextOf(e);
  return out;
}

const std::string kPreamble =
    "Here is what I found about the account you asked about this morning. The renewal is due "
    "in March and the owner is the regional team. ";

TEST(ReplyStream, ASecretAndACardNumberSplitAcrossDeltasAreNeverShown) {
  const SafetyChecker safety = Detectors();
  const std::vector<std::string> leaks = {
      kPreamble + "The key is sk-proj-ABCDEFGHIJKLMNOPQRSTUVWX1234 as configured. " + kPreamble,
      kPreamble + "Card on file: 4111 1111 1111 1111, expiring soon. " + kPreamble,
      kPreamble + "Card on file: 4111-1111-1111-1111 and " + kPreamble,
      kPreamble + "AWS AKIAABCDEFGHIJKLMNOP works. " + kPreamble};
  for (const auto& reply : leaks) {
    ASSERT_TRUE(safety.Blocks(reply));
    for (std::size_t piece = 1; piece <= 9; ++piece) {
      ReplyStream stream(safety);
      auto events = Stream(stream, 1, reply, piece);
      for (auto& e : stream.CallEnded(true, false)) events.push_back(std::move(e));
      const std::string shown = Shown(events);
      EXPECT_FALSE(shown.empty()) << "the text before the secret streams";
      EXPECT_EQ(shown.find("sk-"), std::string::npos) << piece;
      EXPECT_EQ(shown.find("4111"), std::string::npos) << piece;
      EXPECT_EQ(shown.find("AKIA"), std::string::npos) << piece;
      EXPECT_TRUE(reply.starts_with(shown));
      // The verdict withholds the reply: what was shown is taken back, nothing more is sent.
      const auto settled = stream.Settled(reply, true);
      ASSERT_EQ(settled.size(), 1u);
      EXPECT_EQ(settled[0].type, "text.retracted");
      EXPECT_EQ(settled[0].data, R"({"reason":"blocked"})");
    }
  }
}

TEST(ReplyStream, ReleasesWholeWordsWellBehindTheModelInPiecesOfSomeSize) {
  const SafetyChecker safety = Detectors();
  ReplyStream stream(safety);
  std::string reply;
  for (int i = 0; i < 40; ++i) reply += "word" + std::to_string(i) + " ";
  reply += "end.";
  stream.CallStarted(3);
  std::string fed;
  std::string shown;
  for (std::size_t at = 0; at < reply.size(); at += 2) {
    fed += reply.substr(at, 2);
    if (auto event = stream.Piece(reply.substr(at, 2))) {
      const std::string text = TextOf(*event);
      EXPECT_GE(text.size(), ReplyStream::kMinRelease);
      EXPECT_EQ(text.back(), ' ');  // ends at whitespace: no token is cut
      shown += text;
      EXPECT_GE(fed.size() - shown.size(), ReplyStream::kHoldBack);
      EXPECT_EQ(json::parse(event->data).as_object().at("call").as_int64(), 3);
    }
  }
  EXPECT_FALSE(shown.empty());
  EXPECT_TRUE(stream.CallEnded(true, false).empty());  // the reply's rest waits for its verdict
  const auto rest = stream.Settled(reply, false);
  ASSERT_EQ(rest.size(), 1u);
  EXPECT_EQ(shown + TextOf(rest[0]), reply);
}

TEST(ReplyStream, ALongTokenIsHeldWholeUntilWhitespaceFollowsIt) {
  const SafetyChecker safety = Detectors();
  ReplyStream stream(safety);
  const std::string token(300, 'x');
  const std::string reply = "See " + token + " " + kPreamble;
  const auto events = Stream(stream, 1, reply, 5);
  const std::string shown = Shown(events);
  // Never a part of it: the first release holds the whole token and the space after it.
  EXPECT_TRUE(shown.starts_with("See " + token + " ")) << shown.size();
}

TEST(ReplyStream, AFailedCallTakesBackWhatItShowed) {
  const SafetyChecker safety = Detectors();
  ReplyStream stream(safety);
  const auto shown = Stream(stream, 1, kPreamble + kPreamble, 4);
  ASSERT_FALSE(shown.empty());
  const auto ended = stream.CallEnded(false, false);
  ASSERT_EQ(ended.size(), 1u);
  EXPECT_EQ(ended[0].type, "text.retracted");
  EXPECT_EQ(ended[0].data, R"({"reason":"model_call_failed","call":1})");
  // The retry's reply is what counts; nothing is retracted at the verdict then.
  const auto again = Stream(stream, 2, "Short answer.", 4);
  EXPECT_TRUE(again.empty());
  EXPECT_TRUE(stream.CallEnded(true, false).empty());
  const auto rest = stream.Settled("Short answer.", false);
  ASSERT_EQ(rest.size(), 1u);
  EXPECT_EQ(TextOf(rest[0]), "Short answer.");
  EXPECT_EQ(json::parse(rest[0].data).as_object().at("call").as_int64(), 2);
}

TEST(ReplyStream, AStepsCommentaryIsShownWholeWhenItPassesAndThenTheReply) {
  const SafetyChecker safety = Detectors();
  ReplyStream stream(safety);
  Stream(stream, 1, "Let me look that up.", 3);
  const auto commentary = stream.CallEnded(true, true);
  ASSERT_EQ(commentary.size(), 1u);
  EXPECT_EQ(TextOf(commentary[0]), "Let me look that up.");
  Stream(stream, 2, "It ships Monday.", 3);
  EXPECT_TRUE(stream.CallEnded(true, false).empty());
  const auto rest = stream.Settled("It ships Monday.", false);
  ASSERT_EQ(rest.size(), 1u);
  EXPECT_EQ(TextOf(rest[0]), "It ships Monday.");
  // A commentary holding a card number is never shown.
  ReplyStream other(safety);
  Stream(other, 1, "Charging 4111 1111 1111 1111 now.", 3);
  EXPECT_TRUE(other.CallEnded(true, true).empty());
  EXPECT_TRUE(other.Settled("Charging 4111 1111 1111 1111 now.", true).empty());  // none shown
}

TEST(ReplyStream, AnOperatorsPatternMatchWithinTheHoldBackIsNeverCut) {
  SafetyPolicy policy;
  policy.block_patterns = {"project [A-Z]+ budget"};
  const SafetyChecker safety(policy);
  const std::string reply = kPreamble + "The project HELIOS budget is final. " + kPreamble;
  for (std::size_t piece = 1; piece <= 5; ++piece) {
    ReplyStream stream(safety);
    const std::string shown = Shown(Stream(stream, 1, reply, piece));
    EXPECT_EQ(shown.find("project"), std::string::npos) << piece;
  }
}

}  // namespace
}  // namespace agentgate
