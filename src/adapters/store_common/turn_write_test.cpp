#include "adapters/store_common/turn_write.hpp"

#include "ports/clock.hpp"

#include <gtest/gtest.h>

#include <set>
#include <string>
#include <vector>

namespace agentgate {
namespace {

// Records the steps WriteTurn takes, as an engine would run them.
class RecordingRows final : public TurnRowWriter {
 public:
  std::set<std::string> live = {"lease-1"};
  std::optional<ConversationTail> tail = ConversationTail{10, 4};
  bool claim_held = true;
  std::int64_t held_ticket = 7;
  std::int64_t superseded_ticket = 9;
  std::vector<std::string> steps;

  bool ReservationLive(const std::string& id) override { return live.contains(id); }
  Ticket TakeTicket(std::int64_t ticket) override {
    if (ticket == superseded_ticket) return Ticket::kSuperseded;
    return ticket == held_ticket ? Ticket::kTaken : Ticket::kReleased;
  }
  std::optional<ConversationTail> Tail(const std::string&) override {
    steps.push_back("tail");
    return tail;
  }
  bool CompleteIdempotencyKey(const IdempotencyCompletion&) override {
    steps.push_back("complete-key");
    return claim_held;
  }
  void InsertConversation(const ConversationRecord& c) override {
    steps.push_back("conversation " + c.id);
  }
  void RecordCall(const std::string& id, std::int64_t at_ms) override {
    steps.push_back("call " + id + " " + std::to_string(at_ms));
  }
  void InsertFact(const RememberedFact& f) override { steps.push_back("fact " + f.fact); }
  void SaveSummary(const std::string&, const ConversationSummary& s) override {
    steps.push_back("summary " + std::to_string(s.through_seq));
  }
  void SetActiveDay(const std::string&, std::int64_t day) override {
    steps.push_back("day " + std::to_string(day));
  }
  void InsertMessage(const std::string&, std::int64_t seq, const MessageRecord& m) override {
    steps.push_back("message " + std::to_string(seq) + " " + m.role);
  }
  void InsertTurn(const TurnRecord& t) override { steps.push_back("turn " + t.id); }
  bool run_running = true;
  bool PauseRun(const RunPause& pause) override {
    steps.push_back(std::string(pause.create ? "create " : "pause ") + pause.run.id);
    return pause.create || run_running;
  }
};

TurnCommit Appending(std::int64_t day) {
  TurnCommit commit;
  commit.turn.id = "t1";
  commit.turn.conversation_id = "c1";
  commit.messages = {MessageRecord{0, "user", "hi", day * kMsPerDay},
                     MessageRecord{0, "assistant", "hello", day * kMsPerDay + 5}};
  return commit;
}

}  // namespace

TEST(TurnWrite, AnAppendingTurnNumbersItsMessagesAfterTheLastAndMarksANewDayOnce) {
  RecordingRows rows;
  TurnCommit commit = Appending(11);
  commit.settlements = {SpendSettlement{"lease-1", 0.1, 1, 1, "acme", "bot", "2026-11", 0.1}};
  commit.summary = ConversationSummary{"gist", 3};
  ASSERT_TRUE(WriteTurn(rows, commit));
  EXPECT_EQ(rows.steps, (std::vector<std::string>{"tail", "summary 3", "day 11", "message 5 user",
                                                  "message 6 assistant", "turn t1"}));

  RecordingRows same_day;
  ASSERT_TRUE(WriteTurn(same_day, Appending(10)));
  EXPECT_EQ(same_day.steps,
            (std::vector<std::string>{"tail", "message 5 user", "message 6 assistant", "turn t1"}));
}

TEST(TurnWrite, AFirstStatefulTurnCreatesItsConversationWithItsFirstCallAndFacts) {
  RecordingRows rows;
  TurnCommit commit = Appending(11);
  commit.new_conversation = ConversationRecord{"c1", "acme", "prod", "bot", "", 42};
  commit.facts = {RememberedFact{MemoryScope{"acme", "prod", "bot", ""}, "likes tea", 42}};
  commit.idempotency =
      IdempotencyCompletion{IdempotencyScope{"acme", "prod", "k"}, 40, 200, "{}", 99};
  ASSERT_TRUE(WriteTurn(rows, commit));
  EXPECT_EQ(rows.steps, (std::vector<std::string>{"complete-key", "conversation c1", "call c1 42",
                                                  "fact likes tea", "message 1 user",
                                                  "message 2 assistant", "turn t1"}));
}

TEST(TurnWrite, RefusalsAreFoundBeforeAnythingIsWritten) {
  RecordingRows released;
  TurnCommit commit = Appending(11);
  commit.settlements = {SpendSettlement{"lease-gone", 0.1, 1, 1, "acme", "bot", "2026-11", 0.1}};
  auto refused = WriteTurn(released, commit);
  ASSERT_FALSE(refused);
  EXPECT_EQ(refused.error().code, ErrorCode::kConflict);
  EXPECT_TRUE(released.steps.empty());

  RecordingRows purged;
  purged.tail = std::nullopt;
  refused = WriteTurn(purged, Appending(11));
  ASSERT_FALSE(refused);
  EXPECT_EQ(refused.error().code, ErrorCode::kConversationNotFound);
  EXPECT_EQ(purged.steps, std::vector<std::string>{"tail"});

  RecordingRows place_lost;
  commit = Appending(11);
  commit.queue_ticket = 8;  // released with its server's lease; 7 is held
  refused = WriteTurn(place_lost, commit);
  ASSERT_FALSE(refused);
  EXPECT_EQ(refused.error().code, ErrorCode::kConflict);
  EXPECT_TRUE(place_lost.steps.empty());

  RecordingRows interrupted;
  commit = Appending(11);
  commit.queue_ticket = 9;  // a newer call interrupted the turn
  refused = WriteTurn(interrupted, commit);
  ASSERT_FALSE(refused);
  EXPECT_EQ(refused.error().code, ErrorCode::kSuperseded);
  EXPECT_TRUE(interrupted.steps.empty());

  RecordingRows taken_over;
  taken_over.claim_held = false;
  commit = Appending(11);
  commit.idempotency =
      IdempotencyCompletion{IdempotencyScope{"acme", "prod", "k"}, 40, 200, "{}", 99};
  refused = WriteTurn(taken_over, commit);
  ASSERT_FALSE(refused);
  EXPECT_EQ(refused.error().code, ErrorCode::kConflict);
  EXPECT_EQ(taken_over.steps, (std::vector<std::string>{"tail", "complete-key"}));
}

TEST(TurnWrite, OnlyWrittenTurnsSettle) {
  TurnCommit a, b;
  a.settlements = {SpendSettlement{"l", 0.1, 1, 1, "acme", "bot", "2026-11", 0.1}};
  b.settlements = {SpendSettlement{"l", 0.2, 1, 1, "acme", "bot", "2026-11", 0.2}};
  const std::vector<Result<void>> results = {MakeError(ErrorCode::kConflict, "no"), Result<void>{}};
  const auto settled = SettlementsOfWritten({&a, &b}, results);
  ASSERT_EQ(settled.size(), 1u);
  EXPECT_EQ(settled[0], &b.settlements[0]);
}

}  // namespace agentgate

namespace agentgate {

TEST(TurnWrite, APausedTurnWritesItsRunAndNoMessagesAndIsRefusedForARunNoLongerRunning) {
  RecordingRows rows;
  TurnCommit commit;
  commit.turn.id = "t1";
  commit.pause = RunPause{};
  commit.pause->run.id = "run_1";
  commit.pause->create = true;
  ASSERT_TRUE(WriteTurn(rows, commit));
  EXPECT_EQ(rows.steps, (std::vector<std::string>{"create run_1", "turn t1"}));

  RecordingRows canceled;
  canceled.run_running = false;
  commit.pause->create = false;
  auto refused = WriteTurn(canceled, commit);
  ASSERT_FALSE(refused);
  EXPECT_EQ(refused.error().code, ErrorCode::kConflict);
  EXPECT_EQ(canceled.steps, (std::vector<std::string>{"pause run_1"}));  // nothing after it
}

// A short streamed run ends with its turn: written only when the turn is.
TEST(TurnWrite, OnlyWrittenTurnsEndTheirRuns) {
  TurnCommit first = Appending(10);
  first.ended_run = RunWrite{RunWrite::Kind::kCreateEnded, {}, {}, 0, std::nullopt};
  first.ended_run->run.id = "run_1";
  TurnCommit second = first;
  second.ended_run->run.id = "run_2";
  const TurnCommit third = Appending(10);  // no run
  const std::vector<Result<void>> results = {
      Result<void>{}, MakeError(ErrorCode::kConflict, "refused"), Result<void>{}};
  const auto ended = EndedRunsOfWritten({&first, &second, &third}, results);
  ASSERT_EQ(ended.size(), 1u);
  EXPECT_EQ(ended[0]->run.id, "run_1");
}

}  // namespace agentgate
