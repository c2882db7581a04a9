#pragma once
// A task's push notification configs (docs/a2a.md, "Push notifications"), read from a request
// and shown back. Pure. A config's credentials (its token, its authentication's credentials) are
// taken and never shown again.

#include "domain/a2a/protocol.hpp"

#include <boost/json/object.hpp>
#include <boost/json/value.hpp>

#include <string>
#include <string_view>
#include <variant>

namespace agentgate::a2a {

inline constexpr int kMaxPushConfigsPerTask = 10;

struct PushConfigAsked {
  std::string task_id;  // "" in SendMessage's configuration: the task it starts
  std::string id;       // "" for the task's own id (one default config per task)
  std::string url;
  std::string token;        // sent back as X-A2A-Notification-Token
  std::string scheme;       // authentication.scheme: the Authorization header's scheme
  std::string credentials;  // authentication.credentials: its value
};

// A TaskPushNotificationConfig ({taskId, id, url, token, authentication: {scheme, credentials}};
// 0.3's `schemes` list is read as its first scheme). `field` names it in errors ("" at the top
// of params); the URL is checked as a webhook's is (webhooks::CheckUrl, `allow_private`); the
// task's id is required when `needs_task` (CreateTaskPushNotificationConfig).
std::variant<PushConfigAsked, ProtocolError> ReadPushConfig(const boost::json::value& config,
                                                            std::string_view field,
                                                            bool allow_private, bool needs_task);

// GetTaskPushNotificationConfig's and DeleteTaskPushNotificationConfig's {taskId, id}, and
// ListTaskPushNotificationConfigs' {taskId} (its id then "").
struct PushConfigNamed {
  std::string task_id;
  std::string id;
};
std::variant<PushConfigNamed, ProtocolError> ReadPushConfigName(const boost::json::value& params,
                                                                bool needs_id);

// A config as Create, Get and List show it: {taskId, id, url, authentication: {scheme}} (no
// token, no credentials).
boost::json::object PushConfigJson(std::string_view task_id, std::string_view id,
                                   std::string_view url, std::string_view scheme);

}  // namespace agentgate::a2a
