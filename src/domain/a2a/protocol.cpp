#include "domain/a2a/protocol.hpp"

#include <boost/json/array.hpp>

namespace agentgate::a2a {

namespace json = boost::json;

namespace {

struct FaultInfo {
  std::int64_t rpc_code;
  int http_status;
  std::string_view rpc_status;  // google.rpc.Code's name, for the REST body
  std::string_view reason;      // ErrorInfo.reason: the A2A error's name, or JSON-RPC's
};

FaultInfo InfoOf(Fault fault) {
  switch (fault) {
    case Fault::kParseError:
      return {-32700, 400, "INVALID_ARGUMENT", "PARSE_ERROR"};
    case Fault::kInvalidRequest:
      return {-32600, 400, "INVALID_ARGUMENT", "INVALID_REQUEST"};
    case Fault::kMethodNotFound:
      return {-32601, 404, "NOT_FOUND", "METHOD_NOT_FOUND"};
    case Fault::kInvalidParams:
      return {-32602, 400, "INVALID_ARGUMENT", "INVALID_PARAMS"};
    case Fault::kInternal:
      return {-32603, 500, "INTERNAL", "INTERNAL"};
    case Fault::kTaskNotFound:
      return {-32001, 404, "NOT_FOUND", "TASK_NOT_FOUND"};
    case Fault::kTaskNotCancelable:
      return {-32002, 400, "FAILED_PRECONDITION", "TASK_NOT_CANCELABLE"};
    case Fault::kPushNotificationNotSupported:
      return {-32003, 400, "FAILED_PRECONDITION", "PUSH_NOTIFICATION_NOT_SUPPORTED"};
    case Fault::kUnsupportedOperation:
      return {-32004, 400, "FAILED_PRECONDITION", "UNSUPPORTED_OPERATION"};
    case Fault::kContentTypeNotSupported:
      return {-32005, 400, "INVALID_ARGUMENT", "CONTENT_TYPE_NOT_SUPPORTED"};
    case Fault::kVersionNotSupported:
      return {-32009, 400, "FAILED_PRECONDITION", "VERSION_NOT_SUPPORTED"};
    case Fault::kExtendedAgentCardNotConfigured:
      return {-32007, 400, "FAILED_PRECONDITION", "EXTENDED_AGENT_CARD_NOT_CONFIGURED"};
    case Fault::kUnauthenticated:
      return {-32000, 401, "UNAUTHENTICATED", "UNAUTHENTICATED"};
    case Fault::kPermissionDenied:
      return {-32000, 403, "PERMISSION_DENIED", "PERMISSION_DENIED"};
  }
  return {-32603, 500, "INTERNAL", "INTERNAL"};
}

json::array Details(const ProtocolError& error) {
  json::array details;
  json::object info{{"@type", "type.googleapis.com/google.rpc.ErrorInfo"},
                    {"reason", InfoOf(error.fault).reason},
                    {"domain", "a2a-protocol.org"}};
  details.push_back(std::move(info));
  if (!error.field.empty()) {
    json::array violations;
    violations.push_back(json::object{{"field", error.field}, {"description", error.message}});
    details.push_back(json::object{{"@type", "type.googleapis.com/google.rpc.BadRequest"},
                                   {"fieldViolations", std::move(violations)}});
  }
  return details;
}

}  // namespace

std::int64_t JsonRpcCode(Fault fault) {
  return InfoOf(fault).rpc_code;
}

int HttpStatusOf(Fault fault) {
  return InfoOf(fault).http_status;
}

json::object JsonRpcErrorBody(const json::value& id, const ProtocolError& error) {
  json::object body{{"jsonrpc", "2.0"}, {"id", id}};
  body["error"] = json::object{
      {"code", JsonRpcCode(error.fault)}, {"message", error.message}, {"data", Details(error)}};
  return body;
}

json::object RestErrorBody(const ProtocolError& error) {
  const FaultInfo info = InfoOf(error.fault);
  json::object status{{"code", info.http_status},
                      {"status", info.rpc_status},
                      {"message", error.message},
                      {"details", Details(error)}};
  return json::object{{"error", std::move(status)}};
}

json::object JsonRpcResultBody(const json::value& id, json::value result) {
  return json::object{{"jsonrpc", "2.0"}, {"id", id}, {"result", std::move(result)}};
}

ProtocolError FromError(const Error& error) {
  switch (error.code) {
    case ErrorCode::kInvalidRequest:
    case ErrorCode::kConversationNotFound:
      return {Fault::kInvalidParams, error.message, std::string(error.field().value_or(""))};
    case ErrorCode::kRunNotFound:
    case ErrorCode::kNotFound:
      return {Fault::kTaskNotFound, error.message};
    case ErrorCode::kInstanceNotFound:  // the interface's own instance (agent_id:instance_id)
      return {Fault::kInvalidRequest, error.message};
    case ErrorCode::kRunEnded:
      return {Fault::kTaskNotCancelable, error.message};
    case ErrorCode::kRunNotPaused:
    case ErrorCode::kApprovalExpired:
      return {Fault::kUnsupportedOperation, error.message};
    case ErrorCode::kForbidden:
      return {Fault::kPermissionDenied, error.message};
    case ErrorCode::kUnauthenticated:
      return {Fault::kUnauthenticated, error.message};
    case ErrorCode::kIdempotencyKeyReused:
      return {Fault::kInvalidParams,
              "field 'message.messageId': was sent before with another message",
              "message.messageId"};
    case ErrorCode::kIdempotencyKeyInUse:
      return {Fault::kInvalidRequest,
              "field 'message.messageId': the message is being answered; read its task when it "
              "is"};
    case ErrorCode::kConversationBusy:
      return {Fault::kUnsupportedOperation,
              "the context has a task running: returnImmediately cannot wait for it; send "
              "without it, which waits its turn"};
    default:
      break;
  }
  return {Fault::kInternal, std::string(ErrorCodeName(error.code)) + ": " + error.message};
}

std::optional<ProtocolError> CheckVersion(std::optional<std::string_view> asked) {
  if (!asked || asked->empty()) {
    return ProtocolError{Fault::kVersionNotSupported,
                         "no A2A-Version was sent, which means 0.3; this agent serves A2A 1.0: "
                         "send 'A2A-Version: 1.0'"};
  }
  const std::string_view version = *asked;
  // Major.Minor; a patch part is not part of the negotiation.
  if (version == kProtocolVersion || version.starts_with("1.0.")) return std::nullopt;
  return ProtocolError{Fault::kVersionNotSupported,
                       "A2A-Version '" + std::string(version.substr(0, 32)) +
                           "' is not supported; this agent serves A2A 1.0"};
}

}  // namespace agentgate::a2a
