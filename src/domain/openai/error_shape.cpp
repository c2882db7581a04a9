#include "domain/openai/error_shape.hpp"

#include <array>
#include <utility>

namespace agentgate::openai {

namespace json = boost::json;

namespace {

// The field at fault in OpenAI's names: the invoke's own, where admission named one.
json::value ParamOf(const Error& error, Surface surface) {
  using Names = std::array<std::pair<std::string_view, std::string_view>, 4>;
  static constexpr Names kChatNames{{{"instance_id", "model"},
                                     {"message", "messages"},
                                     {"conversation_id", "metadata.conversation_id"},
                                     {"stateful", "metadata.conversation_id"}}};
  static constexpr Names kResponsesNames{{{"instance_id", "model"},
                                          {"message", "input"},
                                          {"conversation_id", "previous_response_id"},
                                          {"stateful", "store"}}};
  const auto field = error.field();
  if (!field) return nullptr;
  for (const auto& [ours, theirs] : surface == Surface::kResponses ? kResponsesNames : kChatNames) {
    if (*field == ours) return json::string(theirs);
  }
  return json::string(*field);
}

}  // namespace

std::string_view ErrorTypeOf(int status) {
  switch (status) {
    case 401:
      return "authentication_error";
    case 402:
      return "insufficient_quota";
    case 403:
      return "permission_error";
    case 404:
      return "invalid_request_error";  // as OpenAI answers an unknown model or URL
    case 409:
      return "conflict_error";
    case 429:
      return "rate_limit_error";
    case 504:
      return "timeout_error";
    default:
      return status >= 500 ? "server_error" : "invalid_request_error";
  }
}

json::object ErrorObject(const Error& error, Surface surface) {
  json::object body{{"message", error.message},
                    {"type", ErrorTypeOf(HttpStatusOf(error.code))},
                    {"code", ErrorCodeName(error.code)},
                    {"param", ParamOf(error, surface)}};
  for (const auto& [key, detail] : error.details) {
    if (const auto* text = std::get_if<std::string>(&detail)) {
      body[key] = *text;
    } else {
      body[key] = std::get<double>(detail);
    }
  }
  return body;
}

bool NotToBeRetried(int status) {
  return status == 402 || status == 409 || status == 504;
}

}  // namespace agentgate::openai
