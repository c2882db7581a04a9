#pragma once
// Delivers run ends to webhooks (docs/webhooks.md): every server looks for due deliveries in the
// store, holds each while it tries it (so two servers never send one at once), signs it as
// Standard Webhooks does and records the attempt: delivered on a 2xx, else tried again later
// (webhooks::RetryDelayMs) until its retries are spent. At least once: an attempt whose server
// died is tried again once its hold ends.

#include "crypto/crypto.hpp"
#include "observability/metrics.hpp"
#include "ports/clock.hpp"
#include "ports/http_caller.hpp"
#include "runtime/store_runner.hpp"

#include <boost/asio/any_io_executor.hpp>
#include <boost/asio/awaitable.hpp>

#include <atomic>
#include <chrono>
#include <optional>
#include <string>

namespace agentgate {

struct WebhookSenderDeps {
  StoreRunner& store;
  HttpCaller& http;
  const Clock& clock;
  Metrics& metrics;
  std::optional<crypto::MasterKey> master_key;
  bool allow_private = false;                // [webhooks] allow_private
  std::int64_t first_retry_ms = 5000;        // [webhooks] first_retry_milliseconds
  std::chrono::milliseconds poll{1000};      // how often a server looks for due deliveries
  std::chrono::milliseconds timeout{10000};  // one attempt, connect included
};

// The secret's seal context, so a sealed secret opens only as its own webhook's.
std::string WebhookSealContext(const std::string& org_id, const std::string& env,
                               const std::string& webhook_id);
// Standard Webhooks' signature header value for one attempt: "v1,<base64 HMAC-SHA256>" of
// "<id>.<timestamp>.<body>" under the secret's bytes (`whsec_<base64>`); nullopt when the secret
// is not of that form.
std::optional<std::string> SignWebhook(std::string_view secret, std::string_view id,
                                       std::int64_t timestamp_s, std::string_view body);
// The delivery's body: {type, timestamp, data: {run_id, agent_id, status, result | error}}.
std::string WebhookBody(const WebhookDelivery& delivery, const RunRecord& run);

class WebhookSender {
 public:
  explicit WebhookSender(WebhookSenderDeps deps) : d_(std::move(deps)) {}

  void Start(const boost::asio::any_io_executor& executor);
  void Stop() { stopping_ = true; }
  // One look: claims what is due and tries each; returns when those attempts are recorded.
  boost::asio::awaitable<void> SendDue();

 private:
  boost::asio::awaitable<void> Loop();
  boost::asio::awaitable<void> Attempt(WebhookJob job);

  WebhookSenderDeps d_;
  std::atomic<bool> stopping_{false};
};

}  // namespace agentgate
