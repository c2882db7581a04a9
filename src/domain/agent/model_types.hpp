#pragma once
// What a turn exchanges with a model, independent of any provider's wire format.

#include <boost/json/value.hpp>

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace agentgate {

struct ToolCall {
  std::string id;
  std::string name;
  std::string arguments_json;  // as the model sent it
  bool operator==(const ToolCall&) const = default;
};

enum class Role { kUser, kAssistant, kTool };

// The role's wire name in transcripts and stored state ("user", "assistant", "tool").
inline std::string_view RoleName(Role role) {
  switch (role) {
    case Role::kUser:
      return "user";
    case Role::kAssistant:
      return "assistant";
    case Role::kTool:
      return "tool";
  }
  return "user";
}

struct ChatMessage {
  Role role = Role::kUser;
  std::string content;
  std::vector<ToolCall> tool_calls;  // assistant messages that call tools
  std::string tool_call_id;          // tool results: the call they answer
  std::string tool_name;             // tool results: the tool's name
};

struct ToolSpec {
  std::string name;
  std::string description;
  boost::json::value parameters;  // JSON Schema
  // The schema's estimated tokens once a turn's prompt counted them (-1: not yet): every model
  // call of the turn estimates its request, and the schema does not change within a turn.
  std::int64_t schema_tokens = -1;
};

// The JSON Schema a turn's final answer keeps to (docs/structured-output.md), as the providers are
// asked for it: OpenAI's response_format, Anthropic's output_config or an answer tool.
struct AnswerFormat {
  boost::json::value schema;                 // checked by schema::ReadAnswerSchema
  std::optional<boost::json::value> strict;  // schema::StrictForm, when the schema has one
  std::int64_t schema_tokens = 0;            // the schema's estimated tokens, sent on every call
};

struct ModelRequest {
  std::string model;
  std::string system;  // instructions and per-call context, in the SPEC's order
  std::vector<ChatMessage> messages;
  std::vector<ToolSpec> tools;
  std::optional<double> temperature;
  int max_output_tokens = 1024;
  // Anthropic: mark the stable prefix for its prompt cache (the tools, the system text, the
  // history, and the turn so far); `history_messages` is how many of `messages` are the stored
  // history. OpenAI-compatible providers cache on their own.
  bool prompt_caching = false;
  std::size_t history_messages = 0;
  // The final answer's schema, when the turn has one; shared: every step's request carries it.
  std::shared_ptr<const AnswerFormat> answer_format = {};
  // The call must call a tool: any ("") or the one named (a /v1 caller's tool_choice; its first
  // model call only).
  std::optional<std::string> required_tool = {};
};

// A call's tokens. `input_tokens` is every input token, however the provider counts them (Anthropic
// counts cache reads and writes apart from its input_tokens; the adapters add them in): the cached
// ones are a part of it, priced apart (governance::CostUsd).
struct TokenUsage {
  std::int64_t input_tokens = 0;
  std::int64_t output_tokens = 0;
  std::int64_t cached_input_tokens = 0;  // read from the provider's prompt cache
  std::int64_t cache_write_tokens = 0;   // written to it (Anthropic's cache_creation_input_tokens)
  bool operator==(const TokenUsage&) const = default;
};

// One model's share of a turn's usage (usage.models).
struct ModelUsage {
  std::string provider;
  std::string model;
  int calls = 0;         // answered
  int failed_calls = 0;  // failed (they cost nothing)
  TokenUsage tokens;
  double cost_usd = 0;
  bool operator==(const ModelUsage&) const = default;
};

struct ModelReply {
  std::string text;
  std::vector<ToolCall> tool_calls;
  TokenUsage usage;
  std::string finish_reason = {};   // as the provider said it ("stop", "end_turn", ...)
  std::string response_model = {};  // the model the provider says answered ("" if it did not say)
};

// Why a model call failed, as the stop rules need it.
struct ModelFailure {
  enum class Kind {
    kTransient,  // network, timeout, 5xx, overloaded, malformed reply: retry with backoff
    kRejected,   // a request the provider will not serve as sent (400, 404): llm_error at once
    kRefused,    // key, billing, quota: provider_error at once
    kThrottled,  // rate limited: retry after `retry_after` if it fits, else provider_error
  };
  Kind kind = Kind::kTransient;
  std::string message;  // for the transcript; never contains the API key
  std::optional<std::chrono::milliseconds> retry_after;
  // kRefused: the account will not pay (billing, quota), rather than the key refused (401, 403);
  // another key of the same provider would meet the same account (domain/agent/fallback_rules).
  bool account = false;
};

// The kind's wire name (a run's model.finished event says which kind a failed call was, never the
// provider's own message, which is the operator's).
inline std::string_view FailureKindName(ModelFailure::Kind kind) {
  switch (kind) {
    case ModelFailure::Kind::kTransient:
      return "transient";
    case ModelFailure::Kind::kRejected:
      return "rejected";
    case ModelFailure::Kind::kRefused:
      return "refused";
    case ModelFailure::Kind::kThrottled:
      return "throttled";
  }
  return "transient";
}

}  // namespace agentgate
