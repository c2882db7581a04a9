#include "demo_output.hpp"

#include "domain/auth/api_token.hpp"

#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>

namespace agentgate {
namespace {

// Next to the SQLite file, or under var/ in the working directory when the store is a database
// server.
std::string DemoFilePath(const Config& config) {
  std::filesystem::path dir = "var";
  if (config.store.kind == StoreKind::kSqlite)
    dir = std::filesystem::path(config.store.sqlite_path).parent_path();
  if (dir.empty()) dir = ".";
  std::error_code ignored;
  std::filesystem::create_directories(dir, ignored);
  return (dir / "demo-credentials.txt").string();
}

}  // namespace

void PrintDemo(const Config& config, const std::string& listen,
               const std::optional<DemoCredentials>& fresh) {
  const std::string path = DemoFilePath(config);
  if (fresh) {
    std::ofstream out(path, std::ios::trunc);
    out << "org=" << fresh->org_id << "\nenv=" << fresh->env << "\ntoken=" << fresh->token
        << "\nagent=" << fresh->agent_id << "\n";
    out.close();
    std::error_code ignored;  // an unwritable directory only costs the reminder on later starts
    std::filesystem::permissions(
        path, std::filesystem::perms::owner_read | std::filesystem::perms::owner_write, ignored);
  }
  std::ifstream in(path);
  if (!in) {
    std::cout << "Demo: the store already held organizations; no demo credentials were created.\n";
    return;
  }
  std::map<std::string, std::string> kv;
  for (std::string line; std::getline(in, line);) {
    const auto eq = line.find('=');
    if (eq != std::string::npos) kv[line.substr(0, eq)] = line.substr(eq + 1);
  }
  std::cout << "\nDemo organization (credentials kept in " << path << "):\n"
            << "  org:   " << kv["org"] << "\n  env:   " << kv["env"]
            << "\n  token: " << kv["token"] << "\n  agent: " << kv["agent"]
            << "\n\nTry:\n  curl -s http://" << listen << "/api/agents/" << kv["agent"]
            << "/invoke -H 'content-type: application/json' -H 'fl-api-org: " << kv["org"]
            << "' -H 'fl-api-env: " << kv["env"] << "' -H 'fl-api-token: " << kv["token"]
            << "' -d '{\"message\":\"What is agentgate?\"}'\n"
            << "\nAnd for an answer held to a JSON Schema (its parsed object is the body's "
               "\"output\"):\n  curl -s http://"
            << listen << "/api/agents/" << kv["agent"]
            << "/invoke -H 'content-type: application/json' -H 'fl-api-org: " << kv["org"]
            << "' -H 'fl-api-env: " << kv["env"] << "' -H 'fl-api-token: " << kv["token"]
            << "' -d '{\"message\":\"Should this refund be escalated?\",\"response_format\":"
               "{\"type\":\"json_schema\",\"schema\":{\"type\":\"object\",\"properties\":"
               "{\"escalate\":{\"type\":\"boolean\"},\"reason\":{\"type\":\"string\"}},"
               "\"required\":[\"escalate\",\"reason\"]}}}'\n";
  // An OpenAI SDK needs only a base URL and a key: the demo token wrapped with its org and env.
  const std::string api_key = WrapApiKey(ApiKeyParts{kv["org"], kv["env"], kv["token"]});
  std::cout << "\nOr from any OpenAI SDK (docs/openai.md):\n  base URL: http://" << listen
            << "/v1\n  API key:  " << api_key << "\n  curl -s http://" << listen
            << "/v1/chat/completions -H 'content-type: application/json' -H 'authorization: "
               "Bearer "
            << api_key << "' -d '{\"model\":\"" << kv["agent"]
            << "\",\"messages\":[{\"role\":\"user\",\"content\":\"What is agentgate?\"}]}'\n\n"
            << std::flush;
}

}  // namespace agentgate
