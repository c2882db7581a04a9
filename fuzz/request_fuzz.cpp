// Fuzz target for every JSON request body a caller or operator sends: each parser either accepts
// the body or refuses it with a 400 that names the field, and never crashes or throws. Also: the
// JSON writer's text reads back to the same value. libFuzzer entry point; standalone_driver.cpp
// runs it without libFuzzer (GCC builds, CI).
#include "domain/admin/admin_requests.hpp"
#include "domain/agent/flow_request.hpp"
#include "domain/agent/invoke_request.hpp"
#include "domain/json_text.hpp"
#include "domain/schema/json_schema.hpp"

#include <boost/json/parse.hpp>
#include <boost/json/value.hpp>

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <limits>
#include <string>

namespace {

template <class T>
void ExpectAcceptedOrFieldNamed(const agentgate::Result<T>& parsed, const char* parser) {
  if (parsed) return;
  const auto& error = parsed.error();
  if (error.code == agentgate::ErrorCode::kInvalidRequest && error.message.starts_with("field '"))
    return;
  std::fprintf(stderr, "%s refused a body without naming the field: %s\n", parser,
               error.message.c_str());
  std::abort();
}

bool AllFinite(const boost::json::value& v) {
  if (v.is_double()) return std::isfinite(v.get_double());
  if (v.is_array()) {
    for (const auto& item : v.get_array())
      if (!AllFinite(item)) return false;
  }
  if (v.is_object()) {
    for (const auto& kv : v.get_object())
      if (!AllFinite(kv.value())) return false;
  }
  return true;
}

// Equal as JSON: numbers by value (the writer may print 1.0 as 1, which reads back as an
// integer). The writer's text is the shortest that names the double exactly, but Boost.JSON 1.81
// reads some long mantissas or large exponents a unit in the last place off, hence the tolerance.
bool SameJson(const boost::json::value& a, const boost::json::value& b) {
  if (a.is_number() && b.is_number()) {
    if (!a.is_double() && !b.is_double()) return a == b;
    const double x = a.to_number<double>();
    const double y = b.to_number<double>();
    return x == y || std::fabs(x - y) <= 4 * std::numeric_limits<double>::epsilon() * std::fabs(x);
  }
  if (a.kind() != b.kind()) return false;
  if (a.is_array()) {
    const auto &x = a.get_array(), &y = b.get_array();
    if (x.size() != y.size()) return false;
    for (std::size_t i = 0; i < x.size(); ++i)
      if (!SameJson(x[i], y[i])) return false;
    return true;
  }
  if (a.is_object()) {
    const auto &x = a.get_object(), &y = b.get_object();
    if (x.size() != y.size()) return false;
    auto it = y.begin();
    for (const auto& kv : x) {  // the writer keeps the order, duplicates included
      if (kv.key() != it->key() || !SameJson(kv.value(), it->value())) return false;
      ++it;
    }
    return true;
  }
  return a == b;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  boost::system::error_code ec;
  const boost::json::value body =
      boost::json::parse(std::string_view(reinterpret_cast<const char*>(data), size), ec);
  if (ec) return 0;  // the server answers bad JSON before any parser sees it

  using namespace agentgate;
  ExpectAcceptedOrFieldNamed(ParseInvokeRequest(body), "ParseInvokeRequest");
  ExpectAcceptedOrFieldNamed(ParseFlowInvokeRequest(body), "ParseFlowInvokeRequest");
  ExpectAcceptedOrFieldNamed(ParseCreateOrg(body), "ParseCreateOrg");
  ExpectAcceptedOrFieldNamed(ParseSetOrgLimit(body), "ParseSetOrgLimit");
  ExpectAcceptedOrFieldNamed(ParseCreateEnvironment(body), "ParseCreateEnvironment");
  ExpectAcceptedOrFieldNamed(ParseCreateToken(body), "ParseCreateToken");
  ExpectAcceptedOrFieldNamed(ParseCreateAgent(body), "ParseCreateAgent");
  ExpectAcceptedOrFieldNamed(ParseAddVersion(body), "ParseAddVersion");
  ExpectAcceptedOrFieldNamed(ParseSetDeployment(body), "ParseSetDeployment");
  ExpectAcceptedOrFieldNamed(ParseCreateInstance(body), "ParseCreateInstance");
  ExpectAcceptedOrFieldNamed(ParsePutGrant(body), "ParsePutGrant");
  ExpectAcceptedOrFieldNamed(ParseCrmCredentials(body), "ParseCrmCredentials");
  ExpectAcceptedOrFieldNamed(ParseResponseFormat(body), "ParseResponseFormat");
  // An accepted answer schema validates any value, its example included, without failing.
  if (const auto checked = schema::ReadAnswerSchema(body, "schema")) {
    schema::Validate(*checked, body);
    schema::Validate(*checked, schema::ExampleOf(*checked));
    schema::StrictForm(*checked);
  }
  if (body.is_object() && body.as_object().contains("config"))
    ExpectAcceptedOrFieldNamed(ParseAgentConfig(body.at("config")), "ParseAgentConfig");

  if (AllFinite(body)) {
    const std::string text = json_text::Write(body);
    if (!SameJson(boost::json::parse(text), body)) {
      std::fprintf(stderr, "json_text changed a value: %s\n", text.c_str());
      std::abort();
    }
  }
  return 0;
}
