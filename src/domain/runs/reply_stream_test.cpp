#include "domain/runs/reply_stream.hpp"

#include <gtest/gtest.h>
#include <boost/json/parse.hpp>

#include <algorithm>

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

// Feeds `text` `piece` bytes at a time; after each piece, what is held back (fed but not shown).
std::vector<std::size_t> HeldAfterEachPiece(ReplyStream& stream, std::string_view text,
                                            std::size_t piece) {
  std::vector<std::size_t> held;
  std::string shown;
  stream.CallStarted(1);
  for (std::size_t at = 0; at < text.size(); at += piece) {
    if (auto event = stream.Piece(text.substr(at, piece))) shown += TextOf(*event);
    held.push_back(std::min(text.size(), at + piece) - shown.size());
  }
  return held;
}

TEST(ReplyStream, ProseIsShownAsItArrivesAndOnlyWhatCouldStillMatchWaits) {
  const std::string prose = "The renewal is due in March and the owner is the regional team. ";
  // The detectors hold only a trailing run that could still grow into a secret's head (`s`, `AK`,
  // `xox`...): a few bytes at most in prose.
  const SafetyChecker detectors = Detectors();
  ReplyStream detected(detectors);
  for (const std::size_t held : HeldAfterEachPiece(detected, prose, 3)) EXPECT_LE(held, 3u);
  // A version with no checks holds nothing; one with an unbounded pattern holds 64 bytes; one
  // with a bounded pattern holds its bound.
  const SafetyChecker none{SafetyPolicy{}};
  ReplyStream unchecked(none);
  for (const std::size_t held : HeldAfterEachPiece(unchecked, prose, 3)) EXPECT_EQ(held, 0u);
  SafetyPolicy unbounded;
  unbounded.block_patterns = {"project [A-Z]+ budget"};
  const SafetyChecker wide(unbounded);
  ReplyStream widely(wide);
  const auto wide_held = HeldAfterEachPiece(widely, prose + prose, 3);
  EXPECT_EQ(*std::max_element(wide_held.begin(), wide_held.end()), 64u);
  SafetyPolicy bounded;
  bounded.block_patterns = {"internal only", {"confidential.*plan", 40}};
  const SafetyChecker tight(bounded);
  ReplyStream tightly(tight);
  for (const std::size_t held : HeldAfterEachPiece(tightly, prose, 3)) EXPECT_LE(held, 40u);
}

TEST(ReplyStream, ARunThatCouldStillBecomeASecretOrACardIsHeldWholeThenShown) {
  const SafetyChecker safety = Detectors();
  ReplyStream stream(safety);
  // Fifteen key characters are not yet a key (it takes twenty): held until the space ends it.
  const std::string reply = "Try sk-proj-ABCDEFGHIJ then call 555 0100 now.";
  stream.CallStarted(1);
  std::string shown;
  for (std::size_t at = 0; at < reply.size(); ++at) {
    if (auto event = stream.Piece(reply.substr(at, 1))) shown += TextOf(*event);
    const std::string fed = reply.substr(0, at + 1);
    if (fed.size() <= 22) {  // until the space after the key's characters
      EXPECT_EQ(shown.find("sk"), std::string::npos) << fed;
    }
    if (fed.size() >= 34 && fed.size() <= 41) {  // the phone number's digits, until its space
      EXPECT_EQ(shown.find("555"), std::string::npos) << fed;
    }
  }
  EXPECT_EQ(shown, "Try sk-proj-ABCDEFGHIJ then call 555 0100 now.");
}

TEST(ReplyStream, ALongReplyStaysWithinItsBudgetOfEvents) {
  const SafetyChecker none{SafetyPolicy{}};
  ReplyStream stream(none, 20);
  std::string reply;
  for (int i = 0; i < 300; ++i) reply += "word" + std::to_string(i) + " ";
  const auto events = Stream(stream, 1, reply, 1);
  EXPECT_LE(events.size(), 19u);  // one is left for the verdict's rest
  EXPECT_GE(events.size(), 10u);
  EXPECT_TRUE(stream.CallEnded(true, false).empty());
  const auto rest = stream.Settled(reply, false);
  EXPECT_EQ(Shown(events) + Shown(rest), reply);
}

TEST(ReplyStream, NoEventCarriesPartOfACharacter) {
  const SafetyChecker none{SafetyPolicy{}};
  ReplyStream stream(none);
  const std::string reply = "caf\xC3\xA9 \xE2\x86\x92 \xF0\x9F\x98\x80 fin";
  const auto events = Stream(stream, 1, reply, 1);
  for (const auto& e : events) {
    const std::string text = TextOf(e);
    const auto lead = static_cast<unsigned char>(text.front());
    EXPECT_NE(lead & 0xC0, 0x80) << "starts inside a character";
  }
  EXPECT_TRUE(stream.CallEnded(true, false).empty());
  EXPECT_EQ(Shown(events) + Shown(stream.Settled(reply, false)), reply);
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
  auto again = Stream(stream, 2, "Short answer.", 4);
  EXPECT_TRUE(stream.CallEnded(true, false).empty());
  for (auto& e : stream.Settled("Short answer.", false)) again.push_back(std::move(e));
  ASSERT_FALSE(again.empty());
  EXPECT_EQ(Shown(again), "Short answer.");
  for (const auto& e : again) {
    EXPECT_EQ(e.type, "text.delta");
    EXPECT_EQ(json::parse(e.data).as_object().at("call").as_int64(), 2);
  }
}

TEST(ReplyStream, AStepsCommentaryIsShownWholeWhenItPassesAndThenTheReply) {
  const SafetyChecker safety = Detectors();
  ReplyStream stream(safety);
  auto commentary = Stream(stream, 1, "Let me look that up.", 3);
  for (auto& e : stream.CallEnded(true, true)) commentary.push_back(std::move(e));
  EXPECT_EQ(Shown(commentary), "Let me look that up.");  // whole once its call ended
  auto reply = Stream(stream, 2, "It ships Monday.", 3);
  EXPECT_TRUE(stream.CallEnded(true, false).empty());
  for (auto& e : stream.Settled("It ships Monday.", false)) reply.push_back(std::move(e));
  EXPECT_EQ(Shown(reply), "It ships Monday.");
  // A commentary holding a card number: no digit of it is ever shown, and what was is retracted.
  ReplyStream other(safety);
  const auto before = Stream(other, 1, "Charging 4111 1111 1111 1111 now.", 3);
  EXPECT_TRUE(other.CallEnded(true, true).empty());
  EXPECT_EQ(Shown(before).find('4'), std::string::npos);
  const auto settled = other.Settled("Charging 4111 1111 1111 1111 now.", true);
  ASSERT_EQ(settled.size(), 1u);
  EXPECT_EQ(settled[0].type, "text.retracted");
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
