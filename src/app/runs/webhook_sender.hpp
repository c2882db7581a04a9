#pragma once
// Delivers run ends to webhooks (docs/webhooks.md), and an A2A task's pauses and end to its push
// configs (docs/a2a.md), which are webhooks of one run: every server looks for due deliveries in
// the store, holds each while it tries it (so two servers never send one at once), signs it as
// Standard Webhooks does and records the attempt: delivered on a 2xx, else tried again later
// (webhooks::RetryDelayMs) until its retries are spent. At least once: an attempt whose server
// died is tried again once its hold ends. Shared fairly: each attempt goes on by itself (none
// waits for another), and a claim leaves each webhook and each organization no more than its
// share in flight (WebhookShares), so a slow or dead endpoint delays only its own deliveries.

#include "crypto/crypto.hpp"
#include "observability/metrics.hpp"
#include "ports/clock.hpp"
#include "ports/http_caller.hpp"
#include "runtime/store_runner.hpp"

#include <boost/asio/any_io_executor.hpp>
#include <boost/asio/awaitable.hpp>

#include <atomic>
#include <chrono>
#include <memory>
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
  WebhookShares shares{};                    // in flight at once per webhook and organization
  int max_in_flight = 256;                   // this server's attempts at once
};

// Standard Webhooks' signature header value for one attempt: "v1,<base64 HMAC-SHA256>" of
// "<id>.<timestamp>.<body>" under the secret's bytes (`whsec_<base64>`); nullopt when the secret
// is not of that form.
std::optional<std::string> SignWebhook(std::string_view secret, std::string_view id,
                                       std::int64_t timestamp_s, std::string_view body);
// The delivery's body: {type, timestamp, data: {run_id, agent_id, status, result | error}}.
std::string WebhookBody(const WebhookDelivery& delivery, const RunRecord& run);
// An A2A task's push body (docs/a2a.md): the task as it stands when sent, as a StreamResponse
// ({"task": ...}), or in 0.3 the Task itself.
std::string A2aPushBody(const WebhookRecord& config, const RunRecord& run);

class WebhookSender {
 public:
  explicit WebhookSender(WebhookSenderDeps deps);
  ~WebhookSender();

  // Looks for due deliveries on `executor` (every attempt runs there too) until Stop().
  void Start(const boost::asio::any_io_executor& executor);
  void Stop();
  // Any thread: deliveries may be due now (a notifying run ended here): look at once.
  void Wake();

 private:
  boost::asio::awaitable<void> Loop();
  // Claims what is due, within the shares and this server's room, and starts an attempt for each;
  // how many it started.
  boost::asio::awaitable<std::size_t> ClaimAndStart();
  boost::asio::awaitable<void> Attempt(WebhookJob job);
  // Attempt's steps: the webhook's signing secret opened, then the signed delivery posted.
  // How one attempt went: the status its endpoint answered (0: none), and why it failed, if it did.
  struct AttemptOutcome {
    int status = 0;
    std::string error;
  };
  std::optional<std::string> OpenSecret(const WebhookRecord& webhook) const;
  boost::asio::awaitable<AttemptOutcome> Post(const WebhookRecord& webhook,
                                              const WebhookDelivery& delivery, const RunRecord& run,
                                              const std::string& secret, std::int64_t timestamp);

  WebhookSenderDeps d_;
  struct Timer;
  std::unique_ptr<Timer> timer_;  // the wait between looks, from Start()
  int in_flight_ = 0;             // on the executor only
  std::atomic<bool> woken_{false};
  std::atomic<bool> stopping_{false};
};

}  // namespace agentgate
