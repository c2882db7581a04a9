#include "observability/metrics.hpp"

#include <gtest/gtest.h>

#include <thread>
#include <vector>

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

// Each thread counts in its own shard; the rendered figure is the sum, and a gauge raised on one
// thread and lowered on another comes back to zero.
TEST(Metrics, UpdatesFromManyThreadsAreSummed) {
  Metrics m;
  m.DeclareCounter("hits_total", "Hits.");
  m.DeclareGauge("open", "Open.");
  m.DeclareHistogram("seconds", "Seconds.", {1});
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&m] {
      for (int i = 0; i < 1000; ++i) {
        m.Add("hits_total", {{"route", "/a"}});
        m.Observe("seconds", {}, 0.5);
        m.AddGauge("open", {}, 1);
      }
    });
  }
  for (auto& t : threads) t.join();
  std::thread closer([&m] {
    for (int i = 0; i < 4000; ++i) m.AddGauge("open", {}, -1);
  });
  closer.join();
  const std::string text = m.Render();
  EXPECT_NE(text.find("hits_total{route=\"/a\"} 4000\n"), std::string::npos) << text;
  EXPECT_NE(text.find("seconds_bucket{le=\"1\"} 4000\n"), std::string::npos) << text;
  EXPECT_NE(text.find("seconds_count 4000\n"), std::string::npos) << text;
  EXPECT_NE(text.find("open 0\n"), std::string::npos) << text;
}

// Labels are views: a value made for the call (a status as text) is read during it, and each
// distinct value keeps its own series.
TEST(Metrics, LabelValuesMayBeTemporariesOfTheCall) {
  Metrics m;
  m.DeclareCounter("answers_total", "Answers.");
  for (int status : {200, 404, 200}) {
    const std::string route = "/r" + std::to_string(status / 100);
    m.Add("answers_total", {{"route", route}, {"status", std::to_string(status)}});
  }
  const std::string text = m.Render();
  EXPECT_NE(text.find("answers_total{route=\"/r2\",status=\"200\"} 2\n"), std::string::npos)
      << text;
  EXPECT_NE(text.find("answers_total{route=\"/r4\",status=\"404\"} 1\n"), std::string::npos)
      << text;
}

TEST(Metrics, AReadGaugeShowsItsCountAtEachRenderAndTakesNoUpdates) {
  Metrics m;
  int running = 2;
  m.DeclareGauge("running", "Running.", [&running] { return static_cast<double>(running); });
  EXPECT_NE(m.Render().find("# TYPE running gauge\nrunning 2\n"), std::string::npos) << m.Render();
  running = 0;
  EXPECT_NE(m.Render().find("\nrunning 0\n"), std::string::npos) << m.Render();
  EXPECT_THROW(m.AddGauge("running", {}, 1), std::logic_error);
}

TEST(Metrics, UndeclaredFamilyIsABug) {
  Metrics m;
  EXPECT_THROW(m.Add("nope", {}), std::logic_error);
}

}  // namespace agentgate
