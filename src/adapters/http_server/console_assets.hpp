#pragma once
// The operator console's files (console/), embedded in the binary at build time.

#include <string_view>
#include <vector>

namespace agentgate::http {

struct EmbeddedFile {
  std::string_view name;  // e.g. "console.js"
  std::string_view bytes;
};

const std::vector<EmbeddedFile>& ConsoleAssets();

}  // namespace agentgate::http
