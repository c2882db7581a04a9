#include "app/turn/idempotency.hpp"

#include "crypto/crypto.hpp"
#include "domain/governance/governance.hpp"

namespace agentgate {

namespace asio = boost::asio;

std::string Idempotency::Fingerprint(std::string_view route, std::string_view agent_id,
                                     std::string_view canonical_body) {
  std::string material;
  material.append(route).push_back('\n');
  material.append(agent_id).push_back('\n');
  material.append(canonical_body);
  return ToHex(crypto::Sha256(material));
}

asio::awaitable<Result<KeyClaim>> Idempotency::Claim(const Caller& caller, const std::string& key,
                                                     const std::string& fingerprint) {
  const IdempotencyScope scope{caller.org_id, caller.env, key};
  const std::int64_t now = clock_.NowMs();
  // A claim older than the turn cap belonged to a server that died: it is taken over.
  const std::int64_t stale_after = turn_cap_.count();
  AG_CO_TRY(auto claim, co_await store_.Run([&](Store& s) {
    return s.ClaimIdempotencyKey(scope, fingerprint, now, stale_after, server_.id());
  }));
  using Outcome = IdempotencyClaim::Outcome;
  switch (claim.outcome) {
    case Outcome::kClaimed:
      metrics_.Add("agentgate_idempotency_total", {{"outcome", "claimed"}});
      co_return KeyClaim{std::nullopt, ClaimedKey{scope, now}};
    case Outcome::kInUse:
      metrics_.Add("agentgate_idempotency_total", {{"outcome", "in_use"}});
      co_return Error(ErrorCode::kIdempotencyKeyInUse,
                      "a call with this idempotency key is already running");
    case Outcome::kFingerprintMismatch:
      metrics_.Add("agentgate_idempotency_total", {{"outcome", "reused"}});
      co_return Error(
          ErrorCode::kIdempotencyKeyReused,
          "this idempotency key was used for a different request; use a new key for a new request");
    case Outcome::kCompleted:
      metrics_.Add("agentgate_idempotency_total", {{"outcome", "replayed"}});
      co_return KeyClaim{StoredResponse{claim.status, claim.body}, ClaimedKey{scope, now}};
  }
  co_return Error(ErrorCode::kInternal, "unknown idempotency outcome");
}

asio::awaitable<void> Idempotency::Release(const ClaimedKey& claimed) {
  // Awaited, so a retry right after the answer finds the key free; the caller's error stands.
  const Result<void> released = co_await store_.Run(
      [&](Store& s) { return s.ReleaseIdempotencyKey(claimed.scope, claimed.claimed_at_ms); });
  if (!released) {
    server_.RetryLater([scope = claimed.scope, at = claimed.claimed_at_ms](Store& s) {
      return s.ReleaseIdempotencyKey(scope, at);
    });
  }
}

std::int64_t Idempotency::ReplayUntil(std::int64_t now_ms) {
  return now_ms + governance::kIdempotencyReplayMs;
}

}  // namespace agentgate
