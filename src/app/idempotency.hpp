#pragma once
// Idempotency-Key (SPEC §5): a key is scoped to (org, env). The first call claims it in the store
// (a conditional write, so it holds across servers); a concurrent duplicate gets 409, the same key
// with a different request 422, and a finished call's response is replayed for 24 h. Only 200
// answers are kept for replay: any other outcome releases the key so the caller may retry.

#include "app/authenticate.hpp"
#include "observability/metrics.hpp"
#include "ports/clock.hpp"

#include <chrono>
#include <optional>
#include <string>

namespace agentgate {

struct StoredResponse {
  int status = 200;
  std::string body;
};

class Idempotency {
 public:
  Idempotency(StoreRunner& store, const Clock& clock, Metrics& metrics,
              std::chrono::milliseconds turn_cap)
      : store_(store), clock_(clock), metrics_(metrics), turn_cap_(turn_cap) {}

  // What makes two calls "the same request": the route, the agent and the body's canonical JSON.
  static std::string Fingerprint(std::string_view route, std::string_view agent_id,
                                 std::string_view canonical_body);

  // nullopt: claimed, run the call. A value: replay it. An error: 409 or 422 (or a store failure).
  boost::asio::awaitable<Result<std::optional<StoredResponse>>> Claim(
      const Caller& caller, const std::string& key, const std::string& fingerprint);
  // Keeps a 200 for replay; releases the key for anything else.
  boost::asio::awaitable<void> Finish(const Caller& caller, const std::string& key,
                                      const StoredResponse& response);

 private:
  StoreRunner& store_;
  const Clock& clock_;
  Metrics& metrics_;
  std::chrono::milliseconds turn_cap_;
};

}  // namespace agentgate
