#pragma once
// The invoke's 200 body (SPEC §5): response, conversation_id, terminated_reason, blocked, usage.
// The HTTP invoke answers it, MCP carries it as structured content, and a run stores it as its
// result and sends it as its run.completed event.

#include "app/invoke_agent.hpp"

#include <boost/json/object.hpp>

#include <string>

namespace agentgate {

// `sp`: where its values are made (a caller that only writes it out passes a buffer's).
boost::json::object InvokeBody(const InvokeResult& result, boost::json::storage_ptr sp = {});
// The body as JSON text, its values made in a buffer on the stack (each plain turn writes one).
std::string InvokeBodyText(const InvokeResult& result);

}  // namespace agentgate
