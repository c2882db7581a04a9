#pragma once
// The Metadata API's deleteMetadata over SOAP 1.1: the request envelope, and the response (a
// DeleteResult or a SOAP fault) as JSON. Parsed by namespace URI and local name, never by
// prefix, because clients and servers choose prefixes freely.

#include <boost/json/value.hpp>

#include <optional>
#include <string>
#include <string_view>

namespace agentgate::soap {

constexpr std::string_view kEnvelopeNs = "http://schemas.xmlsoap.org/soap/envelope/";
constexpr std::string_view kMetadataNs = "http://soap.sforce.com/2006/04/metadata";

std::string DeleteMetadataEnvelope(std::string_view session_id, std::string_view type,
                                   std::string_view full_name);

struct DeleteOutcome {
  boost::json::value
      platform_response;  // {"fullName","success","errors":[...]} or {"faultcode","faultstring"}
  bool success = false;
  bool invalid_session = false;  // a fault whose code is *:INVALID_SESSION_ID
};

// nullopt when the text is not a SOAP envelope holding a deleteMetadata result or a fault.
std::optional<DeleteOutcome> ParseDeleteMetadataResponse(std::string_view xml);

}  // namespace agentgate::soap
