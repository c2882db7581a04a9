#pragma once
// Idempotency-Key (SPEC §5): a key is scoped to (org, env). The first call claims it in the store
// (a conditional write, so it holds across servers); a concurrent duplicate gets 409, the same key
// with a different request 422, and a finished call's response is replayed for 24 h. Only 200
// answers are kept for replay, and they are stored in the same transaction as the turn that made
// them (TurnCommit), so a committed turn is never run again. Any other outcome releases the key.

#include "app/access/authenticate.hpp"
#include "observability/metrics.hpp"
#include "ports/clock.hpp"
#include "runtime/server_lease.hpp"

#include <chrono>
#include <optional>
#include <string>

namespace agentgate {

struct StoredResponse {
  int status = 200;
  std::string body;
};

// A running claim: the key, and when it was taken (which names it in the store).
struct ClaimedKey {
  IdempotencyScope scope;
  std::int64_t claimed_at_ms = 0;
};

// What a claim decided: replay a stored response, or run the call under `claimed`.
struct KeyClaim {
  std::optional<StoredResponse> replay;
  ClaimedKey claimed;
};

class Idempotency {
 public:
  Idempotency(StoreRunner& store, ServerLease& server, const Clock& clock, Metrics& metrics,
              std::chrono::milliseconds turn_cap)
      : store_(store), server_(server), clock_(clock), metrics_(metrics), turn_cap_(turn_cap) {}

  // What makes two calls "the same request": the route, the agent and the body's canonical JSON.
  static std::string Fingerprint(std::string_view route, std::string_view agent_id,
                                 std::string_view canonical_body);

  // A claim to run under or a response to replay; an error: 409 or 422 (or a store failure).
  boost::asio::awaitable<Result<KeyClaim>> Claim(const Caller& caller, const std::string& key,
                                                 const std::string& fingerprint);
  // Frees a claim whose call ended without a committed turn, so the caller may retry; should the
  // store refuse, the server's lease tries again until it takes it.
  boost::asio::awaitable<void> Release(const ClaimedKey& claimed);
  // Until when a response completed at `now_ms` is replayed.
  static std::int64_t ReplayUntil(std::int64_t now_ms);

 private:
  StoreRunner& store_;
  ServerLease& server_;  // claims name it; a release the store refused is retried by it
  const Clock& clock_;
  Metrics& metrics_;
  std::chrono::milliseconds turn_cap_;
};

}  // namespace agentgate
