// An environment's webhooks (docs/webhooks.md): POST/GET /admin/v1/orgs/{org}/environments/{env}/
// webhooks (the signing secret in the POST's answer only), DELETE .../webhooks/{id}, and
// GET .../webhooks/{id}/deliveries, each delivery with its attempts.
#include "adapters/http_server/handlers/admin_common.hpp"
#include "domain/json_fields.hpp"
#include "domain/runs/webhook_rules.hpp"

#include <boost/json/array.hpp>
#include <boost/json/object.hpp>
#include <boost/json/parse.hpp>

namespace agentgate::http {

namespace asio = boost::asio;
namespace json = boost::json;

namespace {

json::object WebhookJson(const WebhookRecord& w) {
  json::array events;
  for (const auto& e : w.events) events.emplace_back(e);
  return json::object{{"id", w.id},
                      {"url", w.url},
                      {"events", std::move(events)},
                      {"created_at", IsoTime(w.created_at_ms)}};
}

json::object DeliveryJson(const WebhookDelivery& d) {
  boost::system::error_code ec;
  json::value attempts = json::parse(d.attempts_json, ec);
  if (ec || !attempts.is_array()) attempts = json::array{};
  json::object out{{"id", d.id},
                   {"run_id", d.run_id},
                   {"type", d.type},
                   {"status", d.status},
                   {"attempts", std::move(attempts)},
                   {"created_at", IsoTime(d.created_at_ms)}};
  out["next_attempt_at"] =
      d.status == "pending" ? json::value(IsoTime(d.next_attempt_at_ms)) : json::value(nullptr);
  return out;
}

}  // namespace

void AddAdminWebhookRoutes(Router& router, RouteDeps& deps) {
  router.Add("POST", "/admin/v1/orgs/{org}/environments/{env}/webhooks",
             AdminHandler(deps, [&deps](Request& r) -> asio::awaitable<Result<Response>> {
               AG_CO_TRY(auto body, ParseJsonBody(r));
               AG_CO_TRY(const json::object* o, json_fields::AsObject(body, "body"));
               AG_CO_TRYV(json_fields::RejectUnknownKeys(*o, "", {"url", "events"}));
               AG_CO_TRY(auto url, json_fields::RequiredString(*o, "url", ""));
               AG_CO_TRY(auto events, webhooks::ParseEvents(o->if_contains("events")));
               AG_CO_TRY(auto created,
                         co_await deps.admin.CreateWebhook(r.Param("org"), r.Param("env"),
                                                           std::move(url), std::move(events)));
               json::object out = WebhookJson(created.record);
               out["secret"] = created.secret;
               co_return JsonResponse(201, out);
             }));

  router.Add("GET", "/admin/v1/orgs/{org}/environments/{env}/webhooks",
             AdminHandler(deps, [&deps](Request& r) -> asio::awaitable<Result<Response>> {
               AG_CO_TRY(auto hooks,
                         co_await deps.admin.ListWebhooks(r.Param("org"), r.Param("env")));
               json::array listed;
               for (const auto& w : hooks) listed.push_back(WebhookJson(w));
               co_return JsonResponse(200, json::object{{"webhooks", std::move(listed)}});
             }));

  router.Add("DELETE", "/admin/v1/orgs/{org}/environments/{env}/webhooks/{id}",
             AdminHandler(deps, [&deps](Request& r) -> asio::awaitable<Result<Response>> {
               AG_CO_TRYV(co_await deps.admin.DeleteWebhook(r.Param("org"), r.Param("env"),
                                                            r.Param("id")));
               co_return JsonResponse(200, json::object{{"id", r.Param("id")}, {"deleted", true}});
             }));

  router.Add("GET", "/admin/v1/orgs/{org}/environments/{env}/webhooks/{id}/deliveries",
             AdminHandler(deps, [&deps](Request& r) -> asio::awaitable<Result<Response>> {
               AG_CO_TRY(const int limit, PageSize(r, 50, 500));
               AG_CO_TRY(auto deliveries,
                         co_await deps.admin.ListWebhookDeliveries(r.Param("org"), r.Param("env"),
                                                                   r.Param("id"), limit));
               json::array listed;
               for (const auto& d : deliveries) listed.push_back(DeliveryJson(d));
               co_return JsonResponse(200, json::object{{"deliveries", std::move(listed)}});
             }));
}

}  // namespace agentgate::http
