#include "app/metadata_gateway.hpp"

#include "app/admin_service.hpp"
#include "domain/gateway/soap.hpp"
#include "domain/url_encoding.hpp"

#include <boost/asio/steady_timer.hpp>
#include <boost/asio/this_coro.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <boost/json/parse.hpp>

namespace agentgate {
namespace {

namespace asio = boost::asio;
using std::chrono::milliseconds;

constexpr std::int64_t kRefreshClaimMs = 30000;
constexpr int kClaimPolls = 50;  // 50 x 200 ms: how long to wait for another server's refresh
constexpr milliseconds kClaimPoll{200};

std::string Key(const std::string& org_id, const std::string& env) {
  return org_id + "\n" + env;
}

Error NotConfigured() {
  return Error(ErrorCode::kCrmNotConfigured,
               "no CRM credentials are configured for this environment");
}

bool InvalidSession(const GatewayCall& call, const HttpClientResponse& response) {
  if (call.kind == GatewayCall::Kind::kDeleteMetadata) {
    if (response.status != 500) return false;
    auto parsed = soap::ParseDeleteMetadataResponse(response.body);
    return parsed && parsed->invalid_session;
  }
  return response.status == 401 && response.body.find("INVALID_SESSION_ID") != std::string::npos;
}

}  // namespace

MetadataGateway::MetadataGateway(StoreRunner& store, HttpCaller& http,
                                 std::optional<crypto::MasterKey> master_key, const Clock& clock,
                                 Metrics& metrics, GatewayOptions options)
    : store_(store),
      http_(http),
      master_key_(master_key),
      clock_(clock),
      metrics_(metrics),
      options_(options),
      holder_("server-" + crypto::RandomHex(8)) {}

asio::awaitable<Result<MetadataGateway::Stored>> MetadataGateway::Load(const std::string& org_id,
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

asio::awaitable<Result<std::optional<std::int64_t>>> MetadataGateway::Save(
    const std::string& org_id, const std::string& env, const CrmCredentials& credentials,
    std::int64_t version) {
  const CrmCredentialRecord record{
      org_id, env,
      crypto::Seal(*master_key_, SerializeCrmCredentials(credentials), CrmSealContext(org_id, env)),
      clock_.NowMs()};
  co_return co_await store_.Run(
      [&](Store& s) { return s.SaveRefreshedCrmCredential(record, version); });
}

asio::awaitable<Result<MetadataGateway::Session>> MetadataGateway::SessionFor(
    const std::string& org_id, const std::string& env, const std::string& failed_token) {
  const std::string key = Key(org_id, env);
  // The stored version names the credentials in force. Versions only grow, so a session cached
  // from this version or a later one is current; an older one was replaced.
  AG_CO_TRY(const auto version,
            co_await store_.Run([&](Store& s) { return s.GetCrmCredentialVersion(org_id, env); }));
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
  // One refresh at a time per credential in this server; the others then find its session.
  auto lease = co_await refresh_locks_.Acquire(key);
  if (!lease)
    co_return Error(ErrorCode::kUpstreamUnavailable,
                    "canceled while waiting for a session refresh");
  if (auto s = cached()) co_return *s;
  AG_CO_TRY(auto session, co_await OpenSession(org_id, env, failed_token));
  std::lock_guard lock(mutex_);
  auto& slot = sessions_[key];
  if (slot.version <= session.version) slot = session;
  co_return session;
}

asio::awaitable<Result<MetadataGateway::Session>> MetadataGateway::OpenSession(
    const std::string& org_id, const std::string& env, const std::string& failed_token) {
  const bool allow_http = options_.allow_http;
  auto usable = [&](const CrmCredentials& c) {
    return !c.access_token.empty() && c.access_token != failed_token &&
           IsAllowedCrmUrl(c.instance_url, allow_http);
  };
  // A second pass only when the operator replaced the credentials while this one refreshed.
  for (int pass = 0;; ++pass) {
    AG_CO_TRY(auto stored, co_await Load(org_id, env));
    auto& credentials = stored.credentials;
    const bool refreshable = !credentials.refresh_token.empty();
    if (refreshable && !usable(credentials)) {
      if (!IsAllowedCrmUrl(credentials.login_url, allow_http))
        co_return Error(ErrorCode::kCrmNotConfigured,
                        "the stored login_url is not https (crm.allow_http is off); put new "
                        "credentials");
      // Across servers: claim the refresh, or wait for the server that holds the claim.
      bool claimed = false;
      for (int poll = 0; poll < kClaimPolls && !claimed; ++poll) {
        const std::int64_t now = clock_.NowMs();
        AG_CO_TRY(claimed, co_await store_.Run([&](Store& s) {
          return s.ClaimCrmRefresh(org_id, env, holder_, now, kRefreshClaimMs);
        }));
        AG_CO_TRY(stored, co_await Load(org_id, env));  // another server may have just refreshed
        if (usable(credentials)) break;
        if (!claimed) {
          asio::steady_timer wait(co_await asio::this_coro::executor, kClaimPoll);
          co_await wait.async_wait(asio::use_awaitable);
        }
      }
      if (!usable(credentials)) {
        if (!claimed)
          co_return Error(ErrorCode::kCrmAuthFailed,
                          "another server is refreshing the CRM session; retry");
        Result<std::optional<std::int64_t>> saved = std::optional<std::int64_t>{};
        auto grant = co_await Refresh(credentials);
        if (grant) {
          // A rotated refresh token is kept even when the grant is refused: the old one is spent.
          if (!grant->rotated_refresh_token.empty())
            credentials.refresh_token = grant->rotated_refresh_token;
          if (IsAllowedCrmUrl(grant->instance_url, allow_http)) {
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
        if (!grant) co_return grant.error();
        if (!saved) co_return saved.error();
        if (!*saved) {
          if (pass == 0) continue;  // replaced meanwhile: what the operator put wins
          co_return Error(ErrorCode::kCrmAuthFailed,
                          "the CRM credentials changed during the refresh; retry");
        }
        stored.version = **saved;
      } else if (claimed) {
        co_await store_.Run([&](Store& s) { return s.ReleaseCrmRefresh(org_id, env, holder_); });
      }
    }
    if (credentials.access_token.empty())
      co_return Error(ErrorCode::kCrmAuthFailed, "the CRM credentials hold no usable session");
    if (!IsAllowedCrmUrl(credentials.instance_url, allow_http))
      co_return Error(ErrorCode::kCrmNotConfigured,
                      "the stored instance_url is not https (crm.allow_http is off); put new "
                      "credentials");
    Session session{credentials.instance_url, credentials.access_token, refreshable,
                    stored.version};
    while (!session.instance_url.empty() && session.instance_url.back() == '/')
      session.instance_url.pop_back();
    co_return session;
  }
}

asio::awaitable<Result<MetadataGateway::Grant>> MetadataGateway::Refresh(const CrmCredentials& c) {
  ++refreshes_;
  std::string login = c.login_url;
  while (!login.empty() && login.back() == '/') login.pop_back();
  HttpClientRequest request;
  request.method = "POST";
  request.url = login + "/services/oauth2/token";
  request.timeout = options_.upstream_timeout;
  request.headers = {{"content-type", "application/x-www-form-urlencoded"},
                     {"accept", "application/json"}};
  request.body =
      "grant_type=refresh_token&client_id=" + PercentEncode(c.client_id) +
      (c.client_secret.empty() ? "" : "&client_secret=" + PercentEncode(c.client_secret)) +
      "&refresh_token=" + PercentEncode(c.refresh_token);
  auto response = co_await http_.Send(std::move(request));
  if (!response)
    co_return Error(ErrorCode::kCrmAuthFailed,
                    "the OAuth refresh failed: " + response.error().message);
  boost::system::error_code ec;
  const auto json = boost::json::parse(response->body, ec);
  const auto field = [&](const char* name) -> std::string {
    if (ec || !json.is_object()) return "";
    const auto* v = json.as_object().if_contains(name);
    return v != nullptr && v->is_string() ? std::string(v->get_string()) : "";
  };
  if (response->status != 200) {
    // Salesforce's error and description only; never the request's secrets.
    const std::string error = field("error");
    co_return Error(ErrorCode::kCrmAuthFailed,
                    "the OAuth refresh failed: HTTP " + std::to_string(response->status) +
                        (error.empty() ? "" : ": " + error + ": " + field("error_description")));
  }
  Grant grant{field("access_token"), field("instance_url"), field("refresh_token")};
  if (grant.access_token.empty() || grant.instance_url.empty()) {
    co_return Error(ErrorCode::kCrmAuthFailed,
                    "the OAuth refresh answered without access_token and instance_url");
  }
  co_return grant;
}

asio::awaitable<Result<HttpClientResponse>> MetadataGateway::Send(const GatewayCall& call,
                                                                  const Session& session) {
  HttpClientRequest request;
  request.method = call.kind == GatewayCall::Kind::kDeleteMetadata ? "POST" : call.method;
  request.url = session.instance_url + call.path;  // always the credential's instance
  request.timeout = options_.upstream_timeout;
  if (call.kind == GatewayCall::Kind::kDeleteMetadata) {
    request.headers = {{"content-type", "text/xml; charset=UTF-8"}, {"soapaction", "\"\""}};
    request.body =
        soap::DeleteMetadataEnvelope(session.access_token, call.metadata_type, call.full_name);
  } else {
    request.headers = {{"authorization", "Bearer " + session.access_token},
                       {"accept", "application/json"}};
    if (call.body_json) {
      request.headers.emplace_back("content-type", "application/json");
      request.body = *call.body_json;
    }
  }
  const auto started = std::chrono::steady_clock::now();
  auto response = co_await http_.Send(std::move(request));
  metrics_.Observe(
      "agentgate_gateway_upstream_duration_seconds", {},
      std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count());
  if (!response)
    co_return Error(ErrorCode::kUpstreamUnavailable,
                    "the CRM platform did not answer: " + response.error().message);
  co_return std::move(*response);
}

asio::awaitable<Result<GatewayEnvelope>> MetadataGateway::Forward(const std::string& org_id,
                                                                  const std::string& env,
                                                                  GatewayCall call) {
  AG_CO_TRY(auto session, co_await SessionFor(org_id, env, ""));
  AG_CO_TRY(auto response, co_await Send(call, session));
  if (InvalidSession(call, response) && session.refreshable) {
    AG_CO_TRY(session, co_await SessionFor(org_id, env, session.access_token));
    AG_CO_TRY(response, co_await Send(call, session));  // exactly one retry
  }
  GatewayEnvelope envelope;
  envelope.status = response.status;
  envelope.endpoint = call.path;
  if (auto id = response.Header("x-request-id"))
    envelope.platform_request_id = std::string(*id);
  else if (auto sfdc = response.Header("x-sfdc-request-id"))
    envelope.platform_request_id = std::string(*sfdc);
  if (call.kind == GatewayCall::Kind::kDeleteMetadata) {
    auto parsed = soap::ParseDeleteMetadataResponse(response.body);
    envelope.platform_response =
        parsed ? parsed->platform_response : PlatformResponseOf(response.status, response.body);
    envelope.ok = response.status == 200 && parsed && parsed->success;
  } else {
    envelope.platform_response = PlatformResponseOf(response.status, response.body);
    envelope.ok = response.status >= 200 && response.status < 300;
  }
  co_return envelope;
}

}  // namespace agentgate
