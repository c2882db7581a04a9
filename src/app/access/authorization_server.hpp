#pragma once
// The built-in OAuth 2.1 authorization server for machine clients (docs/mcp.md, OAuth): trades a
// registered client's secret for an access token (a JWT signed ES256) that acts, at /mcp, as the
// API token the client is bound to. Signing keys are made on first use and kept sealed under the
// master key; a rotation keeps the old key verifying until its tokens have expired.
//
// Verification reads no store on a call: keys are held here, verified tokens are remembered
// until they expire, and the client and its API token are read through the tenant directory (one
// second fresh), so a revocation anywhere is felt everywhere within a second.

#include "app/access/authenticate.hpp"
#include "app/access/tenant_directory.hpp"
#include "crypto/crypto.hpp"
#include "crypto/jws.hpp"
#include "domain/auth/oauth_token_request.hpp"
#include "ports/clock.hpp"
#include "runtime/store_runner.hpp"

#include <boost/asio/awaitable.hpp>

#include <cstdint>
#include <mutex>
#include <optional>
#include <string>
#include <unordered_map>
#include <variant>
#include <vector>

namespace agentgate {

struct AuthorizationServerSettings {
  std::int64_t token_lifetime_s = 3600;  // [oauth] access_token_lifetime_seconds, at most 3600
  // Verified tokens remembered; when full, the expired go, and if none has, all of them.
  std::size_t verified_capacity = 10'000;
};

struct IssuedAccessToken {
  std::string access_token;
  std::int64_t expires_in_s = 0;
  std::string scope;
};

// A key as the JWKS shows it: the public point's coordinates, base64url.
struct PublishedKey {
  std::string kid;
  std::string x;
  std::string y;
};

class AuthorizationServer {
 public:
  // How long a key set read from the store is used before it is read again, so a rotation on
  // another server is signed with here within this (verification reads at once an unknown kid).
  // The keys are read again at most this long after the last read: a key revoked on another
  // server stops verifying here within it.
  static constexpr std::int64_t kKeysFreshForMs = 1000;

  AuthorizationServer(StoreRunner& store, TenantDirectory& tenants, const Clock& clock,
                      std::optional<crypto::MasterKey> master_key,
                      AuthorizationServerSettings settings);

  // POST /oauth/token, once its request was read; `base` is the server's absolute URL. Its
  // refusals as oauth::ReadTokenRequest's (the edge writes them in OAuth's shape).
  boost::asio::awaitable<Result<IssuedAccessToken>> IssueToken(oauth::TokenRequest request,
                                                               std::string base);

  // The protected resources: /mcp (scope mcp) and the A2A interfaces under /a2a (scope a2a).
  enum class Resource { kMcp, kA2a };
  // The caller a Bearer access token presented at `resource` acts as; 401 saying why it was
  // refused (another resource's token, or one without its scope), 403 when its API token may no
  // longer use its environment.
  boost::asio::awaitable<Result<Caller>> Admit(std::string token, std::string base,
                                               Resource resource = Resource::kMcp);

  // A detached JWS (RFC 7515 appendix F) of `payload` under the current key, as an A2A card's
  // signature carries it: the protected header ({alg: ES256, typ: JOSE, kid, jku}) and the
  // signature, each base64url. Verified with the key `jku` publishes (the JWKS).
  struct DetachedSignature {
    std::string protected_header;  // base64url
    std::string signature;         // base64url
  };
  boost::asio::awaitable<Result<DetachedSignature>> SignDetached(std::string payload,
                                                                 std::string jku);

  // The keys that verify: the current one and the retired ones still in their overlap.
  boost::asio::awaitable<Result<std::vector<PublishedKey>>> PublishedKeys();

  // The admin API's: every key kept (private parts left out), and a rotation (the new key).
  boost::asio::awaitable<Result<std::vector<SigningKeyRecord>>> SigningKeys();
  boost::asio::awaitable<Result<SigningKeyRecord>> RotateSigningKey();
  // Deletes a key at once: tokens it signed are refused here now and on every other server
  // within kKeysFreshForMs; the next token is signed with a new key if it was the current one.
  // kNotFound for a kid that is not kept.
  boost::asio::awaitable<Result<void>> RevokeSigningKey(std::string kid);

  std::size_t VerifiedCountForTest();

 private:
  struct Verified {
    std::string client_id;
    std::int64_t expires_at_s = 0;
    std::string kid;  // a revoked key's tokens are refused, even when verified before
  };

  boost::asio::awaitable<Result<std::vector<SigningKeyRecord>>> Keys(bool reread);
  boost::asio::awaitable<Result<std::pair<std::string, crypto::Es256Key>>> CurrentKey();
  Result<SigningKeyRecord> NewKey();
  bool StillVerifies(const SigningKeyRecord& key) const;
  boost::asio::awaitable<Result<Verified>> Verify(const std::string& token, const std::string& base,
                                                  Resource resource);
  void Remember(const std::string& digest, const Verified& verified);
  std::int64_t SteadyMs() const;

  StoreRunner& store_;
  TenantDirectory& tenants_;
  const Clock& clock_;
  const std::optional<crypto::MasterKey> master_key_;
  const AuthorizationServerSettings settings_;

  std::mutex mutex_;  // guards what follows: handlers run on several I/O threads
  std::vector<SigningKeyRecord> keys_;
  std::int64_t keys_read_at_ms_ = -1;                         // steady time; -1: never read
  std::unordered_map<std::string, crypto::Es256Key> opened_;  // kid -> the key, for signing
  // SHA-256(base, resource, token) -> claims
  std::unordered_map<std::string, Verified> verified_;
};

}  // namespace agentgate
