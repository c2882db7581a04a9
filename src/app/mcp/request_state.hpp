#pragma once
// The `requestState` of an MCP `input_required` result (docs/mcp.md, "Elicitation"): which run,
// which of its calls, for which client and until when, sealed under the master key (AES-256-GCM)
// so the client can only echo it, and any server sharing that key can take the retried call.

#include "app/access/authenticate.hpp"
#include "crypto/crypto.hpp"
#include "domain/error.hpp"
#include "domain/mcp/elicitation.hpp"
#include "ports/clock.hpp"

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace agentgate {

struct McpRequestState {
  std::string run_id;
  std::string agent_id;  // the tool the call named
  Caller caller;         // who may retry it
  std::int64_t expires_at_ms = 0;
  std::vector<mcp::ElicitedNeed> needs;
};

class McpRequestStates {
 public:
  // `lifetime`: how long a state opens after it was sealed (the run's own wait bounds it too).
  McpRequestStates(std::optional<crypto::MasterKey> key, const Clock& clock,
                   std::chrono::seconds lifetime)
      : key_(std::move(key)), clock_(clock), lifetime_(lifetime) {}

  // Without a master key nothing is sealed: a paused call then says where to answer instead.
  bool enabled() const { return key_.has_value(); }
  // The state as the client echoes it (unpadded base64url); it expires `lifetime` from now.
  std::string Seal(McpRequestState state) const;
  // The state a client echoes, if it is one this deployment sealed for this caller and it has not
  // expired; else a 400 naming params.requestState. (Its tool is the caller's to check.)
  Result<McpRequestState> Open(std::string_view sealed, const Caller& caller) const;

 private:
  std::optional<crypto::MasterKey> key_;
  const Clock& clock_;
  std::chrono::seconds lifetime_;
};

}  // namespace agentgate
