#include "domain/runs/webhook_rules.hpp"

#include <gtest/gtest.h>
#include <boost/json/parse.hpp>

namespace agentgate::webhooks {
namespace {

TEST(WebhookRules, OnlyPublicAddressesArePublic) {
  for (const char* ip :
       {"127.0.0.1", "10.1.2.3", "172.16.0.1", "172.31.255.255", "192.168.1.1", "169.254.169.254",
        "100.64.0.1", "0.0.0.0", "224.0.0.1", "::1", "::", "fe80::1", "fd00::1", "::ffff:127.0.0.1",
        "::ffff:10.0.0.1", "2001:db8::1", "not an address", ""}) {
    EXPECT_FALSE(IsPublicAddress(ip)) << ip;
  }
  for (const char* ip : {"8.8.8.8", "172.32.0.1", "192.169.0.1", "100.128.0.1", "2606:4700::1111",
                         "::ffff:8.8.4.4"}) {
    EXPECT_TRUE(IsPublicAddress(ip)) << ip;
  }
}

// Every IPv6 form that carries an IPv4 address is judged by the address it carries (issue 57 §5).
TEST(WebhookRules, AnIpv6FormIsJudgedByTheIpv4AddressItCarriesOrAsPrivate) {
  for (const char* ip :
       {"::127.0.0.1", "::10.0.0.1", "::169.254.169.254",      // IPv4-compatible
        "2002:7f00:1::", "2002:a00:1::1", "2002:a9fe:a9fe::",  // 6to4 of 127/8, 10/8, 169.254/16
        "fec0::1", "feff::1",                                  // site-local fec0::/10
        "64:ff9b::127.0.0.1", "64:ff9b::a00:1", "64:ff9b::169.254.169.254",  // NAT64 /96
        "64:ff9b:1::8.8.8.8", "64:ff9b:1:2::1",  // local-use NAT64 /48: private whatever it holds
        "64:ff9b:2::1"}) {
    EXPECT_FALSE(IsPublicAddress(ip)) << ip;
  }
  for (const char* ip : {"::8.8.8.8", "2002:808:808::1", "64:ff9b::8.8.8.8", "64:ff9b::808:404"}) {
    EXPECT_TRUE(IsPublicAddress(ip)) << ip;
  }
  // A webhook's URL naming such an address is refused the same way.
  EXPECT_FALSE(CheckUrl("https://[64:ff9b::169.254.169.254]/latest", false));
  EXPECT_FALSE(CheckUrl("https://[2002:a00:1::1]/h", false));
  EXPECT_TRUE(CheckUrl("https://[64:ff9b::8.8.8.8]/h", false));
}

// Only global unicast IPv6 is public, less the special ranges inside it (issue 72 §5).
TEST(WebhookRules, Ipv6MustBeGlobalUnicastOutsideTheSpecialRanges) {
  for (const char* ip : {"2001::1", "2001:0:4136:e378:8000:63bf:3fff:fdd2",  // Teredo 2001::/32
                         "2001:10::1", "2001:1f::1",                         // ORCHID 2001:10::/28
                         "2001:20::1", "2001:1ff::1",  // the rest of 2001::/23
                         "100::1", "100::ffff", "3fff::1", "3fff:fff::1", "4000::1", "1000::1"}) {
    EXPECT_FALSE(IsPublicAddress(ip)) << ip;
    EXPECT_FALSE(CheckUrl("https://[" + std::string(ip) + "]/h", false)) << ip;
  }
  for (const char* ip :
       {"2001:200::1", "2001:4860:4860::8888", "2a00:1450:4001::1", "3ffe::1", "3fff:1000::1"})
    EXPECT_TRUE(IsPublicAddress(ip)) << ip;
}

TEST(WebhookRules, AUrlIsHttpsToAPublicHostUnlessPrivateOnesAreAllowed) {
  EXPECT_TRUE(CheckUrl("https://hooks.example.com/agentgate?x=1", false));
  EXPECT_TRUE(CheckUrl("https://[2606:4700::1111]:8443/h", false));
  EXPECT_TRUE(CheckUrl("https://8.8.8.8/h", false));
  for (const char* bad :
       {"http://hooks.example.com/h", "ftp://x/h", "hooks.example.com",
        "https://user:pw@hooks.example.com/", "https://localhost/h", "https://127.0.0.1:8080/h",
        "https://[::1]/h", "https://10.0.0.8/h", "https://169.254.169.254/latest", "https:///h",
        "https://x:99999999/h", "https://x y/h"}) {
    const auto checked = CheckUrl(bad, false);
    ASSERT_FALSE(checked) << bad;
    EXPECT_EQ(checked.error().message.rfind("field 'url'", 0), 0u) << bad;
  }
  EXPECT_TRUE(CheckUrl("http://127.0.0.1:8080/h", true));
  EXPECT_TRUE(CheckUrl("http://localhost/h", true));
  EXPECT_FALSE(CheckUrl("https://user@127.0.0.1/h", true));  // never user info
  EXPECT_FALSE(CheckUrl("https://h/" + std::string(2100, 'a'), true));
}

TEST(WebhookRules, EventsAreEveryRunEndAndPauseOrADistinctListOfThem) {
  EXPECT_EQ(ParseEvents(nullptr).value(),
            (std::vector<std::string>{"run.completed", "run.failed", "run.canceled",
                                      "run.requires_action"}));
  const auto some = boost::json::parse(R"(["run.failed","run.canceled"])");
  EXPECT_EQ(ParseEvents(&some).value(), (std::vector<std::string>{"run.failed", "run.canceled"}));
  for (const char* bad : {R"([])", R"(["run.started"])", R"(["run.failed","run.failed"])",
                          R"("run.failed")", R"([1])"}) {
    const auto value = boost::json::parse(bad);
    const auto parsed = ParseEvents(&value);
    ASSERT_FALSE(parsed) << bad;
    EXPECT_EQ(parsed.error().message.rfind("field 'events'", 0), 0u);
  }
}

TEST(WebhookRules, RetriesComeWithin10sThenGrowAndEndAfterNineAttempts) {
  EXPECT_EQ(RetryDelayMs(1), 5'000);
  std::int64_t total = 0;
  for (int attempts = 1; attempts <= 8; ++attempts) {
    const auto delay = RetryDelayMs(attempts);
    ASSERT_TRUE(delay);
    if (attempts > 1) {
      EXPECT_GT(*delay, *RetryDelayMs(attempts - 1));
    }
    total += *delay;
  }
  EXPECT_FALSE(RetryDelayMs(9));
  EXPECT_FALSE(RetryDelayMs(0));
  EXPECT_LT(total, 8 * 3'600'000);       // bounded: every retry within 8 hours of the run's end
  EXPECT_EQ(RetryDelayMs(2, 100), 600);  // the schedule scales with the first retry (tests)
}

}  // namespace
}  // namespace agentgate::webhooks
