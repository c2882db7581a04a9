#pragma once
// Spans as an OTLP/HTTP export body: an ExportTraceServiceRequest in binary protobuf. The encoder
// writes protobuf's wire format itself, for the few OTLP messages agentgate sends (field numbers
// from the message definitions in proto/, written from the specification): each span is encoded
// once, where it ends, onto the end of the spans waiting, and a request is those bytes framed by
// its resource and scope. Tests read its output back with libprotobuf (the same definitions) and
// with the official OpenTelemetry decoder (docs/decisions.md says why it is not built with
// libprotobuf).

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

// Appends one span to `spans` as a ScopeSpans message's `spans` field (its tag, its length and the
// Span message): a batch is such fields back to back. Returns the bytes it appended.
std::size_t AppendSpan(std::string& spans, const tracing::SpanRecord& span);
// Writes into `out` (replacing what it held, keeping its capacity) one request holding `spans`, as
// AppendSpan wrote them, in one resource and one scope.
void EncodeRequest(std::string& out, const ExportScope& scope, std::string_view spans);
// Both steps at once.
std::string EncodeTraces(const ExportScope& scope, const std::vector<tracing::SpanRecord>& spans);

}  // namespace agentgate::otlp
