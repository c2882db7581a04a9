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

struct ModelSettings {
  std::string provider;
  std::string name;
  std::optional<double> temperature;
  int max_output_tokens = 1024;
  // Tokens of context the model accepts; history is cut to fit it. Default suits current models.
  int context_tokens = 128000;
};

enum class MemoryMode { kNone, kShared };

struct HttpTool {
  std::string name;
  std::string description;
  boost::json::value parameters;  // JSON Schema object
  std::string url;
  std::string method = "POST";
  std::map<std::string, std::string> headers;
  int timeout_seconds = 30;
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

struct SafetyPolicy {
  std::vector<std::string> block_patterns;  // RE2 syntax
  bool detect_credit_card = false;
  bool detect_secret = false;
  std::string placeholder = "This reply was withheld by the agent's safety policy.";
};

// The crm_metadata tool: read-only unless the operator lists more methods (a model can be talked
// into deleting things; SPEC §7).
struct CrmMetadataTool {
  std::vector<std::string> methods{"GET"};  // a subset of GET, POST, PATCH, PUT, DELETE

  bool Allows(std::string_view method) const;
};

struct AgentConfig {
  std::string name;
  std::string instructions;
  ModelSettings model;
  MemoryMode memory = MemoryMode::kNone;
  bool per_instance = false;
  std::optional<double> monthly_spend_limit_usd;
  int max_iterations = 10;
  std::vector<HttpTool> http_tools;
  std::optional<CrmMetadataTool> crm_metadata_tool;
  std::vector<ActionSpec> actions;
  std::vector<TrustedResource> resources;
  SafetyPolicy safety;
};

// Validates `config` against the schema; errors name the field, e.g. "config.tools[1].url".
Result<AgentConfig> ParseAgentConfig(const boost::json::value& config);

}  // namespace agentgate
