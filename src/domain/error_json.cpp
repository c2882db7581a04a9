#include "domain/error_json.hpp"

#include <variant>

namespace agentgate {

boost::json::object ErrorJson(const Error& error) {
  boost::json::object out{{"status", HttpStatusOf(error.code)},
                          {"code", ErrorCodeName(error.code)},
                          {"message", error.message}};
  for (const auto& [key, value] : error.details)
    std::visit([&out, &k = key](const auto& v) { out[k] = v; }, value);
  return out;
}

}  // namespace agentgate
