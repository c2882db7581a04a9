#include "adapters/http_server/response_head.hpp"

#include <gtest/gtest.h>

namespace agentgate::http {
namespace {

Response Json(int status, std::string body) {
  Response r;
  r.status = status;
  r.body = std::move(body);
  return r;
}

TEST(ResponseHead, StatusLineFieldsLengthAndTheBlankLine) {
  EXPECT_EQ(ResponseHead(Json(200, "{\"ok\":true}"), 11, true),
            "HTTP/1.1 200 OK\r\nServer: agentgate\r\nContent-Type: application/json\r\n"
            "Content-Length: 11\r\n\r\n");
}

// Every stream is live: no cache, and no proxy buffering (nginx holds a body back unless told).
constexpr const char* kLive = "Cache-Control: no-cache\r\nX-Accel-Buffering: no\r\n";

TEST(ResponseHead, AStreamedResponseIsChunkedWithNoLength) {
  Response r;
  r.content_type = "text/event-stream";
  r.stream = [](ResponseStream&) -> boost::asio::awaitable<void> { co_return; };
  EXPECT_EQ(
      ResponseHead(r, 11, true),
      std::string("HTTP/1.1 200 OK\r\nServer: agentgate\r\nContent-Type: text/event-stream\r\n"
                  "Transfer-Encoding: chunked\r\n") +
          kLive + "\r\n");
  // HTTP/1.0 knows no chunks: no length, and the server closes the connection at the end.
  EXPECT_EQ(
      ResponseHead(r, 10, false),
      std::string("HTTP/1.0 200 OK\r\nServer: agentgate\r\nContent-Type: text/event-stream\r\n") +
          kLive + "\r\n");
}

TEST(ResponseHead, AStreamWhoseWholeBodyIsReadyWithItsHeadHasALengthAndNoChunks) {
  Response r;
  r.content_type = "text/event-stream";
  r.stream = [](ResponseStream&) -> boost::asio::awaitable<void> { co_return; };
  EXPECT_EQ(
      ResponseHead(r, 11, true, 42),
      std::string("HTTP/1.1 200 OK\r\nServer: agentgate\r\nContent-Type: text/event-stream\r\n"
                  "Content-Length: 42\r\n") +
          kLive + "\r\n");
  EXPECT_EQ(
      ResponseHead(r, 10, false, 0),
      std::string("HTTP/1.0 200 OK\r\nServer: agentgate\r\nContent-Type: text/event-stream\r\n"
                  "Content-Length: 0\r\n") +
          kLive + "\r\n");
}

TEST(ResponseHead, ConnectionFollowsTheVersionsDefault) {
  const auto r = Json(404, "{}");
  EXPECT_NE(ResponseHead(r, 11, false).find("\r\nConnection: close\r\n"), std::string::npos);
  EXPECT_EQ(ResponseHead(r, 11, true).find("Connection"), std::string::npos);
  const auto old = ResponseHead(r, 10, true);
  EXPECT_TRUE(old.starts_with("HTTP/1.0 404 Not Found\r\n"));
  EXPECT_NE(old.find("\r\nConnection: keep-alive\r\n"), std::string::npos);
  EXPECT_EQ(ResponseHead(r, 10, false).find("Connection"), std::string::npos);
}

TEST(ResponseHead, TheResponsesHeadersFollowInOrderAndTheLastOfANameWins) {
  auto r = Json(429, "{}");
  r.content_type = "text/plain";
  r.headers = {{"Retry-After", "3"},
               {"X-Request-Id", "abc"},
               {"retry-after", "5"},
               {"content-type", "text/event-stream"}};
  EXPECT_EQ(ResponseHead(r, 11, true),
            "HTTP/1.1 429 Too Many Requests\r\nServer: agentgate\r\nX-Request-Id: abc\r\n"
            "retry-after: 5\r\ncontent-type: text/event-stream\r\nContent-Length: 2\r\n\r\n");
}

TEST(ResponseHead, LengthAndConnectionAreTheServersAlone) {
  auto r = Json(200, "abc");
  r.headers = {{"Content-Length", "99"}, {"connection", "upgrade"}};
  const auto head = ResponseHead(r, 11, false);
  EXPECT_EQ(head.find("99"), std::string::npos);
  EXPECT_EQ(head.find("upgrade"), std::string::npos);
  EXPECT_NE(head.find("\r\nContent-Length: 3\r\nConnection: close\r\n\r\n"), std::string::npos);
}

TEST(ResponseHead, NoLengthWhereNoBodyMayBeAndAPhraseForEveryStatusWeSend) {
  EXPECT_EQ(ResponseHead(Json(204, ""), 11, true).find("Content-Length"), std::string::npos);
  EXPECT_NE(ResponseHead(Json(202, ""), 11, true).find("Content-Length: 0\r\n"), std::string::npos);
  EXPECT_TRUE(ResponseHead(Json(499, "{}"), 11, true)
                  .starts_with("HTTP/1.1 499 Client Closed Request\r\n"));
  EXPECT_TRUE(
      ResponseHead(Json(308, ""), 11, true).starts_with("HTTP/1.1 308 Permanent Redirect\r\n"));
  EXPECT_TRUE(ResponseHead(Json(299, ""), 11, true).starts_with("HTTP/1.1 299 \r\n"));
}

}  // namespace
}  // namespace agentgate::http
