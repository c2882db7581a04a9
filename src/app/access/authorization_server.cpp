#include "app/access/authorization_server.hpp"

#include "app/seal_contexts.hpp"
#include "domain/auth/access_token.hpp"
#include "domain/auth/oauth_metadata.hpp"
#include "domain/json_text.hpp"

#include <algorithm>
#include <chrono>

namespace agentgate {

namespace asio = boost::asio;

namespace {

Error Unauthenticated(std::string message) {
  return Error{ErrorCode::kUnauthenticated, std::move(message)};
}

}  // namespace

AuthorizationServer::AuthorizationServer(StoreRunner& store, TenantDirectory& tenants,
                                         const Clock& clock,
                                         std::optional<crypto::MasterKey> master_key,
                                         AuthorizationServerSettings settings)
    : store_(store),
      tenants_(tenants),
      clock_(clock),
      master_key_(std::move(master_key)),
      settings_(settings) {}

std::int64_t AuthorizationServer::SteadyMs() const {
  return std::chrono::duration_cast<std::chrono::milliseconds>(
             clock_.SteadyNow().time_since_epoch())
      .count();
}

asio::awaitable<Result<std::vector<SigningKeyRecord>>> AuthorizationServer::Keys(bool reread) {
  const std::int64_t now = SteadyMs();
  {
    std::lock_guard lock(mutex_);
    const bool fresh = keys_read_at_ms_ >= 0 && now - keys_read_at_ms_ < kKeysFreshForMs;
    // An unknown kid rereads at once, but at most once a second: a flood of made-up kids costs
    // one read a second.
    const bool reread_allowed = keys_read_at_ms_ < 0 || now - keys_read_at_ms_ >= 1000;
    if (fresh && !(reread && reread_allowed)) co_return keys_;
  }
  AG_CO_TRY(auto keys, co_await store_.Run([](Store& s) { return s.ListSigningKeys(); }));
  std::lock_guard lock(mutex_);
  keys_ = std::move(keys);
  keys_read_at_ms_ = now;
  std::erase_if(opened_, [this](const auto& entry) {
    return std::none_of(keys_.begin(), keys_.end(),
                        [&](const SigningKeyRecord& k) { return k.kid == entry.first; });
  });
  co_return keys_;
}

Result<SigningKeyRecord> AuthorizationServer::NewKey() {
  if (!master_key_) {
    return Error{ErrorCode::kUnavailable,
                 "no master key is configured (secrets.master_key_env); the authorization "
                 "server's signing keys cannot be stored"};
  }
  const auto key = crypto::GenerateEs256Key();
  SigningKeyRecord record;
  record.created_at_ms = clock_.NowMs();
  record.kid = crypto::TimeOrderedHex(record.created_at_ms, 4);
  record.sealed_private =
      crypto::Seal(*master_key_, key.private_scalar, SigningKeySealContext(record.kid));
  record.public_point = key.public_point;
  return record;
}

asio::awaitable<Result<std::pair<std::string, crypto::Es256Key>>>
AuthorizationServer::CurrentKey() {
  const auto current_of = [](const std::vector<SigningKeyRecord>& keys) {
    return std::find_if(keys.begin(), keys.end(),
                        [](const SigningKeyRecord& k) { return k.retired_at_ms == 0; });
  };
  AG_CO_TRY(auto keys, co_await Keys(false));
  auto current = current_of(keys);
  if (current == keys.end()) {
    // First use: one key for every server (a server racing this one adds nothing and both read
    // back the one that won).
    AG_CO_TRY(const auto key, NewKey());
    AG_CO_TRYV(co_await store_.Run([&](Store& s) { return s.AddSigningKey(key, true); }));
    {
      std::lock_guard lock(mutex_);
      keys_read_at_ms_ = -1;
    }
    AG_CO_TRY(keys, co_await Keys(true));
    current = current_of(keys);
    if (current == keys.end())
      co_return Error{ErrorCode::kInternal, "no current signing key after adding one"};
  }
  {
    std::lock_guard lock(mutex_);
    if (auto it = opened_.find(current->kid); it != opened_.end())
      co_return std::pair{current->kid, it->second};
  }
  if (!master_key_) {
    co_return Error{ErrorCode::kUnavailable,
                    "no master key is configured (secrets.master_key_env); the signing key "
                    "cannot be opened"};
  }
  AG_CO_TRY(auto scalar, crypto::Open(*master_key_, current->sealed_private,
                                      SigningKeySealContext(current->kid)));
  crypto::Es256Key key{std::move(scalar), current->public_point};
  std::lock_guard lock(mutex_);
  opened_[current->kid] = key;
  co_return std::pair{current->kid, std::move(key)};
}

bool AuthorizationServer::StillVerifies(const SigningKeyRecord& key) const {
  return key.retired_at_ms == 0 ||
         clock_.NowMs() < key.retired_at_ms + oauth::kRetiredKeyVerifiesForMs;
}

asio::awaitable<Result<IssuedAccessToken>> AuthorizationServer::IssueToken(
    oauth::TokenRequest request, std::string base) {
  // Hash the presented secret even for an unknown client, so timing does not reveal ids.
  const std::string presented = crypto::Sha256(request.client_secret);
  // An id no client of ours could have is unknown without a lookup: a stranger's made-up ids
  // cost no store read and are never cached.
  if (!oauth::IsClientIdShaped(request.client_id)) co_return oauth::InvalidClient();
  AG_CO_TRY(const auto client, co_await tenants_.OAuthClient(request.client_id));
  const std::string expected = client ? client->secret_hash : std::string(presented.size(), '\0');
  if (!crypto::ConstantTimeEquals(presented, expected) || !client) co_return oauth::InvalidClient();
  const OAuthClientRecord& registered = *client;
  const Caller acting{registered.org_id, registered.env, registered.token_id};
  if (auto admitted = co_await StillAdmitted(tenants_, acting); !admitted) {
    co_return oauth::OAuthRefusal(
        ErrorCode::kInvalidRequest, "unauthorized_client",
        "the client's API token was revoked or may no longer use environment '" + registered.env +
            "'");
  }
  AG_CO_TRY(std::string scope, oauth::GrantedScope(request.scope));
  AG_CO_TRY(auto target, oauth::TargetOf(request.resource, scope, base));

  AG_CO_TRY(const auto key, co_await CurrentKey());
  oauth::AccessTokenClaims claims;
  claims.issuer = base;
  claims.audiences = std::move(target.audiences);
  claims.client_id = registered.id;
  claims.scope = std::move(target.scope);
  claims.jti = crypto::RandomHex(16);
  claims.issued_at_s = clock_.NowMs() / 1000;
  claims.expires_at_s = claims.issued_at_s + settings_.token_lifetime_s;
  IssuedAccessToken issued;
  issued.access_token = crypto::SignCompactJws(oauth::AccessTokenHeader(key.first),
                                               oauth::AccessTokenPayload(claims), key.second);
  issued.expires_in_s = settings_.token_lifetime_s;
  issued.scope = claims.scope;
  co_return issued;
}

asio::awaitable<Result<AuthorizationServer::DetachedSignature>> AuthorizationServer::SignDetached(
    std::string payload, std::string jku) {
  AG_CO_TRY(const auto key, co_await CurrentKey());
  json_text::ObjectWriter header;
  header.String("alg", "ES256").String("typ", "JOSE").String("kid", key.first).String("jku", jku);
  DetachedSignature signed_;
  signed_.protected_header = crypto::Base64Url(header.Finish());
  const std::string input = signed_.protected_header + "." + crypto::Base64Url(payload);
  signed_.signature = crypto::Base64Url(crypto::SignEs256(key.second, input));
  co_return signed_;
}

void AuthorizationServer::Remember(const std::string& digest, const Verified& verified) {
  std::lock_guard lock(mutex_);
  if (verified_.size() >= settings_.verified_capacity) {
    const std::int64_t now_s = clock_.NowMs() / 1000;
    std::erase_if(verified_,
                  [now_s](const auto& entry) { return entry.second.expires_at_s <= now_s; });
    if (verified_.size() >= settings_.verified_capacity) verified_.clear();  // all live
  }
  verified_[digest] = verified;
}

asio::awaitable<Result<AuthorizationServer::Verified>> AuthorizationServer::Verify(
    const std::string& token, const std::string& base, Resource resource) {
  const bool a2a = resource == Resource::kA2a;
  // A token verified for one resource is not thereby verified for the other.
  const std::string digest = crypto::Sha256(base + (a2a ? "\na2a\n" : "\n") + token);
  const std::int64_t now_s = clock_.NowMs() / 1000;
  std::optional<Verified> remembered;
  {
    std::lock_guard lock(mutex_);
    if (auto it = verified_.find(digest); it != verified_.end()) {
      if (it->second.expires_at_s <= now_s) {
        verified_.erase(it);
        co_return Unauthenticated("the access token was refused: it has expired");
      }
      remembered = it->second;
    }
  }
  if (remembered) {
    // Verified before; its key may have been revoked since (here, or within a second elsewhere).
    AG_CO_TRY(const auto keys, co_await Keys(false));
    const bool kept = std::any_of(keys.begin(), keys.end(), [&](const SigningKeyRecord& k) {
      return k.kid == remembered->kid && StillVerifies(k);
    });
    if (kept) co_return *remembered;
    std::lock_guard lock(mutex_);
    verified_.erase(digest);
    co_return Unauthenticated("the access token was refused: its signing key was revoked");
  }
  const auto jws = crypto::ReadCompactJws(token);
  if (!jws) co_return Unauthenticated("the access token was refused: it is not a signed JWT");
  AG_CO_TRY(const std::string kid, oauth::SigningKeyOf(jws->header_json));
  const auto find = [&kid](const std::vector<SigningKeyRecord>& keys) {
    return std::find_if(keys.begin(), keys.end(),
                        [&kid](const SigningKeyRecord& k) { return k.kid == kid; });
  };
  AG_CO_TRY(auto keys, co_await Keys(false));
  auto key = find(keys);
  if (key == keys.end()) {
    AG_CO_TRY(keys, co_await Keys(true));  // a key another server made since
    key = find(keys);
  }
  if (key == keys.end() || !StillVerifies(*key))
    co_return Unauthenticated("the access token was refused: its signing key is not ours");
  if (!crypto::VerifyEs256(key->public_point, jws->signing_input, jws->signature))
    co_return Unauthenticated("the access token was refused: its signature does not verify");
  AG_CO_TRY(const auto claims,
            oauth::AcceptedClaims(jws->payload_json, base,
                                  a2a ? oauth::A2aResourceOf(base) : oauth::ResourceOf(base),
                                  a2a ? oauth::kA2aScope : oauth::kMcpScope, now_s));
  const Verified verified{claims.client_id, claims.expires_at_s, kid};
  Remember(digest, verified);
  co_return verified;
}

asio::awaitable<Result<Caller>> AuthorizationServer::Admit(std::string token, std::string base,
                                                           Resource resource) {
  AG_CO_TRY(const auto verified, co_await Verify(token, base, resource));
  AG_CO_TRY(const auto client, co_await tenants_.OAuthClient(verified.client_id));
  if (!client) co_return Unauthenticated("the access token was refused: its client was revoked");
  Caller caller{client->org_id, client->env, client->token_id};
  auto admitted = co_await StillAdmitted(tenants_, caller);
  if (!admitted) {
    if (admitted.error().code == ErrorCode::kUnauthenticated)
      co_return Unauthenticated("the access token was refused: its client's API token was revoked");
    co_return admitted.error();
  }
  co_return caller;
}

asio::awaitable<Result<std::vector<PublishedKey>>> AuthorizationServer::PublishedKeys() {
  AG_CO_TRY(const auto keys, co_await Keys(false));
  std::vector<PublishedKey> published;
  for (const auto& key : keys) {
    if (!StillVerifies(key) || key.public_point.size() != 65) continue;
    published.push_back(PublishedKey{key.kid, crypto::Base64Url(key.public_point.substr(1, 32)),
                                     crypto::Base64Url(key.public_point.substr(33, 32))});
  }
  co_return published;
}

asio::awaitable<Result<std::vector<SigningKeyRecord>>> AuthorizationServer::SigningKeys() {
  AG_CO_TRY(auto keys, co_await store_.Run([](Store& s) { return s.ListSigningKeys(); }));
  for (auto& key : keys) key.sealed_private.clear();
  co_return keys;
}

asio::awaitable<Result<SigningKeyRecord>> AuthorizationServer::RotateSigningKey() {
  AG_CO_TRY(auto key, NewKey());
  AG_CO_TRYV(co_await store_.Run([&](Store& s) { return s.AddSigningKey(key, false); }));
  {
    std::lock_guard lock(mutex_);
    keys_read_at_ms_ = -1;  // signed with here from the next token on
  }
  key.sealed_private.clear();
  co_return key;
}

asio::awaitable<Result<void>> AuthorizationServer::RevokeSigningKey(std::string kid) {
  AG_CO_TRY(const bool deleted,
            co_await store_.Run([&](Store& s) { return s.DeleteSigningKey(kid); }));
  if (!deleted) co_return Error(ErrorCode::kNotFound, "signing key '" + kid + "' not found");
  std::lock_guard lock(mutex_);
  keys_read_at_ms_ = -1;  // here at once: the next look reads the keys again
  opened_.erase(kid);
  std::erase_if(verified_, [&](const auto& entry) { return entry.second.kid == kid; });
  co_return Result<void>{};
}

std::size_t AuthorizationServer::VerifiedCountForTest() {
  std::lock_guard lock(mutex_);
  return verified_.size();
}

}  // namespace agentgate
