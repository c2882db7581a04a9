#pragma once
// Spans as an OTLP/HTTP export body: an ExportTraceServiceRequest in binary protobuf, encoded by
// libprotobuf from the OTLP message definitions (proto/, written from the specification). The
// protobuf headers stay in the .cpp.

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

// One request holding every span in `spans` (their strings moved into it), in one resource and
// one scope.
std::string EncodeTraces(const ExportScope& scope, std::vector<tracing::SpanRecord> spans);

}  // namespace agentgate::otlp
