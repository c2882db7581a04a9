#pragma once
// POST /api/metadata-gateway as a use case (SPEC §7): forwards one normalised call to the org's
// Salesforce instance with the (org, env) credentials and returns the envelope.
//
// Sessions: the access token is cached per (org, env) and per stored credential version, which
// every call reads: credentials the operator replaces are used from the next call on, on every
// server. A refresh is single-flight in this server (an async lock per credential, then a second
// look at the cache) and claimed in the store across servers, because a rotated refresh token
// works once. A refreshed instance_url, access token and rotated refresh token are sealed back into
// the store, unless the operator replaced the credentials meanwhile. INVALID_SESSION_ID (REST 401
// or SOAP fault) triggers one refresh and exactly one retry; invalid_grant is never retried. CRM
// URLs are https unless [crm] allow_http; a token endpoint's http instance_url is refused.

#include "app/conversation_queue.hpp"
#include "app/store_runner.hpp"
#include "crypto/crypto.hpp"
#include "domain/admin/admin_requests.hpp"
#include "domain/gateway/envelope.hpp"
#include "domain/gateway/gateway_request.hpp"
#include "observability/metrics.hpp"
#include "ports/clock.hpp"
#include "ports/http_caller.hpp"

#include <chrono>
#include <map>
#include <mutex>
#include <optional>

namespace agentgate {

struct GatewayOptions {
  std::chrono::milliseconds upstream_timeout{60000};
  bool allow_http = false;  // [crm] allow_http: plain-http CRM URLs (test orgs only)
};

class MetadataGateway {
 public:
  MetadataGateway(StoreRunner& store, HttpCaller& http, std::optional<crypto::MasterKey> master_key,
                  const Clock& clock, Metrics& metrics, GatewayOptions options);

  boost::asio::awaitable<Result<GatewayEnvelope>> Forward(const std::string& org_id,
                                                          const std::string& env, GatewayCall call);

  // OAuth refreshes performed by this server (tests check single-flight).
  int refreshes() const { return refreshes_; }

 private:
  struct Session {
    std::string instance_url;
    std::string access_token;
    bool refreshable = false;
    std::int64_t version = 0;  // of the stored credentials it came from
  };
  struct Stored {
    CrmCredentials credentials;
    std::int64_t version = 0;
  };
  // What the OAuth token endpoint granted.
  struct Grant {
    std::string access_token;
    std::string instance_url;
    std::string rotated_refresh_token;  // empty when the refresh token was not rotated
  };

  boost::asio::awaitable<Result<Stored>> Load(const std::string& org_id, const std::string& env);
  // The new version, or nullopt when the operator replaced the credentials since `version`.
  boost::asio::awaitable<Result<std::optional<std::int64_t>>> Save(
      const std::string& org_id, const std::string& env, const CrmCredentials& credentials,
      std::int64_t version);
  // A usable session; never the one whose token is `failed_token` (empty: any).
  boost::asio::awaitable<Result<Session>> SessionFor(const std::string& org_id,
                                                     const std::string& env,
                                                     const std::string& failed_token);
  // SessionFor without the cache, under this server's lock on the credential.
  boost::asio::awaitable<Result<Session>> OpenSession(const std::string& org_id,
                                                      const std::string& env,
                                                      const std::string& failed_token);
  boost::asio::awaitable<Result<Grant>> Refresh(const CrmCredentials& credentials);
  boost::asio::awaitable<Result<HttpClientResponse>> Send(const GatewayCall& call,
                                                          const Session& session);

  StoreRunner& store_;
  HttpCaller& http_;
  std::optional<crypto::MasterKey> master_key_;
  const Clock& clock_;
  Metrics& metrics_;
  GatewayOptions options_;
  const std::string holder_;         // this server's name in refresh claims
  ConversationQueue refresh_locks_;  // an async lock per credential
  std::mutex mutex_;
  std::map<std::string, Session> sessions_;
  std::atomic<int> refreshes_{0};
};

}  // namespace agentgate
