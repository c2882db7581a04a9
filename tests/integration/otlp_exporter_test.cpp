// The batching OTLP exporter against a real HTTP collector on loopback (our own server): batches
// arrive gzipped with the operator's headers, a 503 is retried after its Retry-After, a full
// queue drops and counts, and a collector that is down never holds anyone up.
#include "adapters/otlp/otlp_exporter.hpp"
#include "adapters/http_server/server.hpp"
#include "adapters/otlp/gzip.hpp"
#include "observability/log.hpp"
#include "support/run_async.hpp"

#include <gtest/gtest.h>

#include <atomic>
#include <mutex>

namespace agentgate::testing {
namespace {

namespace asio = boost::asio;
using namespace std::chrono_literals;

tracing::SpanRecord SpanNamed(std::string name, std::uint8_t n) {
  tracing::SpanRecord span;
  span.trace_id.fill(7);
  span.span_id.fill(n);
  span.name = std::move(name);
  span.start_unix_ns = 1795651200000000000;
  span.end_unix_ns = span.start_unix_ns + 1000;
  return span;
}

// The value of one counter series in the rendered metrics (0 when absent).
double Counter(const Metrics& metrics, const std::string& series) {
  const std::string text = metrics.Render();
  const auto at = text.find("\n" + series + " ");
  return at == std::string::npos ? 0 : std::stod(text.substr(at + series.size() + 2));
}

class Collector {
 public:
  Collector() {
    DeclareAgentgateMetrics(metrics_);
    router_.Add("POST", "/v1/traces", [this](http::Request& r) -> asio::awaitable<http::Response> {
      http::Response out;
      std::lock_guard lock(mutex_);
      bodies.push_back(r.body);
      encodings.emplace_back(r.Header("content-encoding").value_or(""));
      types.emplace_back(r.Header("content-type").value_or(""));
      keys.emplace_back(r.Header("x-api-key").value_or(""));
      if (refusals > 0) {
        --refusals;
        out.status = 503;
        out.headers.emplace_back("Retry-After", "0");
      }
      co_return out;
    });
    server_ = std::make_unique<http::Server>(loop_.io(), router_, metrics_, http::ServerOptions{});
    url = "http://" + server_->Listen("127.0.0.1:0").value() + "/v1/traces";
    server_->Start();
  }
  ~Collector() {
    loop_.Stop();
    server_.reset();
  }
  std::size_t Requests() {
    std::lock_guard lock(mutex_);
    return bodies.size();
  }

  std::string url;
  int refusals = 0;
  std::vector<std::string> bodies, encodings, types, keys;

 private:
  std::mutex mutex_;
  Metrics metrics_;
  http::Router router_;
  BackgroundLoop loop_;
  std::unique_ptr<http::Server> server_;
};

class OtlpExporterTest : public ::testing::Test {
 protected:
  void SetUp() override {
    log::SetEnabled(false);
    DeclareAgentgateMetrics(metrics_);
  }
  otlp::ExporterOptions Options(const std::string& url) {
    otlp::ExporterOptions options;
    options.endpoint = url;
    options.headers = {{"x-api-key", "collector-secret"}};
    options.scope =
        otlp::ExportScope{{{"service.name", std::string("agentgate")}}, "agentgate", "1"};
    options.first_backoff = 10ms;
    return options;
  }
  Metrics metrics_;
};

TEST_F(OtlpExporterTest, ABatchArrivesGzippedWithTheOperatorsHeadersAfterA503) {
  Collector collector;
  collector.refusals = 1;
  std::vector<tracing::SpanRecord> spans{SpanNamed("chat m1", 1), SpanNamed("execute_tool t", 2)};
  {
    auto options = Options(collector.url);
    options.gzip = true;
    otlp::Exporter exporter(options, metrics_, HttpClientOptions{});
    for (const auto& span : spans) exporter.Submit(span);
    exporter.Shutdown(5s);  // the queued batch goes before it stops
  }
  ASSERT_EQ(collector.Requests(), 2u);  // refused once (Retry-After: 0), then accepted
  EXPECT_EQ(collector.bodies[0], collector.bodies[1]);
  EXPECT_EQ(otlp::Gunzip(collector.bodies[1]),
            otlp::EncodeTraces(Options(collector.url).scope, spans));
  EXPECT_EQ(collector.encodings[1], "gzip");
  EXPECT_EQ(collector.types[1], "application/x-protobuf");
  EXPECT_EQ(collector.keys[1], "collector-secret");
  EXPECT_EQ(Counter(metrics_, "agentgate_trace_spans_exported_total"), 2);
  EXPECT_EQ(Counter(metrics_, "agentgate_trace_export_requests_total{outcome=\"retried\"}"), 1);
}

TEST_F(OtlpExporterTest, WithoutCompressionTheBodyIsThePlainProtobuf) {
  Collector collector;
  std::vector<tracing::SpanRecord> spans{SpanNamed("chat m1", 1)};
  auto options = Options(collector.url);
  options.gzip = false;
  {
    otlp::Exporter exporter(options, metrics_, HttpClientOptions{});
    for (const auto& span : spans) exporter.Submit(span);
    exporter.Shutdown(5s);
  }
  ASSERT_EQ(collector.Requests(), 1u);
  EXPECT_EQ(collector.bodies[0], otlp::EncodeTraces(options.scope, spans));
  EXPECT_EQ(collector.encodings[0], "");
}

TEST_F(OtlpExporterTest, AFullBatchGoesAtOnceAndAFullQueueDropsAndCounts) {
  Collector collector;
  auto options = Options(collector.url);
  options.interval = 1h;  // only a full batch, or the shutdown, sends
  options.max_batch = 3;
  options.max_queue = 4;
  otlp::Exporter exporter(options, metrics_, HttpClientOptions{});
  for (std::uint8_t i = 1; i <= 3; ++i) exporter.Submit(SpanNamed("s", i));
  const auto until = std::chrono::steady_clock::now() + 5s;
  while (collector.Requests() < 1 && std::chrono::steady_clock::now() < until)
    std::this_thread::sleep_for(5ms);
  EXPECT_EQ(collector.Requests(), 1u);  // without waiting the hour
  exporter.Shutdown(5s);

  Collector quiet;
  auto slow = Options(quiet.url);
  slow.interval = 1h;
  slow.max_queue = 2;
  otlp::Exporter small(slow, metrics_, HttpClientOptions{});
  for (std::uint8_t i = 1; i <= 5; ++i) small.Submit(SpanNamed("s", i));
  EXPECT_EQ(small.Queued(), 2u);
  EXPECT_EQ(Counter(metrics_, "agentgate_trace_spans_dropped_total{reason=\"queue_full\"}"), 3);
}

// The spans wait in one buffer: a batch taken from a longer queue is its oldest spans, whole, and
// the rest go in the next, in order.
TEST_F(OtlpExporterTest, AQueueLongerThanABatchGoesInOrderedBatchesOfWholeSpans) {
  Collector collector;
  auto options = Options(collector.url);
  options.interval = 1h;
  options.max_batch = 2;
  std::vector<tracing::SpanRecord> spans;
  for (std::uint8_t i = 1; i <= 7; ++i) spans.push_back(SpanNamed("span " + std::to_string(i), i));
  {
    otlp::Exporter exporter(options, metrics_, HttpClientOptions{});
    for (const auto& span : spans) exporter.Submit(span);
    exporter.Shutdown(5s);
  }
  ASSERT_GE(collector.Requests(), 4u);  // seven spans, at most two a request
  std::size_t next = 0;
  for (const auto& body : collector.bodies) {
    const std::size_t rest = spans.size() - next;
    const auto batch_of = [&](std::size_t n) {
      return otlp::EncodeTraces(options.scope,
                                {spans.begin() + static_cast<std::ptrdiff_t>(next),
                                 spans.begin() + static_cast<std::ptrdiff_t>(next + n)});
    };
    if (rest >= 2 && body == batch_of(2)) {
      next += 2;
    } else {
      ASSERT_EQ(body, batch_of(1)) << "request " << next;
      next += 1;
    }
  }
  EXPECT_EQ(next, spans.size());
  EXPECT_EQ(Counter(metrics_, "agentgate_trace_spans_exported_total"), 7);
}

TEST_F(OtlpExporterTest, ACollectorThatIsDownHoldsNobodyUpAndItsSpansAreCounted) {
  std::string url;
  {
    Collector gone;
    url = gone.url;
  }  // nothing listens there now
  auto options = Options(url);
  options.max_attempts = 2;
  otlp::Exporter exporter(options, metrics_, HttpClientOptions{});
  const auto started = std::chrono::steady_clock::now();
  for (std::uint8_t i = 1; i <= 100; ++i) exporter.Submit(SpanNamed("s", i));
  EXPECT_LT(std::chrono::steady_clock::now() - started, 50ms);  // Submit never waits
  exporter.Shutdown(1s);
  EXPECT_LT(std::chrono::steady_clock::now() - started, 3s);
  EXPECT_EQ(Counter(metrics_, "agentgate_trace_spans_dropped_total{reason=\"export_failed\"}"),
            100);
}

}  // namespace
}  // namespace agentgate::testing
