#pragma once
// The batching OTLP/HTTP exporter (docs/tracing.md): each span is encoded as it is submitted and
// queues in memory (bounded: past it they are dropped and counted), and a thread of its own, never
// an I/O thread, frames them in batches, gzips them if asked and POSTs them to the collector
// through an HttpClient on its own event loop. A collector's 429 or 5xx is retried with backoff,
// honouring Retry-After; a turn never waits for any of it. Shutdown exports what is queued, within
// a deadline.

#include "adapters/http_client/http_client.hpp"
#include "adapters/otlp/otlp_encoding.hpp"
#include "observability/metrics.hpp"
#include "ports/span_sink.hpp"

#include <chrono>
#include <cstddef>
#include <memory>
#include <string>

namespace agentgate::otlp {

struct ExporterOptions {
  std::string endpoint;  // the traces URL
  HeaderList headers;    // the operator's (credentials), sent with each request
  ExportScope scope;
  bool gzip = false;                         // bodies sent with Content-Encoding: gzip
  std::size_t max_queue = 4096;              // spans waiting; past it new ones are dropped
  std::size_t max_batch = 512;               // spans per request
  std::chrono::milliseconds interval{1000};  // a partial batch waits at most this long
  std::chrono::milliseconds request_timeout{10000};
  int max_attempts = 4;                          // a batch is tried this often, then dropped
  std::chrono::milliseconds first_backoff{500};  // doubles each retry, up to max_backoff
  std::chrono::milliseconds max_backoff{10000};
};

class Exporter final : public SpanSink {
 public:
  Exporter(ExporterOptions options, Metrics& metrics, HttpClientOptions http);
  ~Exporter() override;  // Shutdown(5 s) if it was not called

  void Submit(const tracing::SpanRecord& span) override;
  // Exports what is queued (retrying within the time left), then stops its thread.
  void Shutdown(std::chrono::milliseconds within);

  std::size_t Queued() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace agentgate::otlp
