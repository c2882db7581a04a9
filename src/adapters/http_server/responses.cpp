#include "adapters/http_server/responses.hpp"

#include "domain/json_duplicates.hpp"
#include "domain/json_text.hpp"

#include <boost/json/parse.hpp>
#include <boost/json/value.hpp>

namespace agentgate::http {

int StatusFor(ErrorCode code) {
  switch (code) {
    case ErrorCode::kInvalidRequest:
    case ErrorCode::kMissingHeader:
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
      return 404;
    case ErrorCode::kMethodNotAllowed:
      return 405;
    case ErrorCode::kConflict:
    case ErrorCode::kIdempotencyKeyInUse:
      return 409;
    case ErrorCode::kPayloadTooLarge:
      return 413;
    case ErrorCode::kHeadersTooLarge:
      return 431;
    case ErrorCode::kIdempotencyKeyReused:
      return 422;
    case ErrorCode::kRateLimited:
      return 429;
    case ErrorCode::kInternal:
      return 500;
    case ErrorCode::kNotImplemented:
      return 501;
    case ErrorCode::kCrmNotConfigured:
      return 400;
    case ErrorCode::kCrmAuthFailed:
    case ErrorCode::kUpstreamUnavailable:
      return 502;
    case ErrorCode::kUnavailable:
      return 503;
    case ErrorCode::kTurnTimeout:
      return 504;
    case ErrorCode::kCanceled:
      return 499;  // nginx's "client closed request": no client reads it
  }
  return 500;
}

Response ErrorResponse(const Error& error) {
  const int status = StatusFor(error.code);
  boost::json::object inner{
      {"status", status}, {"code", ErrorCodeName(error.code)}, {"message", error.message}};
  for (const auto& [key, value] : error.details) {
    std::visit([&inner, &k = key](const auto& v) { inner[k] = v; }, value);
  }
  Response response = JsonResponse(status, boost::json::object{{"error", std::move(inner)}});
  if (error.retry_after_seconds) {
    response.headers.emplace_back("Retry-After", std::to_string(*error.retry_after_seconds));
  }
  return response;
}

Response JsonResponse(int status, const boost::json::value& body) {
  Response r;
  r.status = status;
  r.body = json_text::Write(body);
  return r;
}

Result<boost::json::value> ParseJsonBody(const Request& request) {
  if (request.body.empty())
    return InvalidField("body", "must be a JSON object (the body is empty)");
  boost::system::error_code ec;
  auto value = boost::json::parse(request.body, ec);
  if (ec) return InvalidField("body", "is not valid JSON: " + ec.message());
  if (auto duplicate = FirstDuplicateKey(request.body))
    return InvalidField(*duplicate, "appears twice; send each field once");
  return value;
}

}  // namespace agentgate::http
