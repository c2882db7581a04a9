#include "app/gateway/crm_sessions.hpp"

#include "app/seal_contexts.hpp"

#include <boost/asio/as_tuple.hpp>
#include <boost/asio/co_spawn.hpp>
#include <boost/asio/detached.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/this_coro.hpp>
#include <boost/asio/use_awaitable.hpp>

namespace agentgate {
namespace {

namespace asio = boost::asio;
using std::chrono::milliseconds;

constexpr milliseconds kClaimMargin{30000};
constexpr int kClaimPolls = 50;  // 50 x 200 ms: how long to wait for another server's refresh
constexpr milliseconds kClaimPoll{200};

std::string Key(const std::string& org_id, const std::string& env) {
  return org_id + "\n" + env;
}

Error NotConfigured() {
  return Error(ErrorCode::kCrmNotConfigured,
               "no CRM credentials are configured for this environment");
}

// Salesforce refused the refresh token itself: sending it again cannot succeed.
bool IsRevokedGrant(const Error& error) {
  for (const auto& [key, value] : error.details) {
    if (key == "oauth_error" && std::get_if<std::string>(&value) != nullptr &&
        std::get<std::string>(value) == "invalid_grant")
      return true;
  }
  return false;
}

}  // namespace

// One opening of a session: its result, and a timer canceled when the result is in.
struct CrmSessions::Opening {
  explicit Opening(asio::any_io_executor ex)
      : done(std::move(ex), asio::steady_timer::time_point::max()) {}
  asio::steady_timer done;
  std::mutex mutex;
  std::optional<Result<Session>> result;
};

CrmSessions::CrmSessions(StoreRunner& store, TenantDirectory& tenants, HttpCaller& http,
                         std::optional<crypto::MasterKey> master_key, const Clock& clock,
                         CrmSessionOptions options)
    : store_(store),
      tenants_(tenants),
      http_(http),
      master_key_(master_key),
      clock_(clock),
      options_(options),
      holder_("server-" + crypto::RandomHex(8)) {}

asio::awaitable<Result<CrmSessions::Session>> CrmSessions::For(const std::string& org_id,
                                                               const std::string& env,
                                                               const std::string& failed_token,
                                                               const SpanContext* trace) {
  const std::string key = Key(org_id, env);
  // The stored version names the credentials in force. Versions only grow, so a session cached
  // from this version or a later one is current; an older one was replaced.
  AG_CO_TRY(const auto version, co_await tenants_.CrmCredentialVersion(org_id, env));
  if (!version) co_return NotConfigured();
  auto cached = [&]() -> std::optional<Session> {
    std::lock_guard lock(mutex_);
    auto it = sessions_.find(key);
    if (it == sessions_.end() || it->second.version < *version ||
        it->second.access_token == failed_token)
      return std::nullopt;
    return it->second;
  };
  if (auto s = cached()) co_return *s;
  // One opening at a time per credential in this server; the others then find its session.
  auto lease = co_await locks_.Acquire(key);
  if (!lease)
    co_return Error(ErrorCode::kUpstreamUnavailable,
                    "canceled while waiting for a session refresh");
  if (auto s = cached()) co_return *s;
  const auto executor = co_await asio::this_coro::executor;
  auto opening = std::make_shared<Opening>(executor);
  std::optional<SpanContext> parent;  // copied: the refresh may outlive this call
  if (trace != nullptr) parent = *trace;
  asio::co_spawn(executor,
                 OpenDetached(std::move(*lease), org_id, env, failed_token, opening, parent),
                 asio::detached);
  co_await opening->done.async_wait(asio::as_tuple(asio::use_awaitable));
  std::lock_guard lock(opening->mutex);
  if (!opening->result)  // this call ended (its turn's cap, its deadline); the refresh goes on
    co_return Error(ErrorCode::kUpstreamUnavailable,
                    "canceled while the CRM session was being opened");
  co_return *opening->result;
}

asio::awaitable<void> CrmSessions::OpenDetached([[maybe_unused]] ConversationQueue::Lease lease,
                                                std::string org_id, std::string env,
                                                std::string failed_token,
                                                std::shared_ptr<Opening> opening,
                                                std::optional<SpanContext> trace) {
  const SpanContext* parent = trace ? &*trace : nullptr;
  auto session = co_await Open(org_id, env, failed_token, parent);
  if (session) {
    std::lock_guard lock(mutex_);
    auto& slot = sessions_[Key(org_id, env)];
    if (slot.version <= session->version) slot = *session;
  }
  {
    std::lock_guard lock(opening->mutex);
    opening->result = std::move(session);
  }
  asio::post(opening->done.get_executor(), [opening] { opening->done.cancel(); });
  // The lease ends with this coroutine: the next caller waiting on the credential finds the
  // session cached.
}

std::optional<Error> CrmSessions::RememberedRefusal(const std::string& key, std::int64_t version) {
  std::lock_guard lock(mutex_);
  auto it = refused_.find(key);
  if (it == refused_.end()) return std::nullopt;
  if (it->second.version != version || clock_.SteadyNow() >= it->second.until) {
    refused_.erase(it);  // new credentials, or time to try again
    return std::nullopt;
  }
  return it->second.error;
}

void CrmSessions::Remember(const std::string& key, std::int64_t version, const Error& error) {
  std::lock_guard lock(mutex_);
  refused_[key] = Refused{version, error, clock_.SteadyNow() + options_.failure_memory};
}

asio::awaitable<Result<CrmSessions::Stored>> CrmSessions::Load(const std::string& org_id,
                                                               const std::string& env) {
  AG_CO_TRY(auto record,
            co_await store_.Run([&](Store& s) { return s.GetCrmCredential(org_id, env); }));
  if (!record) co_return NotConfigured();
  if (!master_key_)
    co_return Error(ErrorCode::kCrmNotConfigured,
                    "the server has no master key to open CRM credentials");
  auto opened = crypto::Open(*master_key_, record->sealed, CrmSealContext(org_id, env));
  if (!opened)
    co_return Error(ErrorCode::kCrmNotConfigured, "the stored CRM credentials cannot be opened");
  AG_CO_TRY(auto credentials, DeserializeCrmCredentials(*opened));
  co_return Stored{std::move(credentials), record->version};
}

asio::awaitable<Result<std::optional<std::int64_t>>> CrmSessions::Save(
    const std::string& org_id, const std::string& env, const CrmCredentials& credentials,
    std::int64_t version) {
  const CrmCredentialRecord record{
      org_id, env,
      crypto::Seal(*master_key_, SerializeCrmCredentials(credentials), CrmSealContext(org_id, env)),
      clock_.NowMs()};
  co_return co_await store_.Run(
      [&](Store& s) { return s.SaveRefreshedCrmCredential(record, version); });
}

bool CrmSessions::Usable(const CrmCredentials& c, const std::string& failed_token) const {
  return !c.access_token.empty() && c.access_token != failed_token &&
         IsAllowedCrmUrl(c.instance_url, options_.allow_http);
}

asio::awaitable<Result<CrmSessions::Session>> CrmSessions::Open(const std::string& org_id,
                                                                const std::string& env,
                                                                const std::string& failed_token,
                                                                const SpanContext* trace) {
  // A second pass only when the operator replaced the credentials while this one refreshed.
  for (int pass = 0;; ++pass) {
    AG_CO_TRY(auto stored, co_await Load(org_id, env));
    const bool refreshable = !stored.credentials.refresh_token.empty();
    if (refreshable && !Usable(stored.credentials, failed_token)) {
      if (!IsAllowedCrmUrl(stored.credentials.login_url, options_.allow_http))
        co_return Error(ErrorCode::kCrmNotConfigured,
                        "the stored login_url is not https (crm.allow_http is off); put new "
                        "credentials");
      // A refresh token Salesforce refused stays refused: don't send it again for a while.
      if (auto refused = RememberedRefusal(Key(org_id, env), stored.version)) co_return *refused;
      AG_CO_TRY(const bool claimed, co_await ClaimRefresh(org_id, env, failed_token, stored));
      if (!Usable(stored.credentials, failed_token)) {
        if (!claimed)
          co_return Error(ErrorCode::kCrmAuthFailed,
                          "another server is refreshing the CRM session; retry");
        AG_CO_TRY(const auto saved, co_await RefreshClaimed(org_id, env, stored, trace));
        if (!saved) {
          if (pass == 0) continue;  // replaced meanwhile: what the operator put wins
          co_return Error(ErrorCode::kCrmAuthFailed,
                          "the CRM credentials changed during the refresh; retry");
        }
        stored.version = *saved;
      } else if (claimed) {
        co_await store_.Run([&](Store& s) { return s.ReleaseCrmRefresh(org_id, env, holder_); });
      }
    }
    co_return SessionOf(stored, refreshable);
  }
}

asio::awaitable<Result<bool>> CrmSessions::ClaimRefresh(const std::string& org_id,
                                                        const std::string& env,
                                                        const std::string& failed_token,
                                                        Stored& stored) {
  // The claim outlives the longest refresh (one request to the token endpoint, then the save).
  const std::int64_t claim_ms = (options_.upstream_timeout + kClaimMargin).count();
  bool claimed = false;
  for (int poll = 0; poll < kClaimPolls && !claimed; ++poll) {
    const std::int64_t now = clock_.NowMs();
    AG_CO_TRY(claimed, co_await store_.Run([&](Store& s) {
      return s.ClaimCrmRefresh(org_id, env, holder_, now, claim_ms);
    }));
    AG_CO_TRY(stored, co_await Load(org_id, env));  // another server may have just refreshed
    if (Usable(stored.credentials, failed_token)) break;
    if (!claimed) {
      asio::steady_timer wait(co_await asio::this_coro::executor, kClaimPoll);
      co_await wait.async_wait(asio::use_awaitable);
    }
  }
  co_return claimed;
}

asio::awaitable<Result<std::optional<std::int64_t>>> CrmSessions::RefreshClaimed(
    const std::string& org_id, const std::string& env, Stored& stored, const SpanContext* trace) {
  CrmCredentials& credentials = stored.credentials;
  Result<std::optional<std::int64_t>> saved = std::optional<std::int64_t>{};
  auto grant = co_await Refresh(credentials, trace);
  if (grant) {
    // A rotated refresh token is kept even when the grant is refused: the old one is spent.
    if (!grant->rotated_refresh_token.empty())
      credentials.refresh_token = grant->rotated_refresh_token;
    if (IsAllowedCrmUrl(grant->instance_url, options_.allow_http)) {
      credentials.access_token = grant->access_token;
      credentials.instance_url = grant->instance_url;
    } else {
      credentials.access_token.clear();
      grant = Error(ErrorCode::kCrmAuthFailed,
                    "the OAuth token endpoint answered with an instance_url that is not "
                    "https; refused (crm.allow_http is off)");
    }
    saved = co_await Save(org_id, env, credentials, stored.version);
  }
  co_await store_.Run([&](Store& s) { return s.ReleaseCrmRefresh(org_id, env, holder_); });
  // For the operator's console: when the last refresh ran and why it failed, if it did.
  const std::string outcome = grant ? "" : grant.error().message;
  const std::int64_t refreshed_at = clock_.NowMs();
  co_await store_.Run(
      [&](Store& s) { return s.RecordCrmRefresh(org_id, env, refreshed_at, outcome); });
  if (!grant) {
    if (IsRevokedGrant(grant.error())) Remember(Key(org_id, env), stored.version, grant.error());
    co_return grant.error();
  }
  co_return saved;
}

Result<CrmSessions::Session> CrmSessions::SessionOf(const Stored& stored, bool refreshable) const {
  const CrmCredentials& credentials = stored.credentials;
  if (credentials.access_token.empty())
    return Error(ErrorCode::kCrmAuthFailed, "the CRM credentials hold no usable session");
  if (!IsAllowedCrmUrl(credentials.instance_url, options_.allow_http))
    return Error(ErrorCode::kCrmNotConfigured,
                 "the stored instance_url is not https (crm.allow_http is off); put new "
                 "credentials");
  Session session{credentials.instance_url, credentials.access_token, refreshable, stored.version};
  while (!session.instance_url.empty() && session.instance_url.back() == '/')
    session.instance_url.pop_back();
  return session;
}

asio::awaitable<Result<OAuthGrant>> CrmSessions::Refresh(const CrmCredentials& c,
                                                         const SpanContext* trace) {
  ++refreshes_;
  OAuthRefreshRequest refresh = RefreshRequestFor(c);
  HttpClientRequest request;
  request.method = "POST";
  request.url = std::move(refresh.url);
  request.timeout = options_.upstream_timeout;
  request.headers = {{"content-type", "application/x-www-form-urlencoded"},
                     {"accept", "application/json"}};
  request.body = std::move(refresh.form_body);
  // Its span names the token endpoint's host and the outcome; never the form (it holds secrets).
  Span span;
  if (options_.tracer != nullptr && trace != nullptr) {
    span = options_.tracer->Start("oauth_refresh", tracing::SpanKind::kClient, trace);
    if (span.recording()) {
      span.Set("http.request.method", std::string("POST"));
      DescribeServer(span, request.url);
    }
    if (const auto* context = span.context_ptr())
      request.headers.emplace_back("traceparent", context->Traceparent());
  }
  auto response = co_await http_.Send(std::move(request));
  Result<OAuthGrant> grant =
      response ? ParseRefreshAnswer(response->status, response->body)
               : Result<OAuthGrant>(Error(ErrorCode::kCrmAuthFailed,
                                          "the OAuth refresh failed: " + response.error().message));
  if (span.recording()) {
    if (response) span.Set("http.response.status_code", std::int64_t{response->status});
    if (!grant) {
      const std::string kind = IsRevokedGrant(grant.error()) ? "invalid_grant" : "refresh_failed";
      span.Set("error.type", kind);
      span.Fail(kind);
    }
  }
  co_return grant;
}

}  // namespace agentgate
