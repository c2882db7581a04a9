#pragma once
// POST /api/metadata-gateway as a use case (SPEC §7): forwards one normalised call to the org's
// Salesforce instance with the (org, env) credentials and returns the envelope.
//
// Sessions: the access token is cached per (org, env). A refresh is single-flight in this server
// (an async lock per credential, then a second look at the cache) and claimed in the store across
// servers, because a rotated refresh token works once. A refreshed instance_url, access token and
// rotated refresh token are sealed back into the store. INVALID_SESSION_ID (REST 401 or SOAP fault)
// triggers one refresh and exactly one retry; invalid_grant is never retried.

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

class MetadataGateway {
 public:
  MetadataGateway(StoreRunner& store, HttpCaller& http, std::optional<crypto::MasterKey> master_key,
                  const Clock& clock, Metrics& metrics, std::chrono::milliseconds upstream_timeout);

  boost::asio::awaitable<Result<GatewayEnvelope>> Forward(const std::string& org_id,
                                                          const std::string& env, GatewayCall call);

  // OAuth refreshes performed by this server (tests check single-flight).
  int refreshes() const { return refreshes_; }

 private:
  struct Session {
    std::string instance_url;
    std::string access_token;
    bool refreshable = false;
  };

  boost::asio::awaitable<Result<CrmCredentials>> Load(const std::string& org_id,
                                                      const std::string& env);
  boost::asio::awaitable<Result<void>> Save(const std::string& org_id, const std::string& env,
                                            const CrmCredentials& credentials);
  // A usable session; never the one whose token is `failed_token` (empty: any).
  boost::asio::awaitable<Result<Session>> SessionFor(const std::string& org_id,
                                                     const std::string& env,
                                                     const std::string& failed_token);
  boost::asio::awaitable<Result<CrmCredentials>> Refresh(CrmCredentials credentials);
  boost::asio::awaitable<Result<HttpClientResponse>> Send(const GatewayCall& call,
                                                          const Session& session);

  StoreRunner& store_;
  HttpCaller& http_;
  std::optional<crypto::MasterKey> master_key_;
  const Clock& clock_;
  Metrics& metrics_;
  std::chrono::milliseconds timeout_;
  const std::string holder_;         // this server's name in refresh claims
  ConversationQueue refresh_locks_;  // an async lock per credential
  std::mutex mutex_;
  std::map<std::string, Session> sessions_;
  std::atomic<int> refreshes_{0};
};

}  // namespace agentgate
