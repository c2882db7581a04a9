#include "adapters/http_client/request_head.hpp"

#include <gtest/gtest.h>

namespace agentgate::upstream {
namespace {

TEST(RequestHead, RequestLineHostAgentHeadersAndLength) {
  EXPECT_EQ(RequestHead({"POST", "/v1/chat/completions?x=1", "llm.example:8443"},
                        {{"authorization", "Bearer k"}, {"content-type", "application/json"}}, 12),
            "POST /v1/chat/completions?x=1 HTTP/1.1\r\nHost: llm.example:8443\r\n"
            "User-Agent: agentgate\r\nauthorization: Bearer k\r\n"
            "content-type: application/json\r\nContent-Length: 12\r\n\r\n");
}

TEST(RequestHead, ALengthOnlyWhereABodyIsOrIsExpected) {
  EXPECT_EQ(RequestHead({"GET", "/", "h"}, {}, 0).find("Content-Length"), std::string::npos);
  EXPECT_EQ(RequestHead({"DELETE", "/x", "h"}, {}, 0).find("Content-Length"), std::string::npos);
  EXPECT_NE(RequestHead({"POST", "/", "h"}, {}, 0).find("\r\nContent-Length: 0\r\n"),
            std::string::npos);
  EXPECT_NE(RequestHead({"PATCH", "/", "h"}, {}, 3).find("\r\nContent-Length: 3\r\n"),
            std::string::npos);
}

TEST(RequestHead, TheCallersHeaderReplacesOursAndTheLastOfANameWins) {
  const auto head = RequestHead(
      {"GET", "/", "h"}, {{"user-agent", "tool/1"}, {"X-A", "1"}, {"x-a", "2"}, {"HOST", "v"}}, 0);
  EXPECT_EQ(head, "GET / HTTP/1.1\r\nuser-agent: tool/1\r\nx-a: 2\r\nHOST: v\r\n\r\n");
}

TEST(RequestHead, FramingAndConnectionAreTheClientsAlone) {
  const auto head = RequestHead(
      {"PUT", "/", "h"},
      {{"Content-Length", "99"}, {"transfer-encoding", "chunked"}, {"Connection", "close"}}, 4);
  EXPECT_EQ(head,
            "PUT / HTTP/1.1\r\nHost: h\r\nUser-Agent: agentgate\r\nContent-Length: 4\r\n\r\n");
}

TEST(RequestHead, TheHostFieldBracketsAnIpv6LiteralAndOmitsADefaultPort) {
  EXPECT_EQ(HostField("api.example", "443", true), "api.example");
  EXPECT_EQ(HostField("127.0.0.1", "8080", false), "127.0.0.1:8080");
  EXPECT_EQ(HostField("::1", "8080", false), "[::1]:8080");  // the URL's brackets were dropped
  EXPECT_EQ(HostField("fe80::2", "80", true), "[fe80::2]");
}

}  // namespace
}  // namespace agentgate::upstream
