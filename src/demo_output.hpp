#pragma once
// What `make run` prints of the demo organization it provisioned, and where it keeps the
// credentials so later runs print them again.

#include "app/admin/demo_provisioning.hpp"
#include "config/config.hpp"

#include <optional>
#include <string>

namespace agentgate {

// `fresh` is what this start provisioned (none: the store already held organizations).
void PrintDemo(const Config& config, const std::string& listen,
               const std::optional<DemoCredentials>& fresh);

}  // namespace agentgate
