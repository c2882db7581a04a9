// GET /admin/v1/overview: what the console's first page charts, across every organization.
#include "adapters/http_server/handlers/admin_common.hpp"
#include "ports/clock.hpp"

#include <boost/json/array.hpp>
#include <boost/json/object.hpp>

#include <map>

namespace agentgate::http {

namespace asio = boost::asio;
namespace json = boost::json;

namespace {

constexpr std::int64_t kMaxDays = 90;

std::string DayName(std::int64_t day) {
  return IsoTime(day * kMsPerDay).substr(0, 10);
}

json::object OverviewJson(const AdminService::Overview& o, std::int64_t days) {
  std::map<std::string, const OrgSpend*> spend;
  for (const auto& row : o.spend) spend[row.org_id] = &row;
  json::array orgs;
  for (const auto& org : o.orgs) {
    json::object item = OrgJson(org).as_object();
    const auto it = spend.find(org.id);
    item["spent_usd"] = it == spend.end() ? 0.0 : it->second->settled_usd;
    item["reserved_usd"] = it == spend.end() ? 0.0 : it->second->reserved_usd;
    orgs.push_back(std::move(item));
  }
  json::array turns;
  for (const auto& c : o.turns_per_day) {
    turns.push_back(json::object{{"day", DayName(c.day)},
                                 {"stop_reason", c.key.empty() ? "complete" : c.key},
                                 {"turns", c.count}});
  }
  json::array gateway;
  for (const auto& c : o.gateway_calls_per_day) {
    gateway.push_back(
        json::object{{"day", DayName(c.day)}, {"status", std::stoi(c.key)}, {"calls", c.count}});
  }
  return json::object{{"month", o.month},
                      {"since", DayName(o.first_day)},
                      {"days", days},
                      {"orgs", std::move(orgs)},
                      {"turns_per_day", std::move(turns)},
                      {"turn_duration_ms", json::object{{"turns", o.durations.turns},
                                                        {"p50", o.durations.p50_ms},
                                                        {"p95", o.durations.p95_ms}}},
                      {"gateway_calls_per_day", std::move(gateway)}};
}

}  // namespace

void AddAdminOverviewRoutes(Router& router, RouteDeps& deps) {
  router.Add("GET", "/admin/v1/overview",
             AdminHandler(deps, [&deps](Request& r) -> asio::awaitable<Result<Response>> {
               AG_CO_TRY(auto asked, PositiveInteger(r.QueryParam("days"), "days"));
               const std::int64_t days = asked.value_or(30);
               if (days > kMaxDays) {
                 co_return InvalidField("days", "must be at most " + std::to_string(kMaxDays));
               }
               AG_CO_TRY(auto overview, co_await deps.admin.GetOverview(static_cast<int>(days)));
               co_return JsonResponse(200, OverviewJson(overview, days));
             }));
}

}  // namespace agentgate::http
