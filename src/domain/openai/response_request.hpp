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

struct ResponseRequest {
  std::string model;     // as sent: the response names it
  std::string agent_id;  // model, up to a ':'
  InvokeRequest request;
  std::optional<std::string> previous_response_id;  // its conversation is continued
  std::optional<std::string> instructions;          // as sent: the response echoes it
  bool stream = false;
  bool background = false;
};

Result<ResponseRequest> ParseResponseRequest(const boost::json::value& body);

}  // namespace agentgate
