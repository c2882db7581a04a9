#pragma once
// Where finished, sampled spans go (the OTLP exporter, adapters/otlp). Submit never blocks and
// never fails: a sink that cannot keep up drops spans and counts them.

#include "domain/tracing/span.hpp"

namespace agentgate {

class SpanSink {
 public:
  virtual ~SpanSink() = default;
  virtual void Submit(const tracing::SpanRecord& span) = 0;  // any thread
};

}  // namespace agentgate
