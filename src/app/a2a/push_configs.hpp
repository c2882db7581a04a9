#pragma once
// An A2A task's push notification configs (docs/a2a.md, "Push notifications"): each is kept as a
// webhook of the task's run (its token and credentials sealed under the master key), at most
// a2a::kMaxPushConfigsPerTask a task, and the webhook sender posts it the run's pauses and end.

#include "crypto/crypto.hpp"
#include "domain/a2a/push_config.hpp"
#include "ports/clock.hpp"
#include "runtime/store_runner.hpp"

#include <boost/asio/awaitable.hpp>
#include <boost/json/object.hpp>

#include <optional>
#include <string>

namespace agentgate::a2a {

class TaskPushConfigs {
 public:
  TaskPushConfigs(StoreRunner& store, const Clock& clock,
                  std::optional<crypto::MasterKey> master_key, bool allow_private)
      : store_(store),
        clock_(clock),
        master_key_(std::move(master_key)),
        allow_private_(allow_private) {}

  // Configs are kept only where their credentials can be sealed: without a master key, push
  // notifications are not offered (the card says so).
  bool Offered() const { return master_key_.has_value(); }
  bool AllowPrivate() const { return allow_private_; }  // [webhooks] allow_private

  // Saves `asked` for `task` (replacing its config of the same id; "" is the task's id), in 0.3's
  // payload when `legacy`; the config as Get shows it.
  boost::asio::awaitable<Result<boost::json::object>> Save(const RunRecord& task,
                                                           PushConfigAsked asked, bool legacy);
  // {configs, nextPageToken: ""}: a task's configs fit one page.
  boost::asio::awaitable<Result<boost::json::object>> List(const RunRecord& task);
  boost::asio::awaitable<Result<boost::json::object>> Get(const RunRecord& task, std::string id);
  boost::asio::awaitable<Result<void>> Delete(const RunRecord& task, std::string id);

  // The webhook a task's config is: one id per task and config id, so saving again replaces it.
  static std::string WebhookIdOf(const std::string& run_id, const std::string& config_id);

 private:
  StoreRunner& store_;
  const Clock& clock_;
  std::optional<crypto::MasterKey> master_key_;
  bool allow_private_ = false;
};

}  // namespace agentgate::a2a
