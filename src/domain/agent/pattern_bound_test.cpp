#include "domain/agent/pattern_bound.hpp"

#include <gtest/gtest.h>
#include <re2/re2.h>

#include <string>

namespace agentgate {
namespace {

TEST(PatternBound, LiteralsAlternationsClassesAndBoundedRepeatsHaveABound) {
  EXPECT_EQ(MaxMatchBytes("internal only"), 13u);
  EXPECT_EQ(MaxMatchBytes("DROP TABLE|TRUNCATE"), 10u);
  EXPECT_EQ(MaxMatchBytes("(?m)^DROP TABLE"), 10u);
  EXPECT_EQ(MaxMatchBytes(R"(\bproject (alpha|beta)\b)"), 13u);
  EXPECT_EQ(MaxMatchBytes("[0-9]{3}-[0-9]{2}-[0-9]{4}"), 11u);
  EXPECT_EQ(MaxMatchBytes(R"(\d{3,5}x?)"), 6u);
  EXPECT_EQ(MaxMatchBytes("colou?r"), 6u);
  EXPECT_EQ(MaxMatchBytes("a{2}b{1,3}"), 5u);
  EXPECT_EQ(MaxMatchBytes(R"(\Qa.b\E!)"), 4u);
  EXPECT_EQ(MaxMatchBytes("(?P<word>secret)"), 6u);
  EXPECT_EQ(MaxMatchBytes("x{,3}"), 5u);  // not a repeat in RE2: the literal text
}

TEST(PatternBound, WhatCanMatchLongerCharactersCountsTheirLongestForm) {
  EXPECT_EQ(MaxMatchBytes("."), 4u);
  EXPECT_EQ(MaxMatchBytes("[^a]"), 4u);
  EXPECT_EQ(MaxMatchBytes(R"(\pL)"), 4u);
  EXPECT_EQ(MaxMatchBytes(R"(\p{Greek}\x{263a})"), 8u);
  EXPECT_EQ(MaxMatchBytes("é"), 2u);
  // A letter under (?i) may match the Kelvin sign or the long s: 3 bytes each.
  EXPECT_EQ(MaxMatchBytes("(?i)internal only"), 13u * 3 - 2);
  EXPECT_EQ(MaxMatchBytes("(?i:ab)c"), 7u);
  EXPECT_EQ(MaxMatchBytes("(a(?i)b)c"), 5u);  // the flag ends with its group
}

TEST(PatternBound, UnboundedOrUnreadPatternsHaveNone) {
  for (const char* unbounded : {"project [A-Z]+ budget", "confidential.*plan", "a{2,}", "(a+)+$",
                                "x|y*", "(?i)secret\\s+code", "a{1,5000}"}) {
    EXPECT_FALSE(MaxMatchBytes(unbounded).has_value()) << unbounded;
  }
}

TEST(PatternBound, NoMatchIsLongerThanTheBound) {
  // Each pattern against texts built to match it as long as it can.
  const std::pair<const char*, std::string> cases[] = {
      {"(?i)kelvin",
       "\xE2\x84\xAA"
       "ELVIN"},
      {"[0-9]{3}-[0-9]{2}", "123-45"},
      {"a.b",
       "a\xF0\x9F\x98\x80"
       "b"},
      {"(?i)s", "\xC5\xBF"},
  };
  for (const auto& [pattern, text] : cases) {
    std::string matched;
    ASSERT_TRUE(RE2::PartialMatch(text, "(" + std::string(pattern) + ")", &matched)) << pattern;
    const auto bound = MaxMatchBytes(pattern);
    ASSERT_TRUE(bound.has_value()) << pattern;
    EXPECT_LE(matched.size(), *bound) << pattern;
  }
}

}  // namespace
}  // namespace agentgate
