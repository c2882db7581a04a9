#pragma once
// What the model sees (SPEC §5), in order: the version's instructions, the instance's
// instructions, this call's additional instructions, the host context as JSON data, relevant
// long-term memories, the conversation's history as real turns (cut oldest-first to fit the
// model's context budget), then the message.

#include "domain/admin/agent_config.hpp"
#include "domain/agent/model_types.hpp"

#include <optional>
#include <set>
#include <string>
#include <vector>

namespace agentgate {

struct PromptInputs {
  std::string instance_instructions;
  std::optional<std::string> additional_instructions;
  std::optional<boost::json::value> host_context;
  std::vector<std::string> memories;
  std::string history_summary;       // the gist of turns older than `history` (summarize)
  std::vector<ChatMessage> history;  // user/assistant turns, oldest first
  std::string message;
  std::vector<ToolSpec> extra_tools;   // offered after the config's own (the MCP servers' tools)
  std::vector<ToolSpec> caller_tools;  // offered last: the /v1 caller's own functions
  std::optional<std::string> required_tool;  // the first call must call one (tool_choice)
  std::vector<ChatMessage> continuation;     // after the message: the caller's tool results
  // The call's own answer schema (response_format), else the version's output_schema applies.
  std::optional<boost::json::value> answer_schema;
};

struct AssembledPrompt {
  ModelRequest request;
  std::set<std::string> action_names;
  std::size_t history_messages_dropped = 0;
  std::size_t history_messages_sent = 0;  // request.messages begins with these
  // The system prompt as the turn's record keeps it: without this call's additional instructions
  // and host context, which apply to one call and are never stored (SPEC §5).
  std::string recorded_system;
};

// The built-in tool that asks the user a question (a version's "ask_user": true).
inline constexpr std::string_view kAskUserTool = "ask_user";

// The tools the model is offered: search_resources, remember, crm_metadata, ask_user when they
// apply, each http tool and each action by its own name.
std::vector<ToolSpec> OfferedTools(const AgentConfig& config);

AssembledPrompt AssemblePrompt(const AgentConfig& config, const PromptInputs& inputs);

// How many of the oldest history messages a summary folds once the history overflows: enough that
// the rest takes at most half the room the prompt leaves it, so the next summary is turns away
// instead of due on every turn.
std::size_t HistoryToFold(const AgentConfig& config, const PromptInputs& inputs);

// The most of the newest history AssemblePrompt could keep: a message costs at least half its
// bytes, and at least the per-message overhead, in tokens, and the history gets at most the
// context minus the answer. Reading the tail up to these bounds (and one message more) loses
// nothing.
struct HistoryBudget {
  std::size_t max_bytes = 0;
  std::size_t max_messages = 0;
};
HistoryBudget HistoryBudgetOf(const AgentConfig& config);
// Where the newest messages of a history the caller brought that fit `budget` begin: what a new
// stored conversation is seeded with (docs/openai.md, "Histories the client keeps").
std::size_t SeedFrom(const std::vector<ChatMessage>& history, const HistoryBudget& budget);

// The most tokens a model call's input may take: the context minus the answer, or
// history.max_input_tokens when that is smaller.
std::int64_t InputBudgetOf(const AgentConfig& config);

// A cheap, conservative token estimate (about 2 bytes a token) used for budgets and reservations:
// it must not undercount, or a spend reservation would not be a worst case.
std::int64_t EstimateTokens(std::string_view text);
std::int64_t EstimateTokens(const ModelRequest& request);

}  // namespace agentgate
