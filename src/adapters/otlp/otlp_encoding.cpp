#include "adapters/otlp/otlp_encoding.hpp"

#include "opentelemetry/proto/collector/trace/v1/trace_service.pb.h"

namespace agentgate::otlp {
namespace {

namespace common = opentelemetry::proto::common::v1;
namespace trace = opentelemetry::proto::trace::v1;

// Moves the value's strings into the message: the span is encoded once and then dropped.
void SetValue(tracing::AttributeValue& value, common::AnyValue& out) {
  std::visit(
      [&out](auto& v) {
        using T = std::decay_t<decltype(v)>;
        if constexpr (std::is_same_v<T, std::string>) {
          out.set_string_value(std::move(v));
        } else if constexpr (std::is_same_v<T, std::int64_t>) {
          out.set_int_value(v);
        } else if constexpr (std::is_same_v<T, double>) {
          out.set_double_value(v);
        } else if constexpr (std::is_same_v<T, bool>) {
          out.set_bool_value(v);
        } else {
          auto* array = out.mutable_array_value();
          for (auto& item : v) array->add_values()->set_string_value(std::move(item));
        }
      },
      value);
}

template <class Repeated>
void AddAttributes(std::vector<tracing::Attribute> attributes, Repeated& out) {
  out.Reserve(static_cast<int>(attributes.size()));
  for (auto& attribute : attributes) {
    auto* kv = out.Add();
    kv->set_key(std::string(attribute.key));
    SetValue(attribute.value, *kv->mutable_value());
  }
}

trace::Span::SpanKind KindOf(tracing::SpanKind kind) {
  switch (kind) {
    case tracing::SpanKind::kServer:
      return trace::Span::SPAN_KIND_SERVER;
    case tracing::SpanKind::kClient:
      return trace::Span::SPAN_KIND_CLIENT;
    case tracing::SpanKind::kInternal:
      break;
  }
  return trace::Span::SPAN_KIND_INTERNAL;
}

template <std::size_t N>
std::string Bytes(const std::array<std::uint8_t, N>& id) {
  return std::string(reinterpret_cast<const char*>(id.data()), N);
}

}  // namespace

std::string EncodeTraces(const ExportScope& scope, std::vector<tracing::SpanRecord> spans) {
  opentelemetry::proto::collector::trace::v1::ExportTraceServiceRequest request;
  auto* resource_spans = request.add_resource_spans();
  AddAttributes(scope.resource, *resource_spans->mutable_resource()->mutable_attributes());
  auto* scope_spans = resource_spans->add_scope_spans();
  scope_spans->mutable_scope()->set_name(scope.scope_name);
  scope_spans->mutable_scope()->set_version(scope.scope_version);
  scope_spans->mutable_spans()->Reserve(static_cast<int>(spans.size()));
  for (auto& span : spans) {
    auto* out = scope_spans->add_spans();
    out->set_trace_id(Bytes(span.trace_id));
    out->set_span_id(Bytes(span.span_id));
    if (span.parent) out->set_parent_span_id(Bytes(*span.parent));
    if (!span.trace_state.empty()) out->set_trace_state(std::move(span.trace_state));
    out->set_flags(0x01);  // sampled: only sampled spans are exported
    out->set_name(std::move(span.name));
    out->set_kind(KindOf(span.kind));
    out->set_start_time_unix_nano(static_cast<std::uint64_t>(span.start_unix_ns));
    out->set_end_time_unix_nano(static_cast<std::uint64_t>(span.end_unix_ns));
    AddAttributes(std::move(span.attributes), *out->mutable_attributes());
    if (span.error) {
      out->mutable_status()->set_code(trace::Status::STATUS_CODE_ERROR);
      out->mutable_status()->set_message(std::move(span.error_message));
    }
  }
  return request.SerializeAsString();
}

}  // namespace agentgate::otlp
