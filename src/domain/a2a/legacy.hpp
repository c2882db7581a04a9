#pragma once
// A2A 0.3 for the clients still on it (docs/a2a.md, "0.3"): its JSON-RPC method names and shapes,
// read into 1.0's and written from them, so one mapping serves both. Pure.
//
// 0.3 writes parts with a `kind` ({"kind": "text", "text"}), roles and states in lower case
// ("user", "input-required"), tasks and events with a `kind` ("task", "status-update",
// "artifact-update"), and a status update's `final`.

#include "domain/a2a/protocol.hpp"

#include <boost/json/value.hpp>

#include <optional>
#include <string>
#include <string_view>
#include <variant>

namespace agentgate::a2a::legacy {

inline constexpr std::string_view kVersion = "0.3";

// The 1.0 method a 0.3 method is (message/send is SendMessage, tasks/resubscribe is
// SubscribeToTask, ...); none for a name 0.3 does not have.
std::optional<std::string> V1Method(std::string_view method);

// A 0.3 request's params as 1.0's for the same method: a message's parts, role and blocking
// read into 1.0's (a file part becomes a `url` or `raw` part, which is then refused as 1.0
// refuses it). Invalid params naming the field for what 0.3 does not allow either.
std::variant<boost::json::value, ProtocolError> V1Params(std::string_view v1_method,
                                                         const boost::json::value& params);

// A 1.0 result as 0.3 writes it: a SendMessageResponse ({"task"}) is the task itself, a
// StreamResponse the event with its `kind`, a Task a task; anything else as it is.
boost::json::value LegacyResult(const boost::json::value& v1_result);

// A push config operation's 1.0 result as 0.3 writes it: a config as {taskId,
// pushNotificationConfig: {id, url, authentication: {schemes}}}, a list as an array of them, a
// delete as null.
boost::json::value LegacyPushConfigResult(std::string_view v1_method,
                                          const boost::json::value& v1_result);

}  // namespace agentgate::a2a::legacy
