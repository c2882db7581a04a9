#pragma once
// POST /v1/responses (docs/openai.md, "Responses"): OpenAI's Responses request read as one turn
// of an agent. `input` is the turn's message (a string, or messages whose last is the user's);
// system and developer messages, and `instructions`, add to its instructions as
// `additional_instructions` does. A response is stored (`store`, true by default): it starts a
// conversation, or continues the one `previous_response_id` names; with `"store": false` the
// turn is stateless and the earlier messages of `input` are its history, as a chat completion's.
// `stream` streams its events; `background` runs it as a background run. Fields these clients
// commonly send and agentgate does not use are ignored; the few it cannot honour are refused, as
// 400s naming OpenAI's field.

#include "domain/agent/invoke_request.hpp"

#include <optional>
#include <string>
#include <string_view>

namespace agentgate {

// An input item that names one of our stored messages: an `item_reference`, or a message item
// resent with the `id` a response gave it (msg_...). The conversation whose latest message it is
// is continued, as by previous_response_id (docs/openai.md, "Histories the client keeps").
struct InputReference {
  std::string message_id;  // "msg_<hex>": the reply of response "resp_<hex>"
  std::string field;       // where it was named: "input[2].id"
};

// An input item naming a stored message whose text the turn takes as history (a conversation's
// item, msg_<hex>_<seq>; or, with "store": false, a response's reply): the store's text goes to
// request.history[history_index], which holds its place until then.
struct ItemToResolve {
  std::string item_id;
  std::string field;  // where it was named: "input[1].id"
  std::size_t history_index = 0;
};

struct ResponseRequest {
  std::string model;     // as sent: the response names it
  std::string agent_id;  // model, up to a ':'
  InvokeRequest request;
  std::optional<std::string> previous_response_id;  // its conversation is continued
  std::optional<InputReference> continues;          // the last stored message input names
  std::vector<ItemToResolve> resolve;               // references read into the history
  std::optional<std::string> conversation;  // "conversation": the turn adds to it (conv_...)
  // Echoed by the Response as asked (docs/openai.md): `store`, `text.format`, `metadata`.
  bool store = true;
  boost::json::object text_format{{"type", "text"}};
  boost::json::object metadata;
  std::optional<std::string> instructions;  // as sent: the response echoes it
  bool stream = false;
  bool background = false;
};

Result<ResponseRequest> ParseResponseRequest(const boost::json::value& body);

}  // namespace agentgate
