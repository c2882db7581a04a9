#include "app/metered_model.hpp"

#include "domain/agent/prompt.hpp"
#include "domain/governance/governance.hpp"

namespace agentgate {

namespace asio = boost::asio;

asio::awaitable<Result<void>> MeteredModel::Complete(const ModelRequest& request,
                                                     std::chrono::milliseconds timeout,
                                                     MeteredCall& call,
                                                     const ModelCallOptions& options,
                                                     const SpanContext* trace) {
  // Reserving and settling happen outside this frame, which lives for the whole model call.
  call = MeteredCall{};
  AG_CO_TRY(const auto part, co_await Reserve(request, call, trace));
  if (!part) co_return Result<void>{};  // refused
  const auto started = clock_.SteadyNow();
  call.result = co_await model_.Complete(request, timeout, options);
  Settle(*part, started, call);
  CountGenAi(request.model, call);
  co_return Result<void>{};
}

asio::awaitable<Result<std::optional<SpendPart>>> MeteredModel::Reserve(const ModelRequest& request,
                                                                        MeteredCall& call,
                                                                        const SpanContext* trace) {
  Span span;
  if (tracer_ != nullptr && trace != nullptr)
    span = tracer_->Start("reserve_spend", tracing::SpanKind::kInternal, trace);
  const SpendReservationRequest reservation{
      account_.org_id,
      account_.agent_id,
      account_.month,
      governance::WorstCaseUsd(account_.price, EstimateTokens(request), account_.max_output_tokens),
      account_.agent_limit_usd,
      clock_.NowMs(),
      0};
  AG_CO_TRY(auto reserved, co_await spend_.Reserve(reservation));
  if (span.recording()) {
    span.Set("agentgate.spend.worst_case_usd", reservation.amount_usd);
    span.Set("agentgate.spend.reserved", reserved.reserved);
    if (!reserved.reserved) span.Set("agentgate.spend.limit_scope", reserved.scope);
  }
  if (!reserved.reserved) {
    metrics_.Add("agentgate_spend_refusals_total", {{"scope", reserved.scope}});
    call.refused = std::move(reserved);
    co_return std::nullopt;
  }
  metrics_.Add("agentgate_spend_reserved_usd_total", {}, reservation.amount_usd);
  open_parts_.push_back({reserved.reservation_id, reserved.amount_usd});
  co_return std::optional<SpendPart>(open_parts_.back());
}

void MeteredModel::Settle(const SpendPart& part, SteadyTime started, MeteredCall& call) {
  call.record.seconds = std::chrono::duration<double>(clock_.SteadyNow() - started).count();
  SpendSettlement settlement{
      part.reservation_id, 0, 0, 0, account_.org_id, account_.agent_id, account_.month,
      part.amount_usd};
  if (const auto* reply = std::get_if<ModelReply>(&call.result)) {
    settlement.cost_usd =
        governance::CostUsd(account_.price, reply->usage.input_tokens, reply->usage.output_tokens);
    settlement.input_tokens = reply->usage.input_tokens;
    settlement.output_tokens = reply->usage.output_tokens;
    call.record.input_tokens = reply->usage.input_tokens;
    call.record.output_tokens = reply->usage.output_tokens;
    CountReply(*reply);
  } else {
    call.record.failure = std::get<ModelFailure>(call.result).message;
    metrics_.Add("agentgate_model_calls_total", {{"provider", provider_}, {"outcome", "failed"}});
  }
  call.cost_usd = settlement.cost_usd;
  settlements_.push_back(std::move(settlement));
}

MeteredModel::~MeteredModel() {
  for (const auto& part : open_parts_) spend_.Release(part);  // in memory: safe while canceled
}

void MeteredModel::Committed() {
  for (const auto& s : settlements_)
    metrics_.Add("agentgate_spend_settled_usd_total", {}, s.cost_usd);
  for (const auto& part : open_parts_) spend_.Settled(part);
  open_parts_.clear();
}

// The GenAI conventions' client metrics (gen_ai.client.operation.duration and
// gen_ai.client.token.usage), named as an OpenTelemetry-to-Prometheus export names them.
void MeteredModel::CountGenAi(const std::string& model, const MeteredCall& call) {
  const auto* reply = std::get_if<ModelReply>(&call.result);
  const std::string_view error =
      reply != nullptr ? "" : FailureKindName(std::get<ModelFailure>(call.result).kind);
  metrics_.Observe("gen_ai_client_operation_duration_seconds",
                   {{"gen_ai_operation_name", "chat"},
                    {"gen_ai_provider_name", provider_},
                    {"gen_ai_request_model", model},
                    {"error_type", error}},
                   call.record.seconds);
  if (reply == nullptr) return;
  for (const auto& [type, tokens] : {std::pair{"input", reply->usage.input_tokens},
                                     std::pair{"output", reply->usage.output_tokens}}) {
    metrics_.Observe("gen_ai_client_token_usage",
                     {{"gen_ai_operation_name", "chat"},
                      {"gen_ai_provider_name", provider_},
                      {"gen_ai_request_model", model},
                      {"gen_ai_token_type", type}},
                     static_cast<double>(tokens));
  }
}

void MeteredModel::CountReply(const ModelReply& reply) {
  metrics_.Add("agentgate_model_calls_total", {{"provider", provider_}, {"outcome", "ok"}});
  metrics_.Add("agentgate_model_tokens_total", {{"provider", provider_}, {"direction", "input"}},
               static_cast<double>(reply.usage.input_tokens));
  metrics_.Add("agentgate_model_tokens_total", {{"provider", provider_}, {"direction", "output"}},
               static_cast<double>(reply.usage.output_tokens));
}

}  // namespace agentgate
