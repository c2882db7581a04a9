#pragma once
// A conversation's stored messages as the model's history, and back. Besides the user's and the
// assistant's text, a conversation keeps the model's calls of a caller's functions and their
// results (the Responses API's function_call and function_call_output items, docs/openai.md): one
// stored message each, its content a small JSON object, so a later turn, a listing of the
// conversation's items and a continuation all read them back.

#include "domain/agent/model_types.hpp"
#include "domain/error.hpp"

#include <string>
#include <string_view>
#include <vector>

namespace agentgate::stored_messages {

inline constexpr std::string_view kUser = "user";
inline constexpr std::string_view kAssistant = "assistant";
inline constexpr std::string_view kFunctionCall = "function_call";
inline constexpr std::string_view kFunctionCallOutput = "function_call_output";

// {"call_id", "name", "arguments"}
std::string FunctionCallContent(const ToolCall& call);
// {"call_id", "output"}
std::string FunctionCallOutputContent(std::string_view call_id, std::string_view output);

// What a stored function_call or function_call_output says; empty fields when unreadable.
struct StoredCall {
  std::string call_id;
  std::string name;       // function_call
  std::string arguments;  // function_call
  std::string output;     // function_call_output
};
StoredCall ReadStoredCall(std::string_view content);

// Appends stored message (role, content) to `history` as the model reads it: a function call
// joins the assistant message right before it (its step's) or starts one; its output is a tool
// message. False when the message joined the one before rather than adding one.
bool AppendToHistory(std::vector<ChatMessage>& history, std::string_view role, std::string content);

// The calls at the end of `history` still waiting for their results (those a continuation must
// answer).
std::vector<ToolCall> UnansweredCalls(const std::vector<ChatMessage>& history);

}  // namespace agentgate::stored_messages

namespace agentgate::stored_messages {

// A continuation's results against the calls they answer: each result answers a call still
// waiting (in `history`'s last step or the continuation's own), and no call is left without its
// result; a history whose last step waits needs a continuation. 400s name `fields[i]` (where
// result continuation[i] named its call: "input[3].call_id", "messages[4].tool_call_id") or
// `input_field`.
Result<void> CheckContinuation(const std::vector<ChatMessage>& history,
                               const std::vector<ChatMessage>& continuation,
                               const std::vector<std::string>& fields,
                               std::string_view input_field);

}  // namespace agentgate::stored_messages
