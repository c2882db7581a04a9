#pragma once
// The headers an http or mcp tool sends, with each {"env": VARIABLE} value read from the agentgate
// process's environment and each {"secret": NAME} value opened from the org's sealed tool secrets,
// when the tool is called (so a replaced secret is used from the next call on, on every server).

#include "crypto/crypto.hpp"
#include "domain/admin/agent_config.hpp"
#include "ports/http_caller.hpp"
#include "runtime/store_runner.hpp"

#include <boost/asio/awaitable.hpp>

#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace agentgate {

class ToolHeaders {
 public:
  // Without a store (tests of tools that name no secrets) or a master key, secrets are unset.
  ToolHeaders(StoreRunner* store, std::optional<crypto::MasterKey> master_key)
      : store_(store), master_key_(std::move(master_key)) {}

  // kUnavailable naming the header and the variable or secret that is not set (never a value).
  boost::asio::awaitable<Result<HeaderList>> Resolve(
      const std::string& org_id, const std::map<std::string, HeaderValue>& headers);

 private:
  StoreRunner* store_;
  std::optional<crypto::MasterKey> master_key_;
};

}  // namespace agentgate
