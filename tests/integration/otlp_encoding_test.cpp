// The OTLP encoder against the official decoder: spans encoded here are read back by the
// OpenTelemetry JavaScript packages' generated OTLP code (tests/counterparts/otlp_decode.mjs,
// pinned), so a field number or type that differs from the specification fails here.
#include "adapters/otlp/otlp_encoding.hpp"

#include <gtest/gtest.h>
#include <boost/json/parse.hpp>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <memory>

namespace agentgate::testing {
namespace {

namespace json = boost::json;
using tracing::Attribute;
using tracing::SpanRecord;

// Runs `command` and returns what it printed.
std::string Output(const std::string& command) {
  std::unique_ptr<FILE, int (*)(FILE*)> pipe(::popen(command.c_str(), "r"), ::pclose);
  std::string out;
  char buffer[4096];
  while (pipe && std::fgets(buffer, sizeof buffer, pipe.get()) != nullptr) out += buffer;
  return out;
}

json::value Decoded(const std::string& body) {
  const std::string counterparts = AGENTGATE_COUNTERPARTS_DIR;
  Output("bash " AGENTGATE_SOURCE_DIR "/tests/counterparts/install.sh " + counterparts +
         " >/dev/null");
  const auto file =
      std::filesystem::temp_directory_path() / ("otlp-" + std::to_string(::getpid()) + ".bin");
  std::ofstream(file, std::ios::binary) << body;
  const std::string printed = Output("node " + counterparts + "/otlp_decode.mjs " + file.string());
  std::filesystem::remove(file);
  return json::parse(printed);
}

TEST(OtlpEncoding, TheOfficialDecoderReadsEverySpanFieldWeWrite) {
  SpanRecord server;
  server.trace_id =
      tracing::ParseTraceparent("00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01")
          ->trace_id;
  server.span_id = {1, 2, 3, 4, 5, 6, 7, 8};
  server.parent = tracing::SpanId{0x00, 0xf0, 0x67, 0xaa, 0x0b, 0xa9, 0x02, 0xb7};
  server.trace_state = "congo=t61rcWkgMzE";
  server.name = "POST /api/agents/{agent_id}/invoke";
  server.kind = tracing::SpanKind::kServer;
  server.start_unix_ns = 1795651200000000000;
  server.end_unix_ns = 1795651200123456789;
  server.attributes = {
      Attribute{"http.request.method", std::string("POST")},
      Attribute{"http.response.status_code", std::int64_t{200}},
      Attribute{"agentgate.cost_usd", 0.25}, Attribute{"agentgate.blocked", false},
      Attribute{"gen_ai.response.finish_reasons", std::vector<std::string>{"stop", "length"}}};
  SpanRecord chat;
  chat.trace_id = server.trace_id;
  chat.span_id = {9, 9, 9, 9, 9, 9, 9, 9};
  chat.parent = server.span_id;
  chat.name = "chat gpt-test";
  chat.kind = tracing::SpanKind::kClient;
  chat.start_unix_ns = server.start_unix_ns + 1000;
  chat.end_unix_ns = server.end_unix_ns - 1000;
  chat.error = true;
  chat.error_message = "HTTP 503";
  const otlp::ExportScope scope{
      {Attribute{"service.name", std::string("agentgate")}}, "agentgate", "0.1.0"};

  const json::value decoded = Decoded(otlp::EncodeTraces(scope, {server, chat}));
  const auto& resource_spans = decoded.at("resourceSpans").as_array().at(0);
  const auto& resource = resource_spans.at("resource").at("attributes").as_array().at(0);
  EXPECT_EQ(resource.at("key"), "service.name");
  EXPECT_EQ(resource.at("value").at("stringValue"), "agentgate");
  const auto& scope_spans = resource_spans.at("scopeSpans").as_array().at(0);
  EXPECT_EQ(scope_spans.at("scope").at("name"), "agentgate");
  EXPECT_EQ(scope_spans.at("scope").at("version"), "0.1.0");
  const auto& spans = scope_spans.at("spans").as_array();
  ASSERT_EQ(spans.size(), 2u);

  const auto& first = spans[0];
  EXPECT_EQ(first.at("traceId"), "4bf92f3577b34da6a3ce929d0e0e4736");
  EXPECT_EQ(first.at("spanId"), "0102030405060708");
  EXPECT_EQ(first.at("parentSpanId"), "00f067aa0ba902b7");
  EXPECT_EQ(first.at("traceState"), "congo=t61rcWkgMzE");
  // `flags` (field 16, OTLP 1.1) is newer than the pinned decoder's protos: it skips it unread.
  EXPECT_EQ(first.at("name"), "POST /api/agents/{agent_id}/invoke");
  EXPECT_EQ(first.at("kind"), "SPAN_KIND_SERVER");
  EXPECT_EQ(first.at("startTimeUnixNano"), "1795651200000000000");
  EXPECT_EQ(first.at("endTimeUnixNano"), "1795651200123456789");
  const auto& attributes = first.at("attributes").as_array();
  ASSERT_EQ(attributes.size(), 5u);
  EXPECT_EQ(attributes[0].at("value").at("stringValue"), "POST");
  EXPECT_EQ(attributes[1].at("value").at("intValue"), "200");
  EXPECT_EQ(attributes[2].at("value").at("doubleValue"), 0.25);
  EXPECT_EQ(attributes[3].at("value").at("boolValue"), false);
  const auto& reasons = attributes[4].at("value").at("arrayValue").at("values").as_array();
  ASSERT_EQ(reasons.size(), 2u);
  EXPECT_EQ(reasons[1].at("stringValue"), "length");
  EXPECT_FALSE(first.as_object().contains("status"));  // unset: nothing on the wire

  const auto& second = spans[1];
  EXPECT_EQ(second.at("parentSpanId"), "0102030405060708");
  EXPECT_EQ(second.at("kind"), "SPAN_KIND_CLIENT");
  EXPECT_EQ(second.at("status").at("code"), "STATUS_CODE_ERROR");
  EXPECT_EQ(second.at("status").at("message"), "HTTP 503");
}

}  // namespace
}  // namespace agentgate::testing
