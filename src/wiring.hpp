#pragma once
// The only place that creates concrete classes: config -> store -> services -> routes -> server.

#include <iosfwd>
#include <string>

namespace agentgate {

struct ServeOptions {
  std::string config_path;  // empty = embedded defaults
  bool provision_demo = false;
};

// Runs the server until SIGTERM/SIGINT and the drain finish; returns the process exit code.
int Serve(const ServeOptions& options);

// Applies store migrations and exits.
int Migrate(const std::string& config_path);

// Prints `setting`'s value read from `in`, sealed under the master key, for the config
// ("tracing.headers": the collector's credentials, docs/tracing.md; "provider.api_key": a key of a
// provider's pool, docs/daemon.md).
int Seal(const std::string& config_path, const std::string& setting, std::istream& in,
         std::ostream& out);

}  // namespace agentgate
