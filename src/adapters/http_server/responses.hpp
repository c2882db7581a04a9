#pragma once
// The one renderer of the API's error body, {"error": {"status": N, "code": "...", "message":
// "..."}} (the status from domain HttpStatusOf), and JSON bodies in and out.

#include "adapters/http_server/http_types.hpp"
#include "domain/error.hpp"

#include <boost/json/fwd.hpp>

namespace agentgate::http {

Response ErrorResponse(const Error& error);
Response JsonResponse(int status, const boost::json::value& body);
// A body already written as JSON text (the invoke's, written once by app/invoke_body).
Response JsonTextResponse(int status, std::string body);

// Parses a JSON request body; a 400 naming the problem when it is not JSON.
Result<boost::json::value> ParseJsonBody(const Request& request);

}  // namespace agentgate::http
