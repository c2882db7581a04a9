#include "config/otel_env.hpp"

#include "domain/url_encoding.hpp"

#include <cstdlib>

namespace agentgate {
namespace {

Error EnvError(const std::string& name, const std::string& problem) {
  return MakeError(ErrorCode::kInvalidRequest, "environment variable '" + name + "': " + problem);
}

std::string_view Trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
  return s;
}

// A ratio in [0, 1] from OTEL_TRACES_SAMPLER_ARG.
Result<double> Ratio(const std::string& text) {
  char* end = nullptr;
  const double value = std::strtod(text.c_str(), &end);
  if (text.empty() || *end != '\0' || !(value >= 0 && value <= 1))
    return EnvError("OTEL_TRACES_SAMPLER_ARG", "must be a number from 0 to 1");
  return value;
}

}  // namespace

Result<std::vector<std::pair<std::string, std::string>>> ParseKeyValueList(
    std::string_view text, const std::string& what) {
  std::vector<std::pair<std::string, std::string>> out;
  while (!text.empty()) {
    const auto comma = text.find(',');
    const std::string_view item = Trim(text.substr(0, comma));
    text = comma == std::string_view::npos ? std::string_view() : text.substr(comma + 1);
    if (item.empty()) continue;
    const auto equals = item.find('=');
    const std::string_view key = Trim(item.substr(0, equals));
    if (equals == std::string_view::npos || key.empty())
      return MakeError(ErrorCode::kInvalidRequest, what + ": each item must be key=value");
    auto value = PercentDecode(Trim(item.substr(equals + 1)), false);
    if (!value)
      return MakeError(ErrorCode::kInvalidRequest, what + ": a value is not percent-encoded");
    out.emplace_back(std::string(key), std::move(*value));
  }
  return out;
}

Result<void> ApplyOtelEnvironment(const EnvLookup& env, TracingConfig& tracing) {
  if (env("OTEL_SDK_DISABLED").value_or("") == "true") return {};
  if (auto traces = env("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT"); traces && !traces->empty()) {
    tracing.endpoint = *traces;  // used as given
  } else if (auto base = env("OTEL_EXPORTER_OTLP_ENDPOINT"); base && !base->empty()) {
    std::string url = *base;  // the signal's path goes after the base (the OTLP exporter rule)
    if (!url.ends_with('/')) url += '/';
    tracing.endpoint = url + "v1/traces";
  }
  for (const char* name : {"OTEL_EXPORTER_OTLP_TRACES_HEADERS", "OTEL_EXPORTER_OTLP_HEADERS"}) {
    if (auto headers = env(name)) {
      AG_TRY(tracing.headers,
             ParseKeyValueList(*headers, std::string("environment variable '") + name + "'"));
      break;
    }
  }
  for (const char* name :
       {"OTEL_EXPORTER_OTLP_TRACES_COMPRESSION", "OTEL_EXPORTER_OTLP_COMPRESSION"}) {
    if (auto compression = env(name); compression && !compression->empty()) {
      if (*compression != "gzip" && *compression != "none")
        return EnvError(name, "must be gzip or none");
      tracing.compression = *compression;
      break;
    }
  }
  if (auto service = env("OTEL_SERVICE_NAME"); service && !service->empty())
    tracing.service_name = *service;
  if (auto attributes = env("OTEL_RESOURCE_ATTRIBUTES")) {
    AG_TRY(tracing.resource_attributes,
           ParseKeyValueList(*attributes, "environment variable 'OTEL_RESOURCE_ATTRIBUTES'"));
  }
  const auto sampler = env("OTEL_TRACES_SAMPLER");
  const auto argument = env("OTEL_TRACES_SAMPLER_ARG");
  if (!sampler) return {};
  const std::string& name = *sampler;
  tracing.parent_based = name.starts_with("parentbased_");
  if (name == "always_on" || name == "parentbased_always_on") {
    tracing.sample_ratio = 1.0;
  } else if (name == "always_off" || name == "parentbased_always_off") {
    tracing.sample_ratio = 0.0;
  } else if (name == "traceidratio" || name == "parentbased_traceidratio") {
    tracing.sample_ratio = 1.0;  // the specification's default argument
    if (argument) {
      AG_TRY(tracing.sample_ratio, Ratio(*argument));
    }
  } else {
    return EnvError("OTEL_TRACES_SAMPLER",
                    "must be always_on, always_off, traceidratio, parentbased_always_on, "
                    "parentbased_always_off or parentbased_traceidratio");
  }
  return {};
}

}  // namespace agentgate
