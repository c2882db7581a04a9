#pragma once
// What a shell command printed: the tests that hand our output to a Node counterpart (the OTLP
// decoder, ajv) read its verdict this way.
#include <cstdio>
#include <memory>
#include <string>

namespace agentgate::testing {

inline std::string CommandOutput(const std::string& command) {
  std::unique_ptr<FILE, int (*)(FILE*)> pipe(::popen(command.c_str(), "r"), ::pclose);
  std::string out;
  char buffer[4096];
  while (pipe && std::fgets(buffer, sizeof buffer, pipe.get()) != nullptr) out += buffer;
  return out;
}

}  // namespace agentgate::testing
