#include "adapters/http_server/responses.hpp"

#include "domain/error_json.hpp"
#include "domain/json_duplicates.hpp"
#include "domain/json_text.hpp"

#include <boost/json/parse.hpp>
#include <boost/json/value.hpp>

namespace agentgate::http {

Response ErrorResponse(const Error& error) {
  const int status = HttpStatusOf(error.code);
  Response response = JsonResponse(status, boost::json::object{{"error", ErrorJson(error)}});
  if (error.retry_after_seconds) {
    response.headers.emplace_back("Retry-After", std::to_string(*error.retry_after_seconds));
  }
  return response;
}

Response JsonResponse(int status, const boost::json::value& body) {
  return JsonTextResponse(status, json_text::Write(body));
}

Response JsonTextResponse(int status, std::string body) {
  Response r;
  r.status = status;
  r.body = std::move(body);
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
