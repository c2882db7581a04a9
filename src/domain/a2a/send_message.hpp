#pragma once
// A2A's SendMessageRequest (docs/a2a.md), read and checked: the message the agent is sent, and
// how the caller wants its task delivered. Pure.

#include "domain/a2a/protocol.hpp"
#include "domain/a2a/push_config.hpp"

#include <boost/json/array.hpp>
#include <boost/json/value.hpp>

#include <optional>
#include <string>
#include <variant>

namespace agentgate::a2a {

struct SentMessage {
  std::string message_id;  // the caller's: with the agent, it makes the call's Idempotency-Key
  // What the model reads: the text parts, and each data part as JSON text, one after another.
  std::string text;
  boost::json::array parts;  // as sent: a task's answer is read from them (task_answer)
  std::optional<std::string> context_id;  // a stored conversation to continue
  std::optional<std::string> task_id;     // a task this message answers
  bool return_immediately = false;
  std::optional<int> history_length;
  std::optional<PushConfigAsked> push;  // configuration.taskPushNotificationConfig
};

// InvalidParams naming the field for a malformed request (a push config's URL is checked as a
// webhook's, `allow_private_push`); ContentTypeNotSupported for a `raw` or `url` part (files are
// not taken).
std::variant<SentMessage, ProtocolError> ReadSendMessage(const boost::json::value& params,
                                                         bool allow_private_push = false);

// The Idempotency-Key a message is sent under: one task and one bill per message, whatever the
// retries ("a2a:{agent}:{messageId}").
std::string MessageKey(std::string_view agent_id, std::string_view message_id);

}  // namespace agentgate::a2a
