#include "observability/log.hpp"

#include <gtest/gtest.h>

namespace agentgate::log {

TEST(LogTimestamp, IsRfc3339UtcWithMilliseconds) {
  EXPECT_EQ(Timestamp(0), "1970-01-01T00:00:00.000Z");
  EXPECT_EQ(Timestamp(1764547199999), "2025-11-30T23:59:59.999Z");  // the month's last ms
  EXPECT_EQ(Timestamp(1764547200000), "2025-12-01T00:00:00.000Z");
  EXPECT_EQ(Timestamp(1709210096007), "2024-02-29T12:34:56.007Z");  // a leap day, padded ms
  EXPECT_EQ(Timestamp(4102444799001), "2099-12-31T23:59:59.001Z");
}

TEST(LogLine, TakesASecondListOfFieldsAfterTheFirst) {
  EXPECT_EQ(Line(0, "info", "http_request", {{"status", std::int64_t{200}}},
                 {{"trace_id", std::string_view("4bf9")}}),
            "{\"ts\":\"1970-01-01T00:00:00.000Z\",\"level\":\"info\",\"event\":\"http_request\","
            "\"status\":200,\"trace_id\":\"4bf9\"}\n");
}

TEST(LogLine, IsOneJsonObjectWithItsFieldsEscaped) {
  EXPECT_EQ(Line(0, "info", "started", {{"port", std::int64_t{8080}}, {"tls", false}}),
            "{\"ts\":\"1970-01-01T00:00:00.000Z\",\"level\":\"info\",\"event\":\"started\","
            "\"port\":8080,\"tls\":false}\n");
  const std::string_view hostile = "a\"b\\c\nd\re\tf\x01g plain tail";
  EXPECT_EQ(Line(0, "warn", "x", {{"why", hostile}}),
            "{\"ts\":\"1970-01-01T00:00:00.000Z\",\"level\":\"warn\",\"event\":\"x\","
            "\"why\":\"a\\\"b\\\\c\\nd\\re\\tf\\u0001g plain tail\"}\n");
  EXPECT_EQ(Line(0, "info", "\"", {{"ratio", 0.5}}),
            "{\"ts\":\"1970-01-01T00:00:00.000Z\",\"level\":\"info\",\"event\":\"\\\"\","
            "\"ratio\":0.5}\n");
}

}  // namespace agentgate::log
