#pragma once
// Prompt and reply text in the shapes the OpenTelemetry GenAI conventions give them
// (gen_ai.system_instructions, gen_ai.input.messages, gen_ai.output.messages: JSON text of
// {role, parts: [{type: text|tool_call|tool_call_response, ...}]}), for spans when the operator
// turns content capture on (docs/tracing.md). Text the agent's safety checks would withhold is
// never written: `withheld` says which text that is, and such text is replaced by `placeholder`.
// Pure.

#include "domain/agent/model_types.hpp"

#include <functional>
#include <string>
#include <string_view>

namespace agentgate::tracing {

struct ContentRules {
  std::function<bool(std::string_view)> withheld;  // the agent's safety checks
  std::string placeholder;                         // what stands for withheld text
  // The same checks on a tool call's arguments as they are shown (escapes decoded); when unset,
  // `withheld` is asked of their JSON text.
  std::function<bool(std::string_view)> arguments_withheld = {};
};

std::string SystemInstructionsJson(const std::string& system);
// The messages a model call sends; assistant text and tool-call arguments that `rules` withhold
// are the placeholder.
std::string InputMessagesJson(const std::vector<ChatMessage>& messages, const ContentRules& rules);
// A model's reply: its text (the placeholder if withheld) and tool calls, with the finish reason.
std::string OutputMessagesJson(const ModelReply& reply, const ContentRules& rules);
// One message of text (a turn's prompt or its answer, already withheld where it must be).
std::string TextMessageJson(std::string_view role, const std::string& text);

}  // namespace agentgate::tracing
