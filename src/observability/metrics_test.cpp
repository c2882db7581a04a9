#include "observability/metrics.hpp"

#include <gtest/gtest.h>

namespace agentgate {

TEST(Metrics, RendersCountersAndHistogramsInPrometheusTextFormat) {
  Metrics m;
  m.DeclareCounter("requests_total", "Requests.");
  m.DeclareHistogram("duration_seconds", "Duration.", {0.1, 1});
  m.Add("requests_total", {{"route", "/a"}, {"status", "200"}});
  m.Add("requests_total", {{"route", "/a"}, {"status", "200"}}, 2);
  m.Observe("duration_seconds", {{"route", "/a"}}, 0.5);
  m.Observe("duration_seconds", {{"route", "/a"}}, 0.05);
  const std::string text = m.Render();
  EXPECT_NE(text.find("# TYPE requests_total counter"), std::string::npos);
  EXPECT_NE(text.find("requests_total{route=\"/a\",status=\"200\"} 3"), std::string::npos);
  EXPECT_NE(text.find("duration_seconds_bucket{route=\"/a\",le=\"0.1\"} 1"), std::string::npos);
  EXPECT_NE(text.find("duration_seconds_bucket{route=\"/a\",le=\"1\"} 2"), std::string::npos);
  EXPECT_NE(text.find("duration_seconds_bucket{route=\"/a\",le=\"+Inf\"} 2"), std::string::npos);
  EXPECT_NE(text.find("duration_seconds_count{route=\"/a\"} 2"), std::string::npos);
}

TEST(Metrics, EscapesLabelValues) {
  Metrics m;
  m.DeclareCounter("c", "C.");
  m.Add("c", {{"path", "a\"b\\c\nd"}});
  EXPECT_NE(m.Render().find("c{path=\"a\\\"b\\\\c\\nd\"} 1"), std::string::npos);
}

TEST(Metrics, UndeclaredFamilyIsABug) {
  Metrics m;
  EXPECT_THROW(m.Add("nope", {}), std::logic_error);
}

}  // namespace agentgate
