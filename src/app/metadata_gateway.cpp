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

bool IsHttpUrl(const std::string& s) {
  return s.starts_with("https://") || s.starts_with("http://");
}

std::string Key(const std::string& org_id, const std::string& env) {
  return org_id + "\n" + env;
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
                                 Metrics& metrics, milliseconds upstream_timeout)
    : store_(store),
      http_(http),
      master_key_(master_key),
      clock_(clock),
      metrics_(metrics),
      timeout_(upstream_timeout),
      holder_("server-" + crypto::RandomHex(8)) {}

asio::awaitable<Result<CrmCredentials>> MetadataGateway::Load(const std::string& org_id,
                                                              const std::string& env) {
  AG_CO_TRY(auto record,
            co_await store_.Run([&](Store& s) { return s.GetCrmCredential(org_id, env); }));
  if (!record)
    co_return Error(ErrorCode::kCrmNotConfigured,
                    "no CRM credentials are configured for this environment");
  if (!master_key_)
    co_return Error(ErrorCode::kCrmNotConfigured,
                    "the server has no master key to open CRM credentials");
  auto opened = crypto::Open(*master_key_, record->sealed, CrmSealContext(org_id, env));
  if (!opened)
    co_return Error(ErrorCode::kCrmNotConfigured, "the stored CRM credentials cannot be opened");
  co_return DeserializeCrmCredentials(*opened);
}

asio::awaitable<Result<void>> MetadataGateway::Save(const std::string& org_id,
                                                    const std::string& env,
                                                    const CrmCredentials& credentials) {
  const CrmCredentialRecord record{
      org_id, env,
      crypto::Seal(*master_key_, SerializeCrmCredentials(credentials), CrmSealContext(org_id, env)),
      clock_.NowMs()};
  co_return co_await store_.Run([&](Store& s) { return s.PutCrmCredential(record); });
}

asio::awaitable<Result<MetadataGateway::Session>> MetadataGateway::SessionFor(
    const std::string& org_id, const std::string& env, const std::string& failed_token) {
  const std::string key = Key(org_id, env);
  auto cached = [&]() -> std::optional<Session> {
    std::lock_guard lock(mutex_);
    auto it = sessions_.find(key);
    if (it == sessions_.end() || it->second.access_token == failed_token) return std::nullopt;
    return it->second;
  };
  if (auto s = cached()) co_return *s;
  // One refresh at a time per credential in this server; the others then find its session.
  auto lease = co_await refresh_locks_.Acquire(key);
  if (!lease)
    co_return Error(ErrorCode::kUpstreamUnavailable,
                    "canceled while waiting for a session refresh");
  if (auto s = cached()) co_return *s;

  AG_CO_TRY(auto credentials, co_await Load(org_id, env));
  const bool refreshable = !credentials.refresh_token.empty();
  auto usable = [&](const CrmCredentials& c) {
    return !c.access_token.empty() && c.access_token != failed_token && IsHttpUrl(c.instance_url);
  };
  if (!usable(credentials) && refreshable) {
    // Across servers: claim the refresh, or wait for the server that holds the claim.
    bool claimed = false;
    for (int poll = 0; poll < kClaimPolls && !claimed; ++poll) {
      const std::int64_t now = clock_.NowMs();
      AG_CO_TRY(claimed, co_await store_.Run([&](Store& s) {
        return s.ClaimCrmRefresh(org_id, env, holder_, now, kRefreshClaimMs);
      }));
      AG_CO_TRY(credentials, co_await Load(org_id, env));  // another server may have just refreshed
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
      auto refreshed = co_await Refresh(credentials);
      if (refreshed) {
        credentials = std::move(*refreshed);
        auto saved = co_await Save(org_id, env, credentials);
        if (!saved) refreshed = saved.error();
      }
      co_await store_.Run([&](Store& s) { return s.ReleaseCrmRefresh(org_id, env, holder_); });
      if (!refreshed) co_return refreshed.error();
    } else if (claimed) {
      co_await store_.Run([&](Store& s) { return s.ReleaseCrmRefresh(org_id, env, holder_); });
    }
  }
  if (!usable(credentials) &&
      (credentials.access_token.empty() || !IsHttpUrl(credentials.instance_url))) {
    co_return Error(ErrorCode::kCrmAuthFailed, "the CRM credentials hold no usable session");
  }
  Session session{credentials.instance_url, credentials.access_token, refreshable};
  while (!session.instance_url.empty() && session.instance_url.back() == '/')
    session.instance_url.pop_back();
  std::lock_guard lock(mutex_);
  sessions_[key] = session;
  co_return session;
}

asio::awaitable<Result<CrmCredentials>> MetadataGateway::Refresh(CrmCredentials c) {
  ++refreshes_;
  std::string login = c.login_url;
  while (!login.empty() && login.back() == '/') login.pop_back();
  HttpClientRequest request;
  request.method = "POST";
  request.url = login + "/services/oauth2/token";
  request.timeout = timeout_;
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
  if (field("access_token").empty() || !IsHttpUrl(field("instance_url"))) {
    co_return Error(ErrorCode::kCrmAuthFailed,
                    "the OAuth refresh answered without access_token and instance_url");
  }
  c.access_token = field("access_token");
  c.instance_url = field("instance_url");
  if (!field("refresh_token").empty())
    c.refresh_token = field("refresh_token");  // rotation: the old one is spent
  co_return c;
}

asio::awaitable<Result<HttpClientResponse>> MetadataGateway::Send(const GatewayCall& call,
                                                                  const Session& session) {
  HttpClientRequest request;
  request.method = call.kind == GatewayCall::Kind::kDeleteMetadata ? "POST" : call.method;
  request.url = session.instance_url + call.path;  // always the credential's instance
  request.timeout = timeout_;
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
