#pragma once
// Spans as an OTLP/HTTP export body: an ExportTraceServiceRequest in binary protobuf. The encoder
// writes protobuf's wire format itself, for the few OTLP messages agentgate sends (field numbers
// from the message definitions in proto/, written from the specification): each span is encoded
// once, where it ends, into one string, and a request is those strings framed by its resource and
// scope. Tests read its output back with libprotobuf (the same definitions) and with the official
// OpenTelemetry decoder (docs/decisions.md says why it is not built with libprotobuf).

#include "domain/tracing/span.hpp"

#include <string>
#include <string_view>
#include <vector>

namespace agentgate::otlp {

struct ExportScope {
  std::vector<tracing::Attribute> resource;  // service.name and the operator's attributes
  std::string scope_name;                    // the instrumentation scope: "agentgate"
  std::string scope_version;
};

// One Span message's bytes (without the field tag that puts it in its ScopeSpans).
std::string EncodeSpan(const tracing::SpanRecord& span);
// One request holding `spans` (each as EncodeSpan made it), in one resource and one scope.
std::string EncodeRequest(const ExportScope& scope, const std::vector<std::string>& spans);
// Both steps at once.
std::string EncodeTraces(const ExportScope& scope, const std::vector<tracing::SpanRecord>& spans);

}  // namespace agentgate::otlp
