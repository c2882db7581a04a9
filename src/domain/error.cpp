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
    case ErrorCode::kRunNotFound:
      return "run_not_found";
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
    case ErrorCode::kConversationBusy:
      return "conversation_busy";
    case ErrorCode::kSuperseded:
      return "superseded";
    case ErrorCode::kResponseNotLatest:
      return "previous_response_not_latest";
    case ErrorCode::kRunEnded:
      return "run_ended";
    case ErrorCode::kRunNotPaused:
      return "run_not_paused";
    case ErrorCode::kApprovalExpired:
      return "approval_expired";
    case ErrorCode::kQueueFull:
      return "queue_full";
    case ErrorCode::kTooManyStreams:
      return "too_many_streams";
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
    case ErrorCode::kInterrupted:
      return "interrupted";
    case ErrorCode::kInternal:
      return "internal_error";
  }
  return "internal_error";
}

int HttpStatusOf(ErrorCode code) {
  switch (code) {
    case ErrorCode::kInvalidRequest:
    case ErrorCode::kMissingHeader:
    case ErrorCode::kCrmNotConfigured:
      return 400;
    case ErrorCode::kUnauthenticated:
      return 401;
    case ErrorCode::kSpendLimitReached:
      return 402;
    case ErrorCode::kForbidden:
      return 403;
    case ErrorCode::kNotFound:
    case ErrorCode::kAgentNotFound:
    case ErrorCode::kConversationNotFound:
    case ErrorCode::kInstanceNotFound:
    case ErrorCode::kRunNotFound:
      return 404;
    case ErrorCode::kMethodNotAllowed:
      return 405;
    case ErrorCode::kConflict:
    case ErrorCode::kIdempotencyKeyInUse:
    case ErrorCode::kConversationBusy:
    case ErrorCode::kSuperseded:
    case ErrorCode::kResponseNotLatest:
    case ErrorCode::kRunEnded:
    case ErrorCode::kRunNotPaused:
      return 409;
    case ErrorCode::kApprovalExpired:
      return 410;
    case ErrorCode::kPayloadTooLarge:
      return 413;
    case ErrorCode::kIdempotencyKeyReused:
      return 422;
    case ErrorCode::kRateLimited:
    case ErrorCode::kQueueFull:
    case ErrorCode::kTooManyStreams:
      return 429;
    case ErrorCode::kHeadersTooLarge:
      return 431;
    case ErrorCode::kCanceled:
      return 499;  // nginx's "client closed request"
    case ErrorCode::kInternal:
      return 500;
    case ErrorCode::kNotImplemented:
      return 501;
    case ErrorCode::kCrmAuthFailed:
    case ErrorCode::kUpstreamUnavailable:
      return 502;
    case ErrorCode::kUnavailable:
    case ErrorCode::kInterrupted:
      return 503;
    case ErrorCode::kTurnTimeout:
      return 504;
  }
  return 500;
}

void throw_exception_from_error(const Error& error, const boost::source_location&) {
  throw std::logic_error("unchecked Result error: " + std::string(ErrorCodeName(error.code)) +
                         ": " + error.message);
}

std::optional<std::string_view> Error::field() const {
  constexpr std::string_view kPrefix = "field '";
  const std::string_view text = message;
  if (text.substr(0, kPrefix.size()) != kPrefix) return std::nullopt;
  const auto end = text.find("': ", kPrefix.size());
  if (end == std::string_view::npos || end == kPrefix.size()) return std::nullopt;
  return text.substr(kPrefix.size(), end - kPrefix.size());
}

}  // namespace agentgate
