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

// An I/O thread keeps this much room for encoding its spans; a larger span's is given back.
constexpr std::size_t kKeptScratch = 64 * 1024;

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

  // The spans waiting, each encoded where it ended and appended here (AppendSpan), and each one's
  // size. One buffer, not a string a span: an I/O thread allocates nothing the exporter's thread
  // frees, and the buffers keep their room from batch to batch.
  mutable std::mutex mutex;
  std::string queued;
  std::vector<std::uint32_t> queued_sizes;
  bool stopping = false;
  std::string batch;  // the exporter's thread's: the spans it sends now
  Clock::time_point stop_by = Clock::time_point::max();

  void Drop(std::size_t count, const char* reason) {
    metrics.Add("agentgate_trace_spans_dropped_total", {{"reason", reason}},
                static_cast<double>(count));
  }

  // Moves up to a batch of the oldest spans into `batch`; how many.
  std::size_t TakeBatch() {
    batch.clear();
    std::lock_guard lock(mutex);
    const std::size_t n = std::min(queued_sizes.size(), options.max_batch);
    if (n == queued_sizes.size()) {
      batch.swap(queued);  // all of them: `queued` goes on in the room `batch` had
    } else {
      std::size_t bytes = 0;
      for (std::size_t i = 0; i < n; ++i) bytes += queued_sizes[i];
      batch.assign(queued, 0, bytes);
      queued.erase(0, bytes);
    }
    queued_sizes.erase(queued_sizes.begin(), queued_sizes.begin() + static_cast<std::ptrdiff_t>(n));
    return n;
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

  // `batch`'s `count` spans, tried until they are accepted, refused, out of attempts, or out of
  // shutdown time. Each attempt frames them anew: the client takes its body.
  asio::awaitable<void> Export(std::size_t count) {
    milliseconds delay = options.first_backoff;
    for (int attempt = 1;; ++attempt) {
      HttpClientRequest request;
      EncodeRequest(request.body, options.scope, batch);
      if (options.gzip) request.body = gzip.Compress(request.body);
      request.method = "POST";
      request.url = options.endpoint;
      request.headers = options.headers;
      request.headers.emplace_back("content-type", "application/x-protobuf");
      if (options.gzip) request.headers.emplace_back("content-encoding", "gzip");
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
        full = queued_sizes.size() >= options.max_batch;
      }
      if (!full && !Stopping()) co_await Pause(wake, options.interval);
      if (const std::size_t count = TakeBatch(); count > 0) {
        co_await Export(count);
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
  // Encoded here, on the thread that ended the span, into that thread's own buffer (its room kept
  // from span to span), then copied to the queue's: the lock is held for a copy, not an encoding
  // (docs/performance.md).
  thread_local std::string encoded;
  encoded.clear();
  AppendSpan(encoded, span);
  bool wake = false;
  {
    std::lock_guard lock(impl_->mutex);
    if (impl_->stopping || impl_->queued_sizes.size() >= impl_->options.max_queue) {
      impl_->Drop(1, "queue_full");
      return;
    }
    impl_->queued.append(encoded);
    impl_->queued_sizes.push_back(static_cast<std::uint32_t>(encoded.size()));
    wake = impl_->queued_sizes.size() == impl_->options.max_batch;  // a full batch goes at once
  }
  if (encoded.capacity() > kKeptScratch) std::string().swap(encoded);  // a rare large span's room
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
  return impl_->queued_sizes.size();
}

}  // namespace agentgate::otlp
