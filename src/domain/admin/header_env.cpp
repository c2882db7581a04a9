#include "domain/admin/header_env.hpp"

#include "domain/admin/agent_config.hpp"

#include <fnmatch.h>

#include <array>

namespace agentgate {
namespace {

// agentgate's own settings (AGENTGATE_<SECTION>_<KEY> and its secrets), libpq's connection
// settings and password, and the OpenTelemetry exporter's (collector credentials among them).
constexpr std::array<std::string_view, 3> kReservedPrefixes = {"AGENTGATE_", "PG", "OTEL_"};

void Collect(const std::map<std::string, HeaderValue>& headers, const HeaderEnvPolicy& policy,
             std::vector<HeaderEnvFinding>& out) {
  for (const auto& [name, value] : headers) {
    if (value.env.empty()) continue;
    const HeaderEnvVerdict verdict = JudgeHeaderEnv(policy, value.env);
    if (verdict != HeaderEnvVerdict::kAllowed)
      out.push_back(HeaderEnvFinding{value.field, name, value.env, verdict});
  }
}

}  // namespace

HeaderEnvVerdict JudgeHeaderEnv(const HeaderEnvPolicy& policy, std::string_view variable) {
  for (const auto prefix : kReservedPrefixes)
    if (variable.starts_with(prefix)) return HeaderEnvVerdict::kForbidden;
  const std::string name(variable);
  if (policy.reserved.contains(name)) return HeaderEnvVerdict::kForbidden;
  for (const auto& glob : policy.allowed)
    if (::fnmatch(glob.c_str(), name.c_str(), 0) == 0) return HeaderEnvVerdict::kAllowed;
  return HeaderEnvVerdict::kUnlisted;
}

std::vector<HeaderEnvFinding> RefusedHeaderEnvs(const AgentConfig& config,
                                                const HeaderEnvPolicy& policy) {
  std::vector<HeaderEnvFinding> out;
  for (const auto& tool : config.http_tools) Collect(tool.headers, policy, out);
  for (const auto& server : config.mcp_servers) Collect(server.headers, policy, out);
  for (const auto& agent : config.a2a_agents) Collect(agent.headers, policy, out);
  return out;
}

std::string HeaderEnvProblem(const HeaderEnvFinding& finding) {
  if (finding.verdict == HeaderEnvVerdict::kForbidden)
    return "names environment variable " + finding.variable +
           ", which holds agentgate's own settings or secrets and is never sent to a tool";
  return "names environment variable " + finding.variable +
         ", which [tools] header_env does not list (keep secrets as {\"secret\": NAME})";
}

Result<void> CheckHeaderEnvs(const AgentConfig& config, const HeaderEnvPolicy& policy) {
  const auto refused = RefusedHeaderEnvs(config, policy);
  if (refused.empty()) return {};
  return InvalidField(refused.front().field, HeaderEnvProblem(refused.front()));
}

}  // namespace agentgate
