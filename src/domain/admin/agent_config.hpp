#pragma once
// An agent version's configuration (SPEC §4), parsed and validated. Versions are immutable, so a
// parsed config can be cached by (org, agent, version).

#include "domain/error.hpp"

#include <boost/json/value.hpp>

#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace agentgate {

// A model of a configured provider.
struct ModelRef {
  std::string provider;
  std::string name;
};

struct ModelSettings {
  std::string provider;
  std::string name;
  // Tried in order when this model's calls fail as the fallback rules say (docs/daemon.md).
  std::vector<ModelRef> fallbacks;
  // Anthropic prompt-cache breakpoints on the stable prefix (OpenAI-compatible providers cache
  // without being asked; their cached tokens are priced either way).
  bool prompt_caching = true;
  std::optional<double> temperature;
  int max_output_tokens = 1024;
  // Tokens of context the model accepts; history is cut to fit it. Default suits current models.
  int context_tokens = 128000;
};

enum class MemoryMode { kNone, kShared };

// How a conversation's history meets the input budget: `window` sends the newest turns that fit;
// `summarize` also folds the turns that no longer fit into a running summary, written by the
// agent's own model and stored with the conversation (docs/daemon.md, History).
enum class HistoryStrategy { kWindow, kSummarize };

struct HistorySettings {
  HistoryStrategy strategy = HistoryStrategy::kWindow;
  // The most tokens a model call's input may take (instructions, tools, summary, history,
  // message); absent: the context minus the answer (model.context_tokens - max_output_tokens).
  std::optional<int> max_input_tokens;
};

// A header value of an http or mcp tool: a literal, the name of an environment variable of the
// agentgate process, or the name of one of the org's sealed tool secrets; the last two are read
// when the tool is called, so a key need not sit in a stored config.
struct HeaderValue {
  std::string literal;
  std::string env;         // when set, the value is this variable's
  std::string secret;      // when set, the value is this tool secret's (PUT .../secrets/{name})
  std::string field = {};  // where the config set it: config.tools[i].headers.<name>
};

// Whether a person approves a tool's calls before they run (docs/daemon.md "Tool approvals"):
// never, always, or only calls that may change something (domain/agent/approval_rules).
enum class Approval { kNever, kAlways, kWrites };

struct HttpTool {
  std::string name;
  std::string description;
  boost::json::value parameters;  // JSON Schema object
  std::string url;
  std::string method = "POST";
  std::map<std::string, HeaderValue> headers;
  int timeout_seconds = 30;
  Approval approval = Approval::kNever;
};

// The tools of an MCP server (Streamable HTTP), offered to the model as "<name>__<tool>".
struct McpServerTool {
  std::string name;
  std::string url;
  std::map<std::string, HeaderValue> headers;
  std::optional<std::vector<std::string>> allowed_tools;  // absent: every tool the server lists
  int timeout_seconds = 30;                               // per call, within the turn's deadline
  Approval approval = Approval::kNever;                   // for each of its tools

  bool Allows(std::string_view tool) const;
};

// A remote A2A agent (docs/a2a.md, "Remote agents as tools"), offered to the model as one tool
// named `name` that sends it a message; its card at `card_url` says what it does.
struct A2aAgentTool {
  std::string name;
  std::string card_url;  // its interface must be on this URL's origin
  std::map<std::string, HeaderValue> headers;
  int timeout_seconds = 60;  // per call, within the turn's deadline
  Approval approval = Approval::kNever;
};

struct ActionSpec {
  std::string name;
  std::string description;
  boost::json::value parameters;
};

struct TrustedResource {
  std::string id;
  std::string title;
  std::string text;
};

// A block pattern (RE2 syntax), with the operator's bound on its matches' length for a pattern
// whose own syntax bounds none (domain/agent/pattern_bound): a stream holds back that much.
struct BlockPattern {
  BlockPattern(std::string p, std::optional<std::size_t> max = std::nullopt)
      : pattern(std::move(p)), max_match_bytes(max) {}
  BlockPattern(const char* p) : pattern(p) {}
  std::string pattern;
  std::optional<std::size_t> max_match_bytes;  // 1-4096
};

struct SafetyPolicy {
  std::vector<BlockPattern> block_patterns;
  bool detect_credit_card = false;
  bool detect_secret = false;
  std::string placeholder = "This reply was withheld by the agent's safety policy.";
};

// The crm_metadata tool: read-only unless the operator lists more methods (a model can be talked
// into deleting things; SPEC §7).
struct CrmMetadataTool {
  std::vector<std::string> methods{"GET"};  // a subset of GET, POST, PATCH, PUT, DELETE
  Approval approval = Approval::kNever;

  bool Allows(std::string_view method) const;
};

struct AgentConfig {
  std::string name;
  std::string description;  // shown to MCP clients
  std::string instructions;
  ModelSettings model;
  MemoryMode memory = MemoryMode::kNone;
  HistorySettings history;
  bool per_instance = false;
  std::optional<double> monthly_spend_limit_usd;
  int max_iterations = 10;
  std::vector<HttpTool> http_tools;
  std::vector<McpServerTool> mcp_servers;
  std::vector<A2aAgentTool> a2a_agents;
  std::optional<CrmMetadataTool> crm_metadata_tool;
  std::vector<ActionSpec> actions;
  std::vector<TrustedResource> resources;
  SafetyPolicy safety;
  // The JSON Schema every final answer keeps to unless a call gives its own (structured-output.md).
  std::optional<boost::json::value> output_schema;
  // The model may ask the user a question (the built-in ask_user tool): the run pauses for the
  // answer (docs/runs.md, "What a run needs").
  bool ask_user = false;
};

// Validates `config` against the schema; errors name the field, e.g. "config.tools[1].url".
Result<AgentConfig> ParseAgentConfig(const boost::json::value& config);

}  // namespace agentgate
