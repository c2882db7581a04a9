#pragma once
// The Daemon's request body (the source's table plus group_key), validated with 400s naming
// the field.

#include "domain/error.hpp"

#include <boost/json/object.hpp>
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

// How the HTTP invoke's caller wants the turn delivered (docs/runs.md): as a background run, or
// streamed as it happens (and whether a streaming caller that hangs up cancels it).
struct RunOptions {
  bool background = false;
  bool stream = false;
  bool cancel_on_disconnect = false;  // "on_disconnect": "cancel" ("continue" is the default)
};

// With `options`, the body may also carry "background", "stream" and "on_disconnect" (the HTTP
// invoke); without, they are unknown fields like any other (the flow action, MCP).
Result<InvokeRequest> ParseInvokeRequest(const boost::json::value& body,
                                         RunOptions* options = nullptr);

// The request as a JSON object, the fields ParseInvokeRequest reads (a queued run keeps it).
boost::json::object InvokeRequestJson(const InvokeRequest& request);

}  // namespace agentgate
