#pragma once
// Which process environment variables an agent's tool and MCP headers may read ({"env": NAME},
// docs/daemon.md "Tool headers"): never agentgate's own settings and secrets, whatever the
// configuration; otherwise only names the operator lists in [tools] header_env. An agent's
// configuration is written by anyone with the admin token or a console session, and a header's
// value goes to the tool's URL: without this, a config could send the master key anywhere.

#include "domain/error.hpp"

#include <set>
#include <string>
#include <string_view>
#include <vector>

namespace agentgate {

struct AgentConfig;

struct HeaderEnvPolicy {
  std::vector<std::string> allowed;  // globs (`*`, `?`, `[...]`): [tools] header_env
  // Variables this server reads for itself beyond the always-reserved prefixes: provider keys,
  // the admin token's and the master key's variables, the collector credentials'.
  std::set<std::string> reserved;
};

enum class HeaderEnvVerdict { kAllowed, kForbidden, kUnlisted };

// kForbidden for AGENTGATE_*, PG*, OTEL_* and the reserved names; kUnlisted for a name no glob
// matches.
HeaderEnvVerdict JudgeHeaderEnv(const HeaderEnvPolicy& policy, std::string_view variable);

// One {"env": NAME} header of an agent's config that the policy does not allow.
struct HeaderEnvFinding {
  std::string field;     // config.tools[i].headers.<name>
  std::string header;    // <name>
  std::string variable;  // NAME
  HeaderEnvVerdict verdict = HeaderEnvVerdict::kAllowed;
};

// Every header of `config` the policy refuses: its http tools', then its MCP servers'.
std::vector<HeaderEnvFinding> RefusedHeaderEnvs(const AgentConfig& config,
                                                const HeaderEnvPolicy& policy);

// 400 naming the first refused header's field, or nothing.
Result<void> CheckHeaderEnvs(const AgentConfig& config, const HeaderEnvPolicy& policy);

// Why a header's variable is refused, for an error or a log line (names the variable, never its
// value).
std::string HeaderEnvProblem(const HeaderEnvFinding& finding);

}  // namespace agentgate
