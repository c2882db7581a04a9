#include "app/runs/webhook_sender.hpp"

#include "app/runs/run_body.hpp"
#include "app/seal_contexts.hpp"
#include "domain/a2a/legacy.hpp"
#include "domain/a2a/task.hpp"
#include "domain/runs/paused_turn.hpp"

#include "domain/governance/governance.hpp"
#include "domain/json_text.hpp"
#include "domain/runs/webhook_rules.hpp"
#include "observability/log.hpp"

#include <boost/asio/as_tuple.hpp>
#include <boost/asio/co_spawn.hpp>
#include <boost/asio/detached.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/this_coro.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <boost/json/array.hpp>
#include <boost/json/object.hpp>
#include <boost/json/parse.hpp>
#include <boost/json/serialize.hpp>

#include <algorithm>
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

std::string A2aPushBody(const WebhookRecord& config, const RunRecord& run) {
  json::value body = json::object{{"task", a2a::TaskOfRun(RunBody(run))}};
  if (config.format == kA2aLegacyPush) body = a2a::legacy::LegacyResult(body);
  return json::serialize(body);
}

struct WebhookSender::Timer {
  explicit Timer(const asio::any_io_executor& executor) : timer(executor) {}
  asio::steady_timer timer;
};

WebhookSender::WebhookSender(WebhookSenderDeps deps) : d_(std::move(deps)) {}
WebhookSender::~WebhookSender() = default;

void WebhookSender::Start(const asio::any_io_executor& executor) {
  timer_ = std::make_unique<Timer>(executor);
  asio::co_spawn(executor, Loop(), asio::detached);
}

void WebhookSender::Stop() {
  stopping_ = true;
  Wake();
}

void WebhookSender::Wake() {
  woken_ = true;  // first: a look under way when the cancel lands looks again after it
  if (!timer_) return;
  asio::post(timer_->timer.get_executor(), [this] { timer_->timer.cancel(); });
}

asio::awaitable<void> WebhookSender::Loop() {
  while (!stopping_) {
    woken_ = false;
    std::size_t started = 0;
    std::size_t asked = 0;
    try {
      asked = static_cast<std::size_t>(
          std::min(kClaimsPerLook, std::max(0, d_.max_in_flight - in_flight_)));
      if (asked > 0) started = co_await ClaimAndStart();
    } catch (const std::exception& e) {
      log::Error("webhooks_look_failed", {{"error", std::string_view(e.what())}});
    }
    if (stopping_) break;
    if (asked > 0 && started == asked) continue;  // more may be due: look again at once
    if (woken_) continue;
    timer_->timer.expires_after(d_.poll);
    co_await timer_->timer.async_wait(asio::as_tuple(asio::use_awaitable));
  }
}

asio::awaitable<std::size_t> WebhookSender::ClaimAndStart() {
  const std::int64_t now = d_.clock.NowMs();
  const int limit = std::min(kClaimsPerLook, d_.max_in_flight - in_flight_);
  auto jobs = co_await d_.store.Run(
      [&](Store& s) { return s.ClaimWebhookDeliveries(now, now + kHoldMs, limit, d_.shares); });
  if (!jobs) {
    log::Warn("webhooks_claim_failed", {{"error", std::string_view(jobs.error().message)}});
    co_return 0;
  }
  // Each attempt goes on by itself, on this coroutine's event loop (no lock); its end makes room.
  const auto executor = co_await asio::this_coro::executor;
  for (auto& job : *jobs) {
    ++in_flight_;
    asio::co_spawn(executor, Attempt(std::move(job)), [this](std::exception_ptr failed) {
      if (failed) {
        // Tried again once its hold ends.
        try {
          std::rethrow_exception(failed);
        } catch (const std::exception& e) {
          log::Error("webhook_attempt_failed", {{"error", std::string_view(e.what())}});
        } catch (...) {
          log::Error("webhook_attempt_failed", {});
        }
      }
      --in_flight_;
      Wake();  // its webhook, its organization and this server have room again
    });
  }
  co_return jobs->size();
}

namespace {

// The attempt added to the delivery's log (its latest kLoggedAttempts), and what comes next:
// delivered, tried again after its backoff, or failed.
void NoteAttempt(WebhookDelivery& delivery, int status, const std::string& error, std::int64_t now,
                 std::int64_t ms, bool retryable, std::int64_t first_retry_ms) {
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
  if (error.empty()) {
    delivery.status = "delivered";
  } else if (auto delay = webhooks::RetryDelayMs(delivery.attempts, first_retry_ms);
             delay && retryable) {
    delivery.next_attempt_at_ms = now + *delay;
  } else {
    delivery.status = "failed";
  }
}

}  // namespace

std::optional<std::string> WebhookSender::OpenSecret(const WebhookRecord& webhook) const {
  if (!d_.master_key) return std::nullopt;
  auto opened = crypto::Open(*d_.master_key, webhook.sealed_secret,
                             WebhookSealContext(webhook.org_id, webhook.env, webhook.id));
  if (!opened) return std::nullopt;
  return std::move(*opened);
}

asio::awaitable<void> WebhookSender::Attempt(WebhookJob job) {
  // A value, not a reference into `job`: GCC 12 loses a coroutine's local references across a
  // suspension.
  WebhookDelivery delivery = std::move(job.delivery);
  const auto started = d_.clock.SteadyNow();
  const std::int64_t now = d_.clock.NowMs();
  const std::optional<std::string> secret = OpenSecret(job.webhook);
  AttemptOutcome outcome;
  if (!job.run) {
    outcome.error = "the run is no longer kept ([runs] retention_hours)";
  } else if (!secret) {
    outcome.error = "the webhook's secret cannot be opened with this server's master key";
  } else {
    outcome = co_await Post(job.webhook, delivery, *job.run, *secret, now / 1000);
  }
  const auto ms =
      std::chrono::duration_cast<std::chrono::milliseconds>(d_.clock.SteadyNow() - started).count();
  NoteAttempt(delivery, outcome.status, outcome.error, now, ms,
              job.run.has_value() && secret.has_value(), d_.first_retry_ms);
  d_.metrics.Add("agentgate_webhook_attempts_total",
                 {{"outcome", outcome.error.empty() ? "delivered" : "failed"}});
  // The webhook's id and the delivery's, never its URL (it may carry a token) or its secret.
  log::Info("webhook_attempt", {{"webhook_id", std::string_view(job.webhook.id)},
                                {"delivery_id", std::string_view(delivery.id)},
                                {"status", static_cast<std::int64_t>(outcome.status)},
                                {"outcome", std::string_view(delivery.status)}});
  auto recorded = co_await d_.store.Run([&](Store& s) { return s.RecordWebhookAttempt(delivery); });
  if (!recorded) {
    // Tried again once its hold ends: at least once.
    log::Warn("webhook_attempt_not_recorded",
              {{"delivery_id", std::string_view(delivery.id)},
               {"error", std::string_view(recorded.error().message)}});
  }
}

namespace {

// A Standard Webhooks delivery: the run's end or pause, signed with the webhook's secret.
std::optional<std::string> SignedDelivery(HttpClientRequest& request,
                                          const WebhookDelivery& delivery, const RunRecord& run,
                                          const std::string& secret, std::int64_t timestamp) {
  request.body = WebhookBody(delivery, run);
  auto signature = SignWebhook(secret, delivery.id, timestamp, request.body);
  if (!signature)
    return "the webhook's secret is not a whsec_ signing secret: the delivery cannot be signed";
  request.headers = {{"Content-Type", "application/json"},
                     {"User-Agent", "agentgate-webhooks"},
                     {"webhook-id", delivery.id},
                     {"webhook-timestamp", std::to_string(timestamp)},
                     {"webhook-signature", std::move(*signature)}};
  return std::nullopt;
}

// An A2A task's push (docs/a2a.md): the task, authenticated as its config asked (its sealed
// {token, credentials}); the delivery's id lets a receiver drop a retry it already has.
std::optional<std::string> A2aPush(HttpClientRequest& request, const WebhookRecord& config,
                                   const WebhookDelivery& delivery, const RunRecord& run,
                                   const std::string& secret) {
  boost::system::error_code ec;
  const json::value opened = json::parse(secret, ec);
  if (ec || !opened.is_object()) return "the push config's credentials cannot be read";
  const auto text = [&](const char* key) {
    const auto* v = opened.get_object().if_contains(key);
    return v != nullptr && v->is_string() ? std::string(v->get_string()) : std::string();
  };
  request.body = A2aPushBody(config, run);
  request.headers = {{"Content-Type", config.format == kA2aLegacyPush ? "application/json"
                                                                      : "application/a2a+json"},
                     {"User-Agent", "agentgate-a2a"},
                     {"webhook-id", delivery.id}};
  if (const std::string token = text("token"); !token.empty())
    request.headers.emplace_back("X-A2A-Notification-Token", token);
  if (const std::string credentials = text("credentials");
      !config.auth_scheme.empty() && !credentials.empty())
    request.headers.emplace_back("Authorization", config.auth_scheme + " " + credentials);
  return std::nullopt;
}

}  // namespace

asio::awaitable<WebhookSender::AttemptOutcome> WebhookSender::Post(const WebhookRecord& webhook,
                                                                   const WebhookDelivery& delivery,
                                                                   const RunRecord& run,
                                                                   const std::string& secret,
                                                                   std::int64_t timestamp) {
  HttpClientRequest request;
  request.method = "POST";
  request.url = webhook.url;
  request.timeout = d_.timeout;
  request.max_response_bytes = 64 * 1024;
  request.public_addresses_only = !d_.allow_private;
  AttemptOutcome outcome;
  const auto refused = webhook.run_id.empty()
                           ? SignedDelivery(request, delivery, run, secret, timestamp)
                           : A2aPush(request, webhook, delivery, run, secret);
  if (refused) {
    outcome.error = *refused;
    co_return outcome;
  }
  auto answer = co_await d_.http.Send(std::move(request));
  if (!answer) {
    outcome.error = answer.error().message;
    co_return outcome;
  }
  outcome.status = answer->status;
  if (outcome.status < 200 || outcome.status > 299)
    outcome.error = "answered " + std::to_string(outcome.status);
  co_return outcome;
}

}  // namespace agentgate
