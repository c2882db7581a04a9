#pragma once
// The headers an http or mcp tool sends, with each {"env": VARIABLE} value read from the agentgate
// process's environment and each {"secret": NAME} value opened from the org's sealed tool secrets,
// when the tool is called (so a replaced secret is used from the next call on, on every server).

#include "crypto/crypto.hpp"
#include "domain/admin/agent_config.hpp"
#include "domain/admin/header_env.hpp"
#include "ports/clock.hpp"
#include "ports/http_caller.hpp"
#include "runtime/store_runner.hpp"

#include <boost/asio/awaitable.hpp>

#include <algorithm>
#include <chrono>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace agentgate {

// How long a remote tool's request may take: its own limit, within the turn's soft deadline
// (rounded up: a call cut by the deadline ends at it, so the turn then answers), at least 1 ms.
inline std::chrono::milliseconds CallBudget(std::chrono::milliseconds limit, SteadyTime deadline,
                                            const Clock& clock) {
  const auto left = std::chrono::ceil<std::chrono::milliseconds>(deadline - clock.SteadyNow());
  return std::max(std::chrono::milliseconds(1), std::min(limit, left));
}

class ToolHeaders {
 public:
  // Without a store (tests of tools that name no secrets) or a master key, secrets are unset.
  // `env_policy`: the variables a header may read (domain/admin/header_env; none by default).
  ToolHeaders(StoreRunner* store, std::optional<crypto::MasterKey> master_key,
              HeaderEnvPolicy env_policy = {})
      : store_(store), master_key_(std::move(master_key)), env_policy_(std::move(env_policy)) {}

  // kUnavailable naming the header and the variable or secret that is not set (never a value);
  // kForbidden naming the header whose variable the policy refuses (a version deployed before
  // the policy: the admin API refuses new ones).
  boost::asio::awaitable<Result<HeaderList>> Resolve(
      const std::string& org_id, const std::map<std::string, HeaderValue>& headers);

 private:
  StoreRunner* store_;
  std::optional<crypto::MasterKey> master_key_;
  HeaderEnvPolicy env_policy_;
};

}  // namespace agentgate
