#pragma once
// POST /api/metadata-gateway as a use case (SPEC §7): forwards one normalised call to the org's
// Salesforce instance with the (org, env) credentials and returns the envelope. Sessions come
// from CrmSessions. INVALID_SESSION_ID (REST 401 or SOAP fault) triggers one refresh and exactly
// one retry; invalid_grant is never retried. One deadline covers the whole call (waiting for a
// refresh, the refresh, the send); a refresh the deadline cuts short still completes.

#include "app/gateway/crm_sessions.hpp"
#include "domain/gateway/envelope.hpp"
#include "domain/gateway/gateway_request.hpp"
#include "observability/metrics.hpp"
#include "runtime/tracer.hpp"

#include <chrono>

namespace agentgate {

struct GatewayOptions {
  std::chrono::milliseconds call_timeout{60000};  // [crm] call_timeout_seconds
  bool allow_http = false;                        // [crm] allow_http: plain-http CRM URLs
  const Tracer* tracer = nullptr;                 // none: not traced (docs/tracing.md)
};

class MetadataGateway {
 public:
  MetadataGateway(StoreRunner& store, TenantDirectory& tenants, HttpCaller& http,
                  std::optional<crypto::MasterKey> master_key, const Clock& clock, Metrics& metrics,
                  GatewayOptions options);

  // `trace`: the span the call is made under (the request's, or a crm_metadata tool call's); the
  // call's spans go under it when tracing is on.
  boost::asio::awaitable<Result<GatewayEnvelope>> Forward(const std::string& org_id,
                                                          const std::string& env, GatewayCall call,
                                                          const SpanContext* trace = nullptr);

  // OAuth refreshes performed by this server (tests check single-flight).
  int refreshes() const { return sessions_.refreshes(); }

 private:
  boost::asio::awaitable<Result<GatewayEnvelope>> ForwardOnce(const std::string& org_id,
                                                              const std::string& env,
                                                              GatewayCall call,
                                                              const SpanContext* trace);
  boost::asio::awaitable<Result<HttpClientResponse>> Send(const GatewayCall& call,
                                                          const CrmSessions::Session& session,
                                                          const SpanContext* trace);

  HttpCaller& http_;
  const Clock& clock_;
  Metrics& metrics_;
  GatewayOptions options_;
  CrmSessions sessions_;
};

}  // namespace agentgate
