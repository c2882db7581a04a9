#include "app/metadata_gateway.hpp"

#include "domain/gateway/soap.hpp"

#include <boost/asio/as_tuple.hpp>
#include <boost/asio/experimental/awaitable_operators.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/this_coro.hpp>
#include <boost/asio/use_awaitable.hpp>

namespace agentgate {
namespace {

namespace asio = boost::asio;

bool InvalidSession(const GatewayCall& call, const HttpClientResponse& response) {
  if (call.kind == GatewayCall::Kind::kDeleteMetadata) {
    if (response.status != 500) return false;
    auto parsed = soap::ParseDeleteMetadataResponse(response.body);
    return parsed && parsed->invalid_session;
  }
  return response.status == 401 && response.body.find("INVALID_SESSION_ID") != std::string::npos;
}

}  // namespace

MetadataGateway::MetadataGateway(StoreRunner& store, TenantDirectory& tenants, HttpCaller& http,
                                 std::optional<crypto::MasterKey> master_key, const Clock& clock,
                                 Metrics& metrics, GatewayOptions options)
    : http_(http),
      clock_(clock),
      metrics_(metrics),
      options_(options),
      // A refresh gets its own minute whatever the caller's deadline: it must finish, or a
      // refresh token Salesforce rotated is lost.
      sessions_(store, tenants, http, master_key, clock,
                CrmSessionOptions{std::chrono::seconds(60), options.allow_http,
                                  std::chrono::seconds(30)}) {}

asio::awaitable<Result<HttpClientResponse>> MetadataGateway::Send(
    const GatewayCall& call, const CrmSessions::Session& session) {
  HttpClientRequest request;
  request.method = call.kind == GatewayCall::Kind::kDeleteMetadata ? "POST" : call.method;
  request.url = session.instance_url + call.path;  // always the credential's instance
  request.timeout = options_.call_timeout;
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
  const auto started = clock_.SteadyNow();
  auto response = co_await http_.Send(std::move(request));
  metrics_.Observe("agentgate_gateway_upstream_duration_seconds", {},
                   std::chrono::duration<double>(clock_.SteadyNow() - started).count());
  if (!response)
    co_return Error(ErrorCode::kUpstreamUnavailable,
                    "the CRM platform did not answer: " + response.error().message);
  co_return std::move(*response);
}

asio::awaitable<Result<GatewayEnvelope>> MetadataGateway::Forward(const std::string& org_id,
                                                                  const std::string& env,
                                                                  GatewayCall call) {
  using namespace asio::experimental::awaitable_operators;
  asio::steady_timer deadline(co_await asio::this_coro::executor, options_.call_timeout);
  auto first = co_await (ForwardOnce(org_id, env, std::move(call)) ||
                         deadline.async_wait(asio::as_tuple(asio::use_awaitable)));
  if (first.index() == 1) {
    co_return Error(ErrorCode::kUpstreamUnavailable,
                    "the CRM call did not finish within crm.call_timeout_seconds (" +
                        std::to_string(options_.call_timeout.count() / 1000) + " s)");
  }
  co_return std::get<0>(std::move(first));
}

asio::awaitable<Result<GatewayEnvelope>> MetadataGateway::ForwardOnce(const std::string& org_id,
                                                                      const std::string& env,
                                                                      GatewayCall call) {
  AG_CO_TRY(auto session, co_await sessions_.For(org_id, env, ""));
  AG_CO_TRY(auto response, co_await Send(call, session));
  if (InvalidSession(call, response) && session.refreshable) {
    AG_CO_TRY(session, co_await sessions_.For(org_id, env, session.access_token));
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
