#pragma once
// The caller's own functions on /v1 (docs/openai.md, "The caller's tools"): `tools` and
// `tool_choice` as chat completions and the Responses API send them. The model is offered them
// beside the agent's tools; a call to one ends the turn for the caller to run it and come back with
// its result. Errors are 400s naming OpenAI's own field.

#include "domain/agent/invoke_request.hpp"

#include <boost/json/object.hpp>

namespace agentgate::openai {

// How a request spells a function tool: chat's {"type": "function", "function": {name, ...}}, or
// the Responses API's flat {"type": "function", "name", ...}.
enum class ToolShape { kChat, kResponses };

inline constexpr std::size_t kMaxCallerTools = 128;

// `tools` and `tool_choice` into request.caller_tools and request.required_tool. With
// `tool_choice: "none"` the tools are read but not offered.
Result<void> ReadCallerTools(const boost::json::object& body, ToolShape shape,
                             InvokeRequest& request);

// The first of `tools` whose name is already one the model is offered (the agent's tools, actions,
// built-ins, MCP tools), as a 400 naming it; `offered` are the agent's tool names.
Result<void> CheckNoCollision(const std::vector<ToolSpec>& caller_tools,
                              const std::vector<ToolSpec>& offered, ToolShape shape);

}  // namespace agentgate::openai
