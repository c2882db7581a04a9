#pragma once
// W3C Trace Context (https://www.w3.org/TR/trace-context/): the `traceparent` a caller sends and
// agentgate sends on, and the sampling decision for a trace that starts here. Pure.

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace agentgate::tracing {

using TraceId = std::array<std::uint8_t, 16>;
using SpanId = std::array<std::uint8_t, 8>;

struct TraceContext {
  TraceId trace_id{};
  SpanId span_id{};  // the caller's span: the parent of ours
  bool sampled = false;
  std::string tracestate;  // passed on as received (vendors' entries), at most 512 bytes
};

// A `traceparent` header as the specification reads it: version 00 exactly, or a later version
// whose first four fields have version 00's shape; lower-case hex; trace and parent ids not all
// zero. Anything else is none (the trace then starts here, as the specification says).
std::optional<TraceContext> ParseTraceparent(std::string_view header,
                                             std::string_view tracestate = "");
// "00-<trace id>-<span id>-<flags>".
std::string FormatTraceparent(const TraceId& trace_id, const SpanId& span_id, bool sampled);

// Whether a trace that starts here is recorded, by the trace id's ratio as the OpenTelemetry SDKs
// decide it (its last 8 bytes, big-endian, against ratio × 2^64): the same trace id gets the
// same answer on every server. 0 samples nothing, 1 everything.
bool SampledByRatio(const TraceId& trace_id, double ratio);

std::string Hex(const std::uint8_t* bytes, std::size_t size);
// The same into `out` (2 * size chars), for callers that keep it on their stack.
void WriteHex(const std::uint8_t* bytes, std::size_t size, char* out);
template <std::size_t N>
std::string Hex(const std::array<std::uint8_t, N>& bytes) {
  return Hex(bytes.data(), N);
}

}  // namespace agentgate::tracing
