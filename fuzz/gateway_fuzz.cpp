// Fuzz target for the metadata gateway's parsers: the SOAP response parser must never crash, and
// the path normaliser must never accept a path that leaves /services/. libFuzzer entry point;
// standalone_driver.cpp runs it without libFuzzer (GCC builds, CI).
#include "domain/gateway/gateway_request.hpp"
#include "domain/gateway/soap.hpp"

#include <boost/json/object.hpp>

#include <cstdint>
#include <cstdlib>
#include <string>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string input(reinterpret_cast<const char*>(data), size);
  (void)agentgate::soap::ParseDeleteMetadataResponse(input);

  for (const char* method : {"GET", "DELETE"}) {
    const boost::json::object body{{"method", method}, {"path", input}};
    const auto call = agentgate::NormalizeGatewayRequest(body);
    if (!call) continue;
    if (!call->path.starts_with("/services/")) std::abort();
    if (agentgate::UnsafePathReason(call->path)) std::abort();
    if (call->kind == agentgate::GatewayCall::Kind::kDeleteMetadata &&
        call->full_name.find('/') != std::string::npos) {
      std::abort();
    }
  }
  return 0;
}
