#pragma once
// A2A 1.0 on the wire (docs/a2a.md): the protocol's errors in both bindings' shapes (JSON-RPC 2.0
// error objects, HTTP+JSON google.rpc.Status), the version a request asks for, and how the
// contract's errors read as the protocol's. Pure.

#include "domain/error.hpp"

#include <boost/json/object.hpp>
#include <boost/json/value.hpp>

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace agentgate::a2a {

inline constexpr std::string_view kProtocolVersion = "1.0";

// The errors of the specification's §3.3.2 and JSON-RPC's own.
enum class Fault {
  kParseError,
  kInvalidRequest,
  kMethodNotFound,
  kInvalidParams,
  kInternal,
  kTaskNotFound,
  kTaskNotCancelable,
  kPushNotificationNotSupported,
  kUnsupportedOperation,
  kContentTypeNotSupported,
  kVersionNotSupported,
  kExtendedAgentCardNotConfigured,
  // Not the protocol's own (it leaves these to the binding): HTTP 401 and 403, JSON-RPC -32000.
  kUnauthenticated,
  kPermissionDenied,
};

struct ProtocolError {
  Fault fault = Fault::kInternal;
  std::string message;
  std::string field = {};  // the request field at fault, named in a BadRequest detail
};

std::int64_t JsonRpcCode(Fault fault);
int HttpStatusOf(Fault fault);

// {"jsonrpc", "id", "error": {code, message, data: [ErrorInfo | BadRequest]}}
boost::json::object JsonRpcErrorBody(const boost::json::value& id, const ProtocolError& error);
// {"error": {code, status, message, details}}, the HTTP+JSON binding's body (its status is
// HttpStatusOf).
boost::json::object RestErrorBody(const ProtocolError& error);
// {"jsonrpc", "id", "result"}
boost::json::object JsonRpcResultBody(const boost::json::value& id, boost::json::value result);

// The contract's error as the protocol's: a 400 naming a field is invalid params naming it; an
// unknown run is TaskNotFound; an ended one cannot be canceled; the rest is an internal error
// carrying the contract's code and message (a caller reads why).
ProtocolError FromError(const Error& error);

// The A2A-Version a request asked for (the header, else the `A2A-Version` query parameter): "1.0"
// (a patch part is ignored) is served; none means 0.3, which is not served by this release.
std::optional<ProtocolError> CheckVersion(std::optional<std::string_view> asked);

}  // namespace agentgate::a2a
