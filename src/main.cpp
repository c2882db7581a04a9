// agentgate: command-line entry point. Parses the subcommand and hands over to the wiring.
#include "crypto/crypto.hpp"
#include "wiring.hpp"

#include <cstring>
#include <iostream>
#include <string>
#include <vector>

namespace {

constexpr const char* kUsage =
    R"(agentgate - LLM agents and CRM metadata behind one authenticated API

Usage:
  agentgate serve [--config FILE] [--demo]   run the server (embedded defaults without --config;
                                             --demo provisions a demo org on an empty store)
  agentgate migrate [--config FILE]          apply store schema migrations and exit
  agentgate gen-master-key                   print a new random master key (64 hex characters)
  agentgate seal tracing.headers [--config FILE]
                                             print the collector's headers (key=value,... read
                                             from standard input) sealed under the master key,
                                             for [tracing] headers_sealed
  agentgate seal provider.api_key [--config FILE]
                                             print a model provider's API key (read from
                                             standard input) sealed under the master key, for
                                             [[providers]] api_keys_sealed
  agentgate --help                           this text

Every config key can be overridden by AGENTGATE_<SECTION>_<KEY>, e.g. AGENTGATE_SERVER_LISTEN.
Secrets come from the environment variables (or files) the config names:
  AGENTGATE_ADMIN_TOKEN   operator bearer token for /admin/v1
  AGENTGATE_MASTER_KEY    64 hex characters; encrypts CRM secrets at rest
)";

}  // namespace

int main(int argc, char** argv) {
  std::vector<std::string> args(argv + 1, argv + argc);
  if (args.empty() || args[0] == "--help" || args[0] == "-h" || args[0] == "help") {
    std::cout << kUsage;
    return args.empty() ? 2 : 0;
  }
  const std::string command = args[0];
  agentgate::ServeOptions options;
  std::size_t first_option = 1;
  std::string setting;  // seal's
  if (command == "seal") {
    if (args.size() < 2) {
      std::cerr << "agentgate: seal needs the setting to seal\n" << kUsage;
      return 2;
    }
    setting = args[1];
    first_option = 2;
  }
  for (std::size_t i = first_option; i < args.size(); ++i) {
    if (args[i] == "--config" && i + 1 < args.size()) {
      options.config_path = args[++i];
    } else if (args[i] == "--demo") {
      options.provision_demo = true;
    } else {
      std::cerr << "agentgate: unknown argument '" << args[i] << "'\n" << kUsage;
      return 2;
    }
  }
  if (command == "serve") return agentgate::Serve(options);
  if (command == "migrate") return agentgate::Migrate(options.config_path);
  if (command == "seal") return agentgate::Seal(options.config_path, setting, std::cin, std::cout);
  if (command == "gen-master-key") {
    std::cout << agentgate::crypto::RandomHex(32) << "\n";
    return 0;
  }
  std::cerr << "agentgate: unknown command '" << command << "'\n" << kUsage;
  return 2;
}
