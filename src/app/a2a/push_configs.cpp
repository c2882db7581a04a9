#include "app/a2a/push_configs.hpp"

#include "app/seal_contexts.hpp"
#include "domain/json_text.hpp"
#include "domain/resource_ids.hpp"
#include "domain/runs/webhook_rules.hpp"

namespace agentgate::a2a {

namespace asio = boost::asio;
namespace json = boost::json;

namespace {

Error NoSuchConfig(const std::string& task_id, const std::string& id) {
  return Error(ErrorCode::kNotFound, "task '" + task_id + "' has no push config '" + id + "'");
}

json::object Shown(const WebhookRecord& config) {
  return PushConfigJson(config.run_id, config.config_id, config.url, config.auth_scheme);
}

}  // namespace

std::string TaskPushConfigs::WebhookIdOf(const std::string& run_id, const std::string& config_id) {
  return ids::Make(ids::kWebhook, ToHex(crypto::Sha256(run_id + "\n" + config_id)).substr(0, 24));
}

asio::awaitable<Result<json::object>> TaskPushConfigs::Save(const RunRecord& task,
                                                            PushConfigAsked asked, bool legacy) {
  if (!master_key_) co_return Error(ErrorCode::kUnavailable, "push notifications are not offered");
  WebhookRecord config;
  config.config_id = asked.id.empty() ? task.id : asked.id;
  config.id = WebhookIdOf(task.id, config.config_id);
  config.org_id = task.org_id;
  config.env = task.env;
  config.run_id = task.id;
  config.url = std::move(asked.url);
  config.events = {webhooks::kRunEndEvents.begin(), webhooks::kRunEndEvents.end()};
  config.format = std::string(legacy ? kA2aLegacyPush : kA2aPush);
  config.auth_scheme = std::move(asked.scheme);
  config.created_at_ms = clock_.NowMs();
  // What the notification carries back, sealed to this config: never shown, never logged.
  json_text::ObjectWriter secret;
  secret.String("token", asked.token);
  secret.String("credentials", asked.credentials);
  config.sealed_secret = crypto::Seal(*master_key_, secret.Finish(),
                                      WebhookSealContext(config.org_id, config.env, config.id));
  const std::int64_t now = config.created_at_ms;
  AG_CO_TRY(const PushConfigSaved saved, co_await store_.Run([&](Store& s) {
    return s.SaveTaskPushConfig(config, kMaxPushConfigsPerTask, now);
  }));
  if (saved == PushConfigSaved::kFull) {
    co_return Error(ErrorCode::kInvalidRequest,
                    "field 'id': task '" + task.id + "' has " +
                        std::to_string(kMaxPushConfigsPerTask) +
                        " push configs already; delete one or replace one by its id");
  }
  co_return Shown(config);
}

asio::awaitable<Result<json::object>> TaskPushConfigs::List(const RunRecord& task) {
  AG_CO_TRY(const auto configs,
            co_await store_.Run([&](Store& s) { return s.ListTaskPushConfigs(task.id); }));
  json::array shown;
  for (const auto& config : configs) shown.push_back(Shown(config));
  co_return json::object{{"configs", std::move(shown)}, {"nextPageToken", ""}};
}

asio::awaitable<Result<json::object>> TaskPushConfigs::Get(const RunRecord& task, std::string id) {
  if (id.empty()) id = task.id;
  AG_CO_TRY(const auto configs,
            co_await store_.Run([&](Store& s) { return s.ListTaskPushConfigs(task.id); }));
  for (const auto& config : configs) {
    if (config.config_id == id) co_return Shown(config);
  }
  co_return NoSuchConfig(task.id, id);
}

asio::awaitable<Result<void>> TaskPushConfigs::Delete(const RunRecord& task, std::string id) {
  AG_CO_TRY(const bool deleted,
            co_await store_.Run([&](Store& s) { return s.DeleteTaskPushConfig(task.id, id); }));
  if (!deleted) co_return NoSuchConfig(task.id, id);
  co_return Result<void>{};
}

}  // namespace agentgate::a2a
