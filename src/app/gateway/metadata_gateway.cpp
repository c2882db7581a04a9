#include "app/gateway/metadata_gateway.hpp"

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

// The endpoint as spans name it: the path without its query (a SOQL query may hold data).
std::string EndpointOf(const GatewayCall& call) {
  return call.path.substr(0, call.path.find('?'));
}

// One request to the org, as the HTTP client conventions describe it.
void DescribeRequest(Span& span, const std::string& method, const std::string& url,
                     const GatewayCall& call) {
  span.Set("http.request.method", method);
  DescribeServer(span, url);
  span.Set("url.path", EndpointOf(call));
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
                                  std::chrono::seconds(30), options.tracer}) {}

asio::awaitable<Result<HttpClientResponse>> MetadataGateway::Send(
    const GatewayCall& call, const CrmSessions::Session& session, const SpanContext* trace) {
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
  Span span;
  if (options_.tracer != nullptr && trace != nullptr) {
    span = options_.tracer->Start(request.method, tracing::SpanKind::kClient, trace);
    if (span.recording()) DescribeRequest(span, request.method, request.url, call);
    if (const auto* context = span.context_ptr())
      request.headers.emplace_back("traceparent", context->Traceparent());
  }
  const auto started = clock_.SteadyNow();
  auto response = co_await http_.Send(std::move(request));
  if (span.recording()) {
    if (response) {
      span.Set("http.response.status_code", std::int64_t{response->status});
      if (response->status >= 400) {
        span.Set("error.type", std::to_string(response->status));
        span.Fail("HTTP " + std::to_string(response->status));
      }
    } else {
      span.Set("error.type", std::string(ErrorCodeName(response.error().code)));
      span.Fail("the CRM platform did not answer");
    }
  }
  span.End();
  metrics_.Observe("agentgate_gateway_upstream_duration_seconds", {},
                   std::chrono::duration<double>(clock_.SteadyNow() - started).count());
  if (!response)
    co_return Error(ErrorCode::kUpstreamUnavailable,
                    "the CRM platform did not answer: " + response.error().message);
  co_return std::move(*response);
}

asio::awaitable<Result<GatewayEnvelope>> MetadataGateway::Forward(const std::string& org_id,
                                                                  const std::string& env,
                                                                  GatewayCall call,
                                                                  const SpanContext* trace) {
  using namespace asio::experimental::awaitable_operators;
  // The call's span: which endpoint of which org, and how it ended; its requests and an OAuth
  // refresh go under it.
  Span span;
  if (options_.tracer != nullptr && trace != nullptr) {
    span = options_.tracer->Start("metadata_gateway " + call.method, tracing::SpanKind::kInternal,
                                  trace);
    if (span.recording()) {
      span.Set("agentgate.org.id", org_id);
      span.Set("agentgate.env", env);
      span.Set("agentgate.crm.endpoint", EndpointOf(call));
    }
  }
  const SpanContext* inner = span.context_ptr();
  asio::steady_timer deadline(co_await asio::this_coro::executor, options_.call_timeout);
  auto first = co_await (ForwardOnce(org_id, env, std::move(call), inner) ||
                         deadline.async_wait(asio::as_tuple(asio::use_awaitable)));
  Result<GatewayEnvelope> result =
      first.index() == 1 ? Result<GatewayEnvelope>(Error(
                               ErrorCode::kUpstreamUnavailable,
                               "the CRM call did not finish within crm.call_timeout_seconds (" +
                                   std::to_string(options_.call_timeout.count() / 1000) + " s)"))
                         : std::get<0>(std::move(first));
  if (span.recording()) {
    if (result) {
      span.Set("agentgate.crm.status", std::int64_t{result->status});
      span.Set("agentgate.crm.ok", result->ok);
    } else {
      const std::string kind(ErrorCodeName(result.error().code));
      span.Set("error.type", kind);
      span.Fail(kind);
    }
  }
  co_return result;
}

asio::awaitable<Result<GatewayEnvelope>> MetadataGateway::ForwardOnce(const std::string& org_id,
                                                                      const std::string& env,
                                                                      GatewayCall call,
                                                                      const SpanContext* trace) {
  const std::string any_token;
  AG_CO_TRY(auto session, co_await sessions_.For(org_id, env, any_token, trace));
  AG_CO_TRY(auto response, co_await Send(call, session, trace));
  if (InvalidSession(call, response) && session.refreshable) {
    AG_CO_TRY(session, co_await sessions_.For(org_id, env, session.access_token, trace));
    AG_CO_TRY(response, co_await Send(call, session, trace));  // exactly one retry
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
