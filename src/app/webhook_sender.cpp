#include "app/webhook_sender.hpp"

#include "domain/runs/paused_turn.hpp"

#include "domain/governance/governance.hpp"
#include "domain/json_text.hpp"
#include "domain/runs/webhook_rules.hpp"
#include "observability/log.hpp"

#include <boost/asio/as_tuple.hpp>
#include <boost/asio/co_spawn.hpp>
#include <boost/asio/detached.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/this_coro.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <boost/json/array.hpp>
#include <boost/json/object.hpp>
#include <boost/json/parse.hpp>
#include <boost/json/serialize.hpp>

#include <vector>

namespace agentgate {

namespace asio = boost::asio;
namespace json = boost::json;

namespace {

constexpr int kClaimsPerLook = 32;
constexpr std::int64_t kHoldMs = 60'000;  // longer than an attempt: a dead server's are retried
constexpr int kLoggedAttempts = 20;       // the log of a delivery keeps its latest attempts

json::value ParsedOrNull(const std::string& text) {
  if (text.empty()) return nullptr;
  boost::system::error_code ec;
  auto value = json::parse(text, ec);
  return ec ? json::value(nullptr) : value;
}

}  // namespace

std::string WebhookSealContext(const std::string& org_id, const std::string& env,
                               const std::string& webhook_id) {
  return "webhook:" + org_id + ":" + env + ":" + webhook_id;
}

std::optional<std::string> SignWebhook(std::string_view secret, std::string_view id,
                                       std::int64_t timestamp_s, std::string_view body) {
  if (!secret.starts_with("whsec_")) return std::nullopt;
  const auto key = crypto::FromBase64(secret.substr(6));
  if (!key || key->empty()) return std::nullopt;
  std::string content;
  content.reserve(id.size() + body.size() + 24);
  content.append(id).append(".").append(std::to_string(timestamp_s)).append(".").append(body);
  return "v1," + crypto::Base64(crypto::HmacSha256(*key, content));
}

std::string WebhookBody(const WebhookDelivery& delivery, const RunRecord& run) {
  if (delivery.type == "run.requires_action") {
    // The pause as it was (the run may have been decided since): what waits, and until when.
    json::object data{{"run_id", run.id},
                      {"agent_id", run.agent_id},
                      {"status", std::string(RunStatusName(RunStatus::kRequiresAction))}};
    if (auto paused = ParsePausedTurn(run.paused_json))
      data["pending_actions"] = PendingActionsJson(*paused);
    data["expires_at"] = governance::IsoUtc(run.expires_at_ms);
    return json::serialize(json::object{{"type", delivery.type},
                                        {"timestamp", governance::IsoUtc(delivery.created_at_ms)},
                                        {"data", std::move(data)}});
  }
  json::object data{{"run_id", run.id},
                    {"agent_id", run.agent_id},
                    {"status", std::string(RunStatusName(run.status))}};
  if (run.status == RunStatus::kCompleted) {
    data["result"] = ParsedOrNull(run.result_json);
  } else {
    data["error"] = ParsedOrNull(run.error_json);
  }
  return json::serialize(json::object{{"type", delivery.type},
                                      {"timestamp", governance::IsoUtc(run.ended_at_ms)},
                                      {"data", std::move(data)}});
}

void WebhookSender::Start(const asio::any_io_executor& executor) {
  asio::co_spawn(executor, Loop(), asio::detached);
}

asio::awaitable<void> WebhookSender::Loop() {
  asio::steady_timer pause(co_await asio::this_coro::executor);
  while (!stopping_) {
    try {
      co_await SendDue();
    } catch (const std::exception& e) {
      log::Error("webhooks_look_failed", {{"error", std::string_view(e.what())}});
    }
    pause.expires_after(d_.poll);
    co_await pause.async_wait(asio::as_tuple(asio::use_awaitable));
  }
}

asio::awaitable<void> WebhookSender::SendDue() {
  const std::int64_t now = d_.clock.NowMs();
  auto jobs = co_await d_.store.Run(
      [&](Store& s) { return s.ClaimWebhookDeliveries(now, now + kHoldMs, kClaimsPerLook); });
  if (!jobs) {
    log::Warn("webhooks_claim_failed", {{"error", std::string_view(jobs.error().message)}});
    co_return;
  }
  if (jobs->empty()) co_return;
  // The look's attempts run side by side (a slow endpoint does not hold the others back); the
  // next look waits for all of them. All on this coroutine's event loop: no lock.
  struct Batch {
    std::size_t left;
    asio::steady_timer done;
  };
  const auto executor = co_await asio::this_coro::executor;
  auto batch = std::make_shared<Batch>(
      Batch{jobs->size(), asio::steady_timer(executor, asio::steady_timer::time_point::max())});
  for (auto& job : *jobs) {
    asio::co_spawn(
        executor,
        [this, batch, job = std::move(job)]() mutable -> asio::awaitable<void> {
          try {
            co_await Attempt(std::move(job));
          } catch (const std::exception& e) {
            // Tried again once its hold ends.
            log::Error("webhook_attempt_failed", {{"error", std::string_view(e.what())}});
          }
          if (--batch->left == 0) batch->done.cancel();
        },
        asio::detached);
  }
  co_await batch->done.async_wait(asio::as_tuple(asio::use_awaitable));
}

asio::awaitable<void> WebhookSender::Attempt(WebhookJob job) {
  // A value, not a reference into `job`: GCC 12 loses a coroutine's local references across a
  // suspension.
  WebhookDelivery delivery = std::move(job.delivery);
  const auto started = d_.clock.SteadyNow();
  const std::int64_t now = d_.clock.NowMs();
  int status = 0;
  std::string error;
  std::optional<std::string> secret;
  if (d_.master_key) {
    auto opened =
        crypto::Open(*d_.master_key, job.webhook.sealed_secret,
                     WebhookSealContext(job.webhook.org_id, job.webhook.env, job.webhook.id));
    if (opened) secret = std::move(*opened);
  }
  if (!job.run) {
    error = "the run is no longer kept ([runs] retention_hours)";
  } else if (!secret) {
    error = "the webhook's secret cannot be opened with this server's master key";
  } else {
    const std::string body = WebhookBody(delivery, *job.run);
    const std::int64_t timestamp = now / 1000;
    HttpClientRequest request;
    request.method = "POST";
    request.url = job.webhook.url;
    request.body = body;
    request.timeout = d_.timeout;
    request.max_response_bytes = 64 * 1024;
    request.public_addresses_only = !d_.allow_private;
    request.headers = {{"Content-Type", "application/json"},
                       {"User-Agent", "agentgate-webhooks"},
                       {"webhook-id", delivery.id},
                       {"webhook-timestamp", std::to_string(timestamp)},
                       {"webhook-signature", *SignWebhook(*secret, delivery.id, timestamp, body)}};
    auto answer = co_await d_.http.Send(std::move(request));
    if (answer) {
      status = answer->status;
      if (status < 200 || status > 299) error = "answered " + std::to_string(status);
    } else {
      error = answer.error().message;
    }
  }
  const auto ms =
      std::chrono::duration_cast<std::chrono::milliseconds>(d_.clock.SteadyNow() - started).count();
  ++delivery.attempts;
  json::object attempt{{"at", governance::IsoUtc(now)}, {"status", status}, {"ms", ms}};
  if (!error.empty()) attempt["error"] = error;
  json::array log;
  boost::system::error_code ec;
  if (auto previous = json::parse(delivery.attempts_json, ec); !ec && previous.is_array())
    log = std::move(previous.as_array());
  log.push_back(std::move(attempt));
  if (log.size() > kLoggedAttempts) log.erase(log.begin());
  delivery.attempts_json = json::serialize(log);
  const bool retryable = job.run.has_value() && secret.has_value();
  if (error.empty()) {
    delivery.status = "delivered";
  } else if (auto delay = webhooks::RetryDelayMs(delivery.attempts, d_.first_retry_ms);
             delay && retryable) {
    delivery.next_attempt_at_ms = now + *delay;
  } else {
    delivery.status = "failed";
  }
  d_.metrics.Add("agentgate_webhook_attempts_total",
                 {{"outcome", error.empty() ? "delivered" : "failed"}});
  // The webhook's id and the delivery's, never its URL (it may carry a token) or its secret.
  log::Info("webhook_attempt", {{"webhook_id", std::string_view(job.webhook.id)},
                                {"delivery_id", std::string_view(delivery.id)},
                                {"status", static_cast<std::int64_t>(status)},
                                {"outcome", std::string_view(delivery.status)}});
  auto recorded = co_await d_.store.Run([&](Store& s) { return s.RecordWebhookAttempt(delivery); });
  if (!recorded) {
    // Tried again once its hold ends: at least once.
    log::Warn("webhook_attempt_not_recorded",
              {{"delivery_id", std::string_view(delivery.id)},
               {"error", std::string_view(recorded.error().message)}});
  }
}

}  // namespace agentgate
