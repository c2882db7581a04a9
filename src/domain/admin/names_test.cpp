#include "domain/admin/names.hpp"

#include <gtest/gtest.h>

namespace agentgate::names {

TEST(Names, EnvironmentFollowsTheContractPattern) {
  EXPECT_TRUE(IsValidEnvironment("prod"));
  EXPECT_TRUE(IsValidEnvironment("dev_2-eu"));
  EXPECT_TRUE(IsValidEnvironment(std::string(32, 'a')));
  EXPECT_FALSE(IsValidEnvironment(std::string(33, 'a')));
  EXPECT_FALSE(IsValidEnvironment(""));
  EXPECT_FALSE(IsValidEnvironment("Prod"));
  EXPECT_FALSE(IsValidEnvironment("pr od"));
}

TEST(Names, GroupKeyAllowsLettersDigitsAndDotUnderscoreDashAt) {
  EXPECT_TRUE(IsValidGroupKey("customer-42@acme.com"));
  EXPECT_TRUE(IsValidGroupKey("A_b.C-1"));
  EXPECT_TRUE(IsValidGroupKey(std::string(128, 'x')));
  EXPECT_FALSE(IsValidGroupKey(std::string(129, 'x')));
  EXPECT_FALSE(IsValidGroupKey(""));
  EXPECT_FALSE(IsValidGroupKey("a b"));
  EXPECT_FALSE(IsValidGroupKey("a/b"));
  EXPECT_FALSE(IsValidGroupKey("caf\xc3\xa9"));
}

TEST(Names, IdsAreAsciiWordCharacters) {
  EXPECT_TRUE(IsValidId("acme_corp-1"));
  EXPECT_FALSE(IsValidId("acme corp"));
  EXPECT_FALSE(IsValidId("a.b"));
  EXPECT_FALSE(IsValidId(std::string(65, 'a')));
}

TEST(Names, DisplayNamesRejectControlCharacters) {
  EXPECT_TRUE(IsValidDisplayName("Acme Corp \xc3\xa9"));
  EXPECT_FALSE(IsValidDisplayName("line\nbreak"));
  EXPECT_FALSE(IsValidDisplayName(""));
}

TEST(Names, MonthIsYearDashMonth) {
  EXPECT_TRUE(IsValidMonth("2026-11"));
  EXPECT_TRUE(IsValidMonth("2026-01"));
  EXPECT_FALSE(IsValidMonth("2026-13"));
  EXPECT_FALSE(IsValidMonth("2026-00"));
  EXPECT_FALSE(IsValidMonth("2026-1"));
  EXPECT_FALSE(IsValidMonth("2026/11"));
}

}  // namespace agentgate::names
