#include "adapters/otlp/otlp_exporter.hpp"

#include "adapters/otlp/gzip.hpp"
#include "observability/thread_name.hpp"

#include <boost/asio/as_tuple.hpp>
#include <boost/asio/co_spawn.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/use_awaitable.hpp>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <deque>
#include <mutex>
#include <thread>
#include <vector>

namespace agentgate::otlp {

namespace asio = boost::asio;
using Clock = std::chrono::steady_clock;
using std::chrono::milliseconds;

namespace {

// Retry-After in seconds (its HTTP-date form is not used by collectors; it falls back to backoff).
std::optional<milliseconds> RetryAfter(const HttpClientResponse& response) {
  const auto value = response.Header("retry-after");
  if (!value) return std::nullopt;
  char* end = nullptr;
  const std::string text(*value);
  const double seconds = std::strtod(text.c_str(), &end);
  if (text.empty() || *end != '\0' || seconds < 0) return std::nullopt;
  return milliseconds(static_cast<std::int64_t>(std::ceil(seconds * 1000)));
}

bool Retryable(int status) {
  return status == 429 || status == 502 || status == 503 || status == 504;
}

}  // namespace

struct Exporter::Impl {
  Impl(ExporterOptions o, Metrics& m, HttpClientOptions http)
      : options(std::move(o)), metrics(m), client(io.get_executor(), std::move(http)) {}

  ExporterOptions options;
  Metrics& metrics;
  asio::io_context io;
  HttpClient client;
  asio::steady_timer wake{io};      // the wait for a batch: cut short by a full one or a shutdown
  asio::steady_timer backoff{io};   // the wait before a retry
  asio::steady_timer deadline{io};  // a shutdown's end: the loop stops there, whatever it does
  GzipCompressor gzip;              // used on the exporter's thread only
  std::thread thread;

  mutable std::mutex mutex;
  std::deque<std::string> queue;  // spans, each encoded where it ended
  bool stopping = false;
  Clock::time_point stop_by = Clock::time_point::max();

  void Drop(std::size_t count, const char* reason) {
    metrics.Add("agentgate_trace_spans_dropped_total", {{"reason", reason}},
                static_cast<double>(count));
  }

  std::vector<std::string> TakeBatch() {
    std::lock_guard lock(mutex);
    const std::size_t n = std::min(queue.size(), options.max_batch);
    std::vector<std::string> batch(std::make_move_iterator(queue.begin()),
                                   std::make_move_iterator(queue.begin() + n));
    queue.erase(queue.begin(), queue.begin() + n);
    return batch;
  }

  asio::steady_timer& backoff_timer() { return backoff; }

  bool Stopping() const {
    std::lock_guard lock(mutex);
    return stopping;
  }

  static asio::awaitable<void> Pause(asio::steady_timer& timer, milliseconds wait) {
    timer.expires_after(wait);
    co_await timer.async_wait(asio::as_tuple(asio::use_awaitable));
  }

  // One batch, tried until it is accepted, refused, out of attempts, or out of shutdown time.
  asio::awaitable<void> Export(std::vector<std::string> batch) {
    const std::size_t count = batch.size();
    std::string body = EncodeRequest(options.scope, batch);
    if (options.gzip) body = gzip.Compress(body);
    milliseconds delay = options.first_backoff;
    for (int attempt = 1;; ++attempt) {
      HttpClientRequest request;
      request.method = "POST";
      request.url = options.endpoint;
      request.headers = options.headers;
      request.headers.emplace_back("content-type", "application/x-protobuf");
      if (options.gzip) request.headers.emplace_back("content-encoding", "gzip");
      request.body = body;
      request.timeout = options.request_timeout;
      if (Stopping()) {
        const auto left = std::chrono::duration_cast<milliseconds>(stop_by - Clock::now());
        request.timeout = std::clamp(left, milliseconds(1), options.request_timeout);
      }
      const auto response = co_await client.Send(std::move(request));
      if (response && response->status / 100 == 2) {
        metrics.Add("agentgate_trace_export_requests_total", {{"outcome", "ok"}});
        metrics.Add("agentgate_trace_spans_exported_total", {}, static_cast<double>(count));
        co_return;
      }
      if (response && !Retryable(response->status)) {
        metrics.Add("agentgate_trace_export_requests_total", {{"outcome", "failed"}});
        Drop(count, "rejected");  // the same spans would be refused again
        co_return;
      }
      auto wait = delay;
      if (response) wait = RetryAfter(*response).value_or(delay);
      delay = std::min(delay * 2, options.max_backoff);
      const bool out_of_time = Stopping() && Clock::now() + wait >= stop_by;
      if (attempt >= options.max_attempts || out_of_time) {
        metrics.Add("agentgate_trace_export_requests_total", {{"outcome", "failed"}});
        Drop(count, "export_failed");
        co_return;
      }
      metrics.Add("agentgate_trace_export_requests_total", {{"outcome", "retried"}});
      co_await Pause(backoff_timer(), wait);
    }
  }

  asio::awaitable<void> Run() {
    for (;;) {
      bool full = false;
      {
        std::lock_guard lock(mutex);
        full = queue.size() >= options.max_batch;
      }
      if (!full && !Stopping()) co_await Pause(wake, options.interval);
      auto batch = TakeBatch();
      if (!batch.empty()) {
        co_await Export(std::move(batch));
        continue;
      }
      if (Stopping()) co_return;
    }
  }
};

Exporter::Exporter(ExporterOptions options, Metrics& metrics, HttpClientOptions http)
    : impl_(std::make_unique<Impl>(std::move(options), metrics, std::move(http))) {
  // The loop's end (a shutdown's last batch sent) ends the thread.
  asio::co_spawn(impl_->io, impl_->Run(),
                 [impl = impl_.get()](const std::exception_ptr&) { impl->io.stop(); });
  impl_->thread = std::thread([this] {
    NameThisThread("ag-otlp");
    impl_->io.run();
  });
}

Exporter::~Exporter() {
  Shutdown(milliseconds(5000));
}

void Exporter::Submit(const tracing::SpanRecord& span) {
  // Encoded here, on the thread that ended the span: what it allocated is freed where it was
  // made, and the exporter's thread gets one string (docs/performance.md).
  std::string encoded = EncodeSpan(span);
  bool wake = false;
  {
    std::lock_guard lock(impl_->mutex);
    if (impl_->stopping || impl_->queue.size() >= impl_->options.max_queue) {
      impl_->Drop(1, "queue_full");
      return;
    }
    impl_->queue.push_back(std::move(encoded));
    wake = impl_->queue.size() == impl_->options.max_batch;  // a full batch goes at once
  }
  if (wake) asio::post(impl_->io, [impl = impl_.get()] { impl->wake.cancel(); });
}

void Exporter::Shutdown(milliseconds within) {
  if (!impl_->thread.joinable()) return;
  {
    std::lock_guard lock(impl_->mutex);
    impl_->stopping = true;
    impl_->stop_by = Clock::now() + within;
  }
  asio::post(impl_->io, [impl = impl_.get(), within] {
    impl->wake.cancel();
    impl->deadline.expires_after(within + milliseconds(500));
    impl->deadline.async_wait([impl](const boost::system::error_code& ec) {
      if (!ec) impl->io.stop();
    });
  });
  impl_->thread.join();
}

std::size_t Exporter::Queued() const {
  std::lock_guard lock(impl_->mutex);
  return impl_->queue.size();
}

}  // namespace agentgate::otlp
