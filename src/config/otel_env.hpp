#pragma once
// The OpenTelemetry SDKs' standard environment variables, as agentgate's tracing reads them
// (docs/tracing.md): OTEL_SDK_DISABLED, OTEL_EXPORTER_OTLP_TRACES_ENDPOINT and
// OTEL_EXPORTER_OTLP_ENDPOINT, OTEL_EXPORTER_OTLP_TRACES_HEADERS and OTEL_EXPORTER_OTLP_HEADERS,
// OTEL_SERVICE_NAME, OTEL_RESOURCE_ATTRIBUTES, OTEL_TRACES_SAMPLER and OTEL_TRACES_SAMPLER_ARG.
// They fill the [tracing] keys the config leaves unset; an invalid one is an error naming it.

#include "config/config.hpp"

#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace agentgate {

// "key=value,key2=value2" (W3C Baggage-like, as OTEL_EXPORTER_OTLP_HEADERS and
// OTEL_RESOURCE_ATTRIBUTES write it): values percent-decoded, spaces around items trimmed.
// Errors name `what`.
Result<std::vector<std::pair<std::string, std::string>>> ParseKeyValueList(std::string_view text,
                                                                           const std::string& what);

Result<void> ApplyOtelEnvironment(const EnvLookup& env, TracingConfig& tracing);

}  // namespace agentgate
