#include "runtime/tracer.hpp"

#include "domain/tracing/peer.hpp"

#include <algorithm>
#include <chrono>
#include <random>

namespace agentgate {
namespace {

std::int64_t NowUnixNs() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

// Random ids from a per-thread generator seeded by the system (ids need to be unique, not
// secret); all-zero ids are invalid and never made.
template <std::size_t N>
std::array<std::uint8_t, N> RandomId() {
  thread_local std::mt19937_64 generator{std::random_device{}()};
  std::array<std::uint8_t, N> id{};
  do {
    for (std::size_t i = 0; i < N; i += 8) {
      std::uint64_t word = generator();
      for (std::size_t b = 0; b < 8 && i + b < N; ++b)
        id[i + b] = static_cast<std::uint8_t>(word >> (8 * b));
    }
  } while (std::all_of(id.begin(), id.end(), [](std::uint8_t b) { return b == 0; }));
  return id;
}

}  // namespace

std::string SpanContext::Traceparent() const {
  return tracing::FormatTraceparent(trace_id, span_id, sampled);
}

SpanContext SpanContext::From(const tracing::TraceContext& caller) {
  return SpanContext{caller.trace_id, caller.span_id, caller.sampled, caller.tracestate};
}

Span& Span::operator=(Span&& other) noexcept {
  if (this != &other) {
    End();
    state_ = std::move(other.state_);
  }
  return *this;
}

std::optional<SpanContext> Span::context() const {
  if (!state_) return std::nullopt;
  return state_->context;
}

void Span::Rename(std::string name) {
  if (recording()) state_->record->name = std::move(name);
}

void Span::Set(std::string_view key, tracing::AttributeValue value) {
  if (recording()) state_->record->attributes.push_back({key, std::move(value)});
}

void Span::Fail(std::string message) {
  if (!recording()) return;
  state_->record->error = true;
  state_->record->error_message = std::move(message);
}

void Span::End() {
  if (!recording()) return;
  state_->record->end_unix_ns = NowUnixNs();
  state_->sink->Submit(*state_->record);
  state_->record.reset();
}

void DescribeServer(Span& span, std::string_view url) {
  if (!span.recording()) return;
  if (auto peer = tracing::PeerOf(url)) {
    span.Set("server.address", std::move(peer->address));
    span.Set("server.port", peer->port);
  }
}

Span Tracer::Start(std::string name, tracing::SpanKind kind,
                   const std::optional<SpanContext>& parent) const {
  return Start(std::move(name), kind, parent ? &*parent : nullptr);
}

Span Tracer::Start(std::string name, tracing::SpanKind kind, const SpanContext* parent) const {
  Span span;
  if (sink_ == nullptr) return span;
  auto state = std::make_unique<Span::State>();
  SpanContext& context = state->context;
  if (parent != nullptr) {
    context.trace_id = parent->trace_id;
    context.trace_state = parent->trace_state;
    context.sampled =
        parent_based_ ? parent->sampled : tracing::SampledByRatio(parent->trace_id, ratio_);
  } else {
    context.trace_id = RandomId<16>();
    context.sampled = tracing::SampledByRatio(context.trace_id, ratio_);
  }
  context.span_id = RandomId<8>();
  state->sink = sink_;
  if (context.sampled) {
    tracing::SpanRecord& record = state->record.emplace();  // in place: the attributes are inside
    record.trace_id = context.trace_id;
    record.span_id = context.span_id;
    if (parent != nullptr) record.parent = parent->span_id;
    record.trace_state = context.trace_state;
    record.name = std::move(name);
    record.kind = kind;
    record.start_unix_ns = NowUnixNs();
  }
  span.state_ = std::move(state);
  return span;
}

}  // namespace agentgate
