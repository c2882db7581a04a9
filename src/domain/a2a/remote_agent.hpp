#pragma once
// A remote A2A agent an agent calls as a tool (docs/a2a.md, "Remote agents as tools"): its card
// read, the one tool it is to the model, the message a call sends, and what the remote task's
// answer says to the model. Pure.

#include "domain/agent/model_types.hpp"
#include "domain/error.hpp"

#include <boost/json/object.hpp>
#include <boost/json/value.hpp>

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

namespace agentgate::a2a {

struct RemoteCard {
  std::string name;
  std::string description;
  std::string skills;   // "- name: description" lines, for the tool's description
  std::string rpc_url;  // its JSON-RPC 1.0 interface, on the card URL's origin
  bool streaming = false;
};

// A URL's origin, "scheme://host[:port]" with the scheme and host lower-cased and a default port
// left out; "" for what is not an absolute http(s) URL.
std::string OriginOf(std::string_view url);

// The card as a tool reads it. Refused, saying why, when it is not a card or names no JSON-RPC 1.0
// interface on `card_url`'s origin (an interface elsewhere is never called: the operator named
// this host, not the ones a card names).
Result<RemoteCard> ReadRemoteCard(const boost::json::value& card, std::string_view card_url);

// The model's tool: `name`, described by the card and its skills, taking one `message`.
ToolSpec RemoteAgentTool(std::string_view name, const RemoteCard& card);

// The `message` a model's call asks the remote agent, or why its arguments are not one.
Result<std::string> RemoteMessageText(const std::string& arguments_json);

// SendMessage's params: a text message that waits for the task's end or pause, continuing a
// task that waits for input when `task_id` is set.
boost::json::object RemoteSendParams(std::string_view message_id, std::string_view text,
                                     std::string_view task_id, std::string_view context_id);

// The remote task waits for input: what it asks, and the task to answer.
struct RemoteQuestion {
  std::string task_id;
  std::string context_id;
  std::string question;
};
struct RemoteAnswer {
  std::string text;  // what the model reads ("error: ..." when the task did not complete)
  std::optional<RemoteQuestion> question = std::nullopt;
};

// A SendMessage result ({"task"} or {"message"}) as the model reads it, at most `max_chars`: a
// completed task's artifacts (text, and data as JSON), a message's parts; an INPUT_REQUIRED task
// as its question; any other state as an error naming it and its status message.
RemoteAnswer ReadRemoteResult(const boost::json::value& result, std::size_t max_chars);

// A task state as the model and a run's followers read it: "TASK_STATE_INPUT_REQUIRED" (or 0.3's
// "input-required") is "input-required".
std::string StateWord(std::string_view state);

// The ToolAsk a remote question is (its input_key kRemoteAskKey, its state the task's ids, its
// answer free text) and back.
inline constexpr std::string_view kRemoteAskKey = "a2a";
std::string RemoteAskState(const RemoteQuestion& question);
std::optional<RemoteQuestion> ReadRemoteAskState(std::string_view state);

}  // namespace agentgate::a2a
