#pragma once
// The one mapping from ErrorCode to HTTP status and the one renderer of the API's error body:
// {"error": {"status": N, "code": "...", "message": "..."}}.

#include "adapters/http_server/http_types.hpp"
#include "domain/error.hpp"

#include <boost/json/fwd.hpp>

namespace agentgate::http {

int StatusFor(ErrorCode code);

Response ErrorResponse(const Error& error);
Response JsonResponse(int status, const boost::json::value& body);

// Parses a JSON request body; a 400 naming the problem when it is not JSON.
Result<boost::json::value> ParseJsonBody(const Request& request);

}  // namespace agentgate::http
