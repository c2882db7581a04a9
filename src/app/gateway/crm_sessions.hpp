#pragma once
// Salesforce sessions per (org, env), for the metadata gateway (SPEC §7).
//
// A session is cached per stored credential version, which every call looks up in the tenant
// directory: credentials the operator replaces are used from the next call on this server, and
// within 1 s on every other. Opening one (the OAuth
// refresh) is single-flight in this server and claimed in the store across servers, because a
// rotated refresh token works once; the claim outlives the longest refresh. A refreshed
// instance_url, access token and rotated refresh token are sealed back into the store, unless the
// operator replaced the credentials meanwhile.
//
// A refresh runs detached from the call that started it: a caller whose turn or deadline ends
// stops waiting, but the refresh, its save and the claim's release complete, so a refresh token
// Salesforce rotated is never lost. A refresh token Salesforce refused (invalid_grant) is not sent
// again for `failure_memory`, unless the credentials change. CRM URLs are https unless
// [crm] allow_http; a token endpoint's http instance_url is refused.

#include "app/access/tenant_directory.hpp"
#include "crypto/crypto.hpp"
#include "domain/admin/admin_requests.hpp"
#include "domain/gateway/oauth_refresh.hpp"
#include "ports/clock.hpp"
#include "ports/http_caller.hpp"
#include "runtime/conversation_queue.hpp"
#include "runtime/store_runner.hpp"
#include "runtime/tracer.hpp"

#include <atomic>
#include <chrono>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>

namespace agentgate {

struct CrmSessionOptions {
  std::chrono::milliseconds upstream_timeout{60000};  // one request to Salesforce
  bool allow_http = false;                            // [crm] allow_http (test orgs only)
  std::chrono::milliseconds failure_memory{30000};    // how long an invalid_grant is remembered
  const Tracer* tracer = nullptr;                     // none: refreshes are not traced
};

class CrmSessions {
 public:
  struct Session {
    std::string instance_url;  // without a trailing slash
    std::string access_token;
    bool refreshable = false;
    std::int64_t version = 0;  // of the stored credentials it came from
  };

  CrmSessions(StoreRunner& store, TenantDirectory& tenants, HttpCaller& http,
              std::optional<crypto::MasterKey> master_key, const Clock& clock,
              CrmSessionOptions options);

  // A usable session; never the one whose token is `failed_token` (empty: any). `trace`: the span
  // an OAuth refresh this call starts goes under.
  boost::asio::awaitable<Result<Session>> For(const std::string& org_id, const std::string& env,
                                              const std::string& failed_token,
                                              const SpanContext* trace = nullptr);

  // OAuth refreshes performed by this server (tests check single-flight).
  int refreshes() const { return refreshes_; }

 private:
  struct Stored {
    CrmCredentials credentials;
    std::int64_t version = 0;
  };
  // An invalid_grant, remembered for the credential version that got it.
  struct Refused {
    std::int64_t version = 0;
    Error error;
    SteadyTime until;
  };
  struct Opening;

  boost::asio::awaitable<Result<Stored>> Load(const std::string& org_id, const std::string& env);
  // The new version, or nullopt when the operator replaced the credentials since `version`.
  boost::asio::awaitable<Result<std::optional<std::int64_t>>> Save(
      const std::string& org_id, const std::string& env, const CrmCredentials& credentials,
      std::int64_t version);
  // Opens a session under this server's lease on the credential, detached from any caller.
  boost::asio::awaitable<void> OpenDetached(ConversationQueue::Lease lease, std::string org_id,
                                            std::string env, std::string failed_token,
                                            std::shared_ptr<Opening> opening,
                                            std::optional<SpanContext> trace);
  boost::asio::awaitable<Result<Session>> Open(const std::string& org_id, const std::string& env,
                                               const std::string& failed_token,
                                               const SpanContext* trace);
  // Open's steps. Usable: a session to use, not the one that just failed. ClaimRefresh: claims
  // the refresh across servers, or waits for the server that holds the claim (`stored` reloaded:
  // another server may have refreshed). RefreshClaimed: refreshes, saves, releases the claim and
  // records the outcome; the new version, none when the operator replaced the credentials
  // meanwhile. SessionOf: the session the credentials hold.
  bool Usable(const CrmCredentials& c, const std::string& failed_token) const;
  boost::asio::awaitable<Result<bool>> ClaimRefresh(const std::string& org_id,
                                                    const std::string& env,
                                                    const std::string& failed_token,
                                                    Stored& stored);
  boost::asio::awaitable<Result<std::optional<std::int64_t>>> RefreshClaimed(
      const std::string& org_id, const std::string& env, Stored& stored, const SpanContext* trace);
  Result<Session> SessionOf(const Stored& stored, bool refreshable) const;
  boost::asio::awaitable<Result<OAuthGrant>> Refresh(const CrmCredentials& credentials,
                                                     const SpanContext* trace);
  std::optional<Error> RememberedRefusal(const std::string& key, std::int64_t version);
  void Remember(const std::string& key, std::int64_t version, const Error& error);

  StoreRunner& store_;
  TenantDirectory& tenants_;
  HttpCaller& http_;
  std::optional<crypto::MasterKey> master_key_;
  const Clock& clock_;
  CrmSessionOptions options_;
  const std::string holder_;  // this server's name in refresh claims
  ConversationQueue locks_;   // an async lock per credential
  std::mutex mutex_;
  std::map<std::string, Session> sessions_;  // one per (org, env) with credentials
  std::map<std::string, Refused> refused_;   // one per (org, env) whose refresh token died
  std::atomic<int> refreshes_{0};
};

}  // namespace agentgate
