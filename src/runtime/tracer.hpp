#pragma once
// Spans as the use cases and adapters make them (docs/tracing.md): a span continues its parent's
// trace (a caller's traceparent, or a span of ours) or starts one, sampled by the configured rule,
// and goes to the sink when it ends, if sampled. With tracing off (no sink) a span is an empty
// object that records nothing and costs a branch.

#include "domain/tracing/trace_context.hpp"
#include "observability/log.hpp"
#include "ports/span_sink.hpp"

#include <memory>
#include <optional>
#include <string>

namespace agentgate {

struct SpanContext {
  tracing::TraceId trace_id{};
  tracing::SpanId span_id{};
  bool sampled = false;
  std::string trace_state;

  // The traceparent that makes this span the parent of a call it sends.
  std::string Traceparent() const;
  static SpanContext From(const tracing::TraceContext& caller);
};

// One pointer wide: with tracing off (the common case) a turn's frames hold only null spans.
class Span {
 public:
  Span() = default;  // records nothing
  Span(Span&&) noexcept = default;
  Span& operator=(Span&& other) noexcept;
  Span(const Span&) = delete;
  Span& operator=(const Span&) = delete;
  ~Span() { End(); }

  bool recording() const { return state_ && state_->record.has_value(); }
  // This span as a parent; none when tracing is off.
  std::optional<SpanContext> context() const;
  const SpanContext* context_ptr() const { return state_ ? &state_->context : nullptr; }

  void Rename(std::string name);
  void Set(std::string_view key, tracing::AttributeValue value);  // key: as Attribute says
  void Fail(std::string message);                                 // status ERROR
  void End();                                                     // submits once, if sampled

 private:
  friend class Tracer;
  struct State {
    SpanSink* sink = nullptr;
    SpanContext context;
    std::optional<tracing::SpanRecord> record;  // only for a sampled span
  };
  std::unique_ptr<State> state_;
};

// A client span's `server.address` and `server.port`, read from the URL it calls.
void DescribeServer(Span& span, std::string_view url);

// Calls `write` with a log line's `trace_id` and `span_id` fields for `trace` (none without one),
// so that the line joins the trace (docs/tracing.md).
template <class Write>
void WithTraceFields(const SpanContext* trace, const Write& write) {
  char trace_id[32];
  char span_id[16];
  if (trace == nullptr) {
    write(std::initializer_list<log::Field>{});
    return;
  }
  tracing::WriteHex(trace->trace_id.data(), trace->trace_id.size(), trace_id);
  tracing::WriteHex(trace->span_id.data(), trace->span_id.size(), span_id);
  write(std::initializer_list<log::Field>{{"trace_id", std::string_view(trace_id, sizeof trace_id)},
                                          {"span_id", std::string_view(span_id, sizeof span_id)}});
}
// A log line of a request's or a run's, naming its trace and span when it has one.
inline void LogTraced(std::string_view level, std::string_view event,
                      std::initializer_list<log::Field> fields, const SpanContext* trace) {
  WithTraceFields(
      trace, [&](std::initializer_list<log::Field> ids) { log::Write(level, event, fields, ids); });
}

class Tracer {
 public:
  Tracer() = default;  // off
  Tracer(SpanSink* sink, double sample_ratio, bool parent_based, bool capture_content = false)
      : sink_(sink),
        ratio_(sample_ratio),
        parent_based_(parent_based),
        capture_content_(capture_content) {}

  bool enabled() const { return sink_ != nullptr; }
  // [tracing] capture_content: prompt and reply text go on spans (withheld text never).
  bool capture_content() const { return capture_content_; }
  // A span under `parent` (none: a new trace, sampled by the ratio).
  Span Start(std::string name, tracing::SpanKind kind,
             const std::optional<SpanContext>& parent) const;
  Span Start(std::string name, tracing::SpanKind kind, const SpanContext* parent) const;

 private:
  SpanSink* sink_ = nullptr;
  double ratio_ = 1.0;
  bool parent_based_ = true;
  bool capture_content_ = false;
};

}  // namespace agentgate
