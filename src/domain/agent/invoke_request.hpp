#pragma once
// The Daemon's request body (the source's table plus group_key), validated with 400s naming
// the field.

#include "domain/error.hpp"

#include <boost/json/value.hpp>

#include <optional>
#include <string>

namespace agentgate {

struct InvokeRequest {
  std::string message;
  bool stateful = false;
  std::optional<std::string> conversation_id;
  std::optional<boost::json::value> host_context;  // an object
  std::optional<std::string> additional_instructions;
  std::optional<std::string> instance_id;
  std::optional<std::string> group_key;
};

Result<InvokeRequest> ParseInvokeRequest(const boost::json::value& body);

}  // namespace agentgate
