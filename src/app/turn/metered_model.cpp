#include "app/turn/metered_model.hpp"

#include "domain/agent/prompt.hpp"
#include "domain/governance/governance.hpp"

#include <boost/asio/this_coro.hpp>

#include <algorithm>
#include <memory>

namespace agentgate {

namespace asio = boost::asio;

namespace {

// A key taken for a call is told how the call went, or that it went nowhere (a stopped turn
// destroys the call's frame while it waits).
class KeyInUse {
 public:
  KeyInUse(ProviderPool& pool, std::size_t key) : pool_(&pool), key_(key) {}
  ~KeyInUse() {
    if (pool_ != nullptr) pool_->Abandon(key_);
  }
  KeyInUse(const KeyInUse&) = delete;
  KeyInUse& operator=(const KeyInUse&) = delete;
  void Report(const ModelResult& result) {
    const auto* failure = std::get_if<ModelFailure>(&result);
    const auto wait = failure != nullptr && failure->retry_after
                          ? *failure->retry_after
                          : RetryLimits{}.default_retry_after;
    pool_->Report(key_, result, wait);
    pool_ = nullptr;
  }

 private:
  ProviderPool* pool_;
  std::size_t key_;
};

}  // namespace

asio::awaitable<Result<void>> MeteredModel::Complete(const ModelRequest& request,
                                                     std::chrono::milliseconds timeout,
                                                     MeteredCall& call,
                                                     const ModelCallOptions& options,
                                                     const SpanContext* trace) {
  // Reserving and settling happen outside this frame, which lives for the whole model call.
  call = MeteredCall{};
  const ChainEntry* entry = &chain_.entry();
  const std::size_t key = chain_.Key();
  call.record.provider = entry->provider;
  call.record.model = entry->model;
  call.record.key = key;
  AG_CO_TRY(const auto part, co_await Reserve(request, entry->price, call, trace));
  if (!part) co_return Result<void>{};  // refused
  // A fallback's model is named in a copy, in the heap, so a plain call's frame stays small.
  std::unique_ptr<ModelRequest> renamed;
  if (request.model != entry->model) {
    renamed = std::make_unique<ModelRequest>(request);
    renamed->model = entry->model;
  }
  const auto started = clock_.SteadyNow();
  KeyInUse in_use(*entry->pool, key);
  call.result =
      co_await entry->pool->client(key).Complete(renamed ? *renamed : request, timeout, options);
  // A call its turn stopped (its caller gone, its run canceled, the hard cap) failed for the
  // turn's reasons, not the key's: the key is left as it was (KeyInUse abandons it), since its
  // breaker is shared by every tenant's turns.
  const auto cancellation = co_await asio::this_coro::cancellation_state;
  if (cancellation.cancelled() == asio::cancellation_type::none) in_use.Report(call.result);
  Settle(*part, *entry, started, call);
  CountGenAi(*entry, call);
  co_return Result<void>{};
}

asio::awaitable<Result<std::optional<SpendPart>>> MeteredModel::Reserve(const ModelRequest& request,
                                                                        const Price& price,
                                                                        MeteredCall& call,
                                                                        const SpanContext* trace) {
  Span span;
  if (tracer_ != nullptr && trace != nullptr)
    span = tracer_->Start("reserve_spend", tracing::SpanKind::kInternal, trace);
  const SpendReservationRequest reservation{
      account_.org_id,
      account_.agent_id,
      account_.month,
      governance::WorstCaseUsd(price, EstimateTokens(request), account_.max_output_tokens),
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

void MeteredModel::Settle(const SpendPart& part, const ChainEntry& entry, SteadyTime started,
                          MeteredCall& call) {
  call.record.seconds = std::chrono::duration<double>(clock_.SteadyNow() - started).count();
  SpendSettlement settlement{
      part.reservation_id, 0, 0, 0, account_.org_id, account_.agent_id, account_.month,
      part.amount_usd};
  auto same = [&](const ModelUsage& u) {
    return u.provider == entry.provider && u.model == entry.model;
  };
  auto usage = std::find_if(by_model_.begin(), by_model_.end(), same);
  if (usage == by_model_.end()) {
    by_model_.push_back(ModelUsage{entry.provider, entry.model, 0, 0, {}, 0});
    usage = std::prev(by_model_.end());
  }
  if (const auto* reply = std::get_if<ModelReply>(&call.result)) {
    const TokenUsage& tokens = reply->usage;
    settlement.cost_usd = governance::CostUsd(entry.price, tokens);
    settlement.input_tokens = tokens.input_tokens;
    settlement.output_tokens = tokens.output_tokens;
    call.record.input_tokens = tokens.input_tokens;
    call.record.output_tokens = tokens.output_tokens;
    call.record.cached_input_tokens = tokens.cached_input_tokens;
    call.record.cache_write_tokens = tokens.cache_write_tokens;
    ++usage->calls;
    usage->tokens.input_tokens += tokens.input_tokens;
    usage->tokens.output_tokens += tokens.output_tokens;
    usage->tokens.cached_input_tokens += tokens.cached_input_tokens;
    usage->tokens.cache_write_tokens += tokens.cache_write_tokens;
    usage->cost_usd += settlement.cost_usd;
    CountReply(entry.provider, *reply);
  } else {
    ++usage->failed_calls;
    call.record.failure = std::get<ModelFailure>(call.result).message;
    metrics_.Add("agentgate_model_calls_total",
                 {{"provider", entry.provider}, {"outcome", "failed"}});
    // A failed call costs nothing: its worst case is released now, not at the commit, so the
    // next call (a fallback's, maybe dearer) has its room.
    const auto open = std::find_if(open_parts_.begin(), open_parts_.end(), [&](const SpendPart& p) {
      return p.reservation_id == part.reservation_id && p.amount_usd == part.amount_usd;
    });
    if (open != open_parts_.end()) {
      spend_.Release(*open);
      open_parts_.erase(open);
    }
    return;
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
void MeteredModel::CountGenAi(const ChainEntry& entry, const MeteredCall& call) {
  const std::string& provider = entry.provider;
  const std::string& model = entry.model;
  const auto* reply = std::get_if<ModelReply>(&call.result);
  const std::string_view error =
      reply != nullptr ? "" : FailureKindName(std::get<ModelFailure>(call.result).kind);
  metrics_.Observe("gen_ai_client_operation_duration_seconds",
                   {{"gen_ai_operation_name", "chat"},
                    {"gen_ai_provider_name", provider},
                    {"gen_ai_request_model", model},
                    {"error_type", error}},
                   call.record.seconds);
  if (reply == nullptr) return;
  for (const auto& [type, tokens] : {std::pair{"input", reply->usage.input_tokens},
                                     std::pair{"output", reply->usage.output_tokens}}) {
    metrics_.Observe("gen_ai_client_token_usage",
                     {{"gen_ai_operation_name", "chat"},
                      {"gen_ai_provider_name", provider},
                      {"gen_ai_request_model", model},
                      {"gen_ai_token_type", type}},
                     static_cast<double>(tokens));
  }
}

void MeteredModel::CountReply(const std::string& provider, const ModelReply& reply) {
  metrics_.Add("agentgate_model_calls_total", {{"provider", provider}, {"outcome", "ok"}});
  const TokenUsage& usage = reply.usage;
  for (const auto& [direction, tokens] : {std::pair{"input", usage.input_tokens},
                                          std::pair{"cached_input", usage.cached_input_tokens},
                                          std::pair{"cache_write", usage.cache_write_tokens},
                                          std::pair{"output", usage.output_tokens}}) {
    if (tokens == 0 && direction[0] == 'c') continue;  // no cache series for uncached calls
    metrics_.Add("agentgate_model_tokens_total", {{"provider", provider}, {"direction", direction}},
                 static_cast<double>(tokens));
  }
}

}  // namespace agentgate
