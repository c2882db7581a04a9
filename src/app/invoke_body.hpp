#pragma once
// The invoke's 200 body (SPEC §5): response, conversation_id, terminated_reason, blocked, usage.
// The HTTP invoke answers it, MCP carries it as structured content, and a run stores it as its
// result and sends it as its run.completed event.

#include "app/invoke_agent.hpp"

#include <boost/json/object.hpp>

#include <string>

namespace agentgate {

// The body as JSON text.
std::string InvokeBodyText(const InvokeResult& result);
// The same body as a JSON object (MCP's structured content): the text, read back.
boost::json::object InvokeBody(const InvokeResult& result);

}  // namespace agentgate
