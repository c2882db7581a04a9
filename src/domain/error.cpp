#include "domain/error.hpp"

#include <stdexcept>

namespace agentgate {

std::string_view ErrorCodeName(ErrorCode code) {
  switch (code) {
    case ErrorCode::kInvalidRequest:
      return "invalid_request";
    case ErrorCode::kMissingHeader:
      return "missing_header";
    case ErrorCode::kUnauthenticated:
      return "unauthenticated";
    case ErrorCode::kForbidden:
      return "forbidden";
    case ErrorCode::kNotFound:
      return "not_found";
    case ErrorCode::kAgentNotFound:
      return "agent_not_found";
    case ErrorCode::kConversationNotFound:
      return "conversation_not_found";
    case ErrorCode::kInstanceNotFound:
      return "instance_not_found";
    case ErrorCode::kConflict:
      return "conflict";
    case ErrorCode::kMethodNotAllowed:
      return "method_not_allowed";
    case ErrorCode::kSpendLimitReached:
      return "spend_limit_reached";
    case ErrorCode::kIdempotencyKeyInUse:
      return "idempotency_key_in_use";
    case ErrorCode::kIdempotencyKeyReused:
      return "idempotency_key_reused";
    case ErrorCode::kPayloadTooLarge:
      return "payload_too_large";
    case ErrorCode::kHeadersTooLarge:
      return "headers_too_large";
    case ErrorCode::kRateLimited:
      return "rate_limited";
    case ErrorCode::kTurnTimeout:
      return "turn_timeout";
    case ErrorCode::kCanceled:
      return "canceled";
    case ErrorCode::kNotImplemented:
      return "not_implemented";
    case ErrorCode::kCrmNotConfigured:
      return "FL05";
    case ErrorCode::kCrmAuthFailed:
      return "FL06";
    case ErrorCode::kUpstreamUnavailable:
      return "UPSTREAM_UNAVAILABLE";
    case ErrorCode::kUnavailable:
      return "unavailable";
    case ErrorCode::kInternal:
      return "internal_error";
  }
  return "internal_error";
}

void throw_exception_from_error(const Error& error, const boost::source_location&) {
  throw std::logic_error("unchecked Result error: " + std::string(ErrorCodeName(error.code)) +
                         ": " + error.message);
}

}  // namespace agentgate
