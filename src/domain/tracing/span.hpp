#pragma once
// A finished span as agentgate records it, before any wire format (OTLP: adapters/otlp). Pure.

#include "domain/tracing/trace_context.hpp"

#include <boost/container/small_vector.hpp>

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

namespace agentgate::tracing {

enum class SpanKind { kInternal, kServer, kClient };

using AttributeValue =
    std::variant<std::string, std::int64_t, double, bool, std::vector<std::string>>;

struct Attribute {
  // A literal, or a string that outlives every span (the config's resource attributes): spans are
  // made by the thousand a second, and their keys need no copy.
  std::string_view key;
  AttributeValue value;
};

struct SpanRecord {
  TraceId trace_id{};
  SpanId span_id{};
  std::optional<SpanId> parent;  // none for a trace's root span
  std::string trace_state;
  std::string name;
  SpanKind kind = SpanKind::kInternal;
  std::int64_t start_unix_ns = 0;
  std::int64_t end_unix_ns = 0;
  // Inside the record: what a span of ours sets needs no allocation of its own.
  boost::container::small_vector<Attribute, 8> attributes;
  bool error = false;         // the span's status: ERROR, else UNSET
  std::string error_message;  // with `error`: what failed, never a secret or withheld text
};

}  // namespace agentgate::tracing
