#include "app/access/console_sessions.hpp"
#include "support/manual_clock.hpp"

#include <gtest/gtest.h>

namespace agentgate {

using testing::ManualClock;

TEST(ConsoleSessions, ASessionIsFoundByItsIdAndEndsOnSignOut) {
  ManualClock clock;
  ConsoleSessions sessions(clock, {});
  auto opened = sessions.Open();
  EXPECT_GE(opened.session_id.size(), 40u);
  EXPECT_NE(opened.session_id, opened.session.csrf_token);
  auto found = sessions.Find(opened.session_id);
  ASSERT_TRUE(found);
  EXPECT_EQ(found->csrf_token, opened.session.csrf_token);
  EXPECT_FALSE(sessions.Find(opened.session.csrf_token));  // the CSRF token is no session id
  EXPECT_FALSE(sessions.Find(""));
  EXPECT_TRUE(sessions.Close(opened.session_id));
  EXPECT_FALSE(sessions.Find(opened.session_id));
  EXPECT_FALSE(sessions.Close(opened.session_id));
}

TEST(ConsoleSessions, IdleSessionsExpireAndUseMovesTheIdleExpiryButNotTheLifetime) {
  ManualClock clock;
  ConsoleSessions sessions(clock, {.idle_ms = 100, .lifetime_ms = 250, .max_sessions = 10});
  auto used = sessions.Open();
  auto idle = sessions.Open();
  EXPECT_EQ(used.session.expires_at_ms, clock.now_ms + 100);
  clock.now_ms += 90;
  EXPECT_EQ(sessions.Find(used.session_id)->expires_at_ms, clock.now_ms + 100);
  clock.now_ms += 20;  // 110 ms after sign-in: idle has expired, used was seen 20 ms ago
  EXPECT_FALSE(sessions.Find(idle.session_id));
  EXPECT_TRUE(sessions.Find(used.session_id));
  clock.now_ms += 90;
  ASSERT_TRUE(sessions.Find(used.session_id));
  clock.now_ms += 60;  // 250 ms after sign-in: over its lifetime however busy
  EXPECT_FALSE(sessions.Find(used.session_id));
  EXPECT_EQ(sessions.OpenCount(), 0u);
}

TEST(ConsoleSessions, TheOldestSessionMakesRoomWhenTheMapIsFull) {
  ManualClock clock;
  ConsoleSessions sessions(clock, {.idle_ms = 1000, .lifetime_ms = 5000, .max_sessions = 3});
  std::vector<ConsoleSessions::Opened> opened;
  for (int i = 0; i < 5; ++i) {
    opened.push_back(sessions.Open());
    ++clock.now_ms;
  }
  EXPECT_EQ(sessions.OpenCount(), 3u);
  EXPECT_FALSE(sessions.Find(opened[0].session_id));
  EXPECT_FALSE(sessions.Find(opened[1].session_id));
  for (int i = 2; i < 5; ++i) EXPECT_TRUE(sessions.Find(opened[i].session_id));
}

}  // namespace agentgate
