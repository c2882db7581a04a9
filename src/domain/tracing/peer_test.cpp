#include "domain/tracing/peer.hpp"

#include <gtest/gtest.h>

namespace agentgate::tracing {
namespace {

TEST(PeerOf, ReadsHostAndWrittenPort) {
  const auto peer = PeerOf("http://127.0.0.1:8931/mcp?x=1");
  ASSERT_TRUE(peer);
  EXPECT_EQ(peer->address, "127.0.0.1");
  EXPECT_EQ(peer->port, 8931);
}

TEST(PeerOf, TakesTheSchemesPortWhenNoneIsWritten) {
  EXPECT_EQ(PeerOf("https://acme.my.salesforce.com/services/data")->port, 443);
  EXPECT_EQ(PeerOf("http://tools.internal")->port, 80);
  EXPECT_EQ(PeerOf("https://acme.my.salesforce.com")->address, "acme.my.salesforce.com");
}

TEST(PeerOf, DropsUserInfoAndBracketsOfAnIpv6Literal) {
  const auto peer = PeerOf("http://user:secret@[::1]:9000/x");
  ASSERT_TRUE(peer);
  EXPECT_EQ(peer->address, "::1");
  EXPECT_EQ(peer->port, 9000);
}

TEST(PeerOf, RefusesWhatIsNotAUrlWithAHost) {
  EXPECT_FALSE(PeerOf("not a url"));
  EXPECT_FALSE(PeerOf("http:///path"));
  EXPECT_FALSE(PeerOf("http://host:99999/"));
  EXPECT_FALSE(PeerOf("http://host:8x/"));
  EXPECT_FALSE(PeerOf("ftp://host/"));
  EXPECT_FALSE(PeerOf("http://[::1/"));
}

}  // namespace
}  // namespace agentgate::tracing
