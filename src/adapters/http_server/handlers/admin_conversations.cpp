// GET /admin/v1/orgs/{org}/conversations: an org's conversations, searchable by agent, env and
// day, newest first, a page at a time (the transcript of one is GET .../conversations/{id}).
#include "adapters/http_server/handlers/admin_common.hpp"
#include "domain/admin/admin_requests.hpp"
#include "ports/clock.hpp"

#include <boost/json/array.hpp>
#include <boost/json/object.hpp>

#include <charconv>

namespace agentgate::http {

namespace asio = boost::asio;
namespace json = boost::json;

namespace {

// The cursor a page hands out: "<created_at_ms>.<id>" of its last conversation.
Result<std::optional<std::pair<std::int64_t, std::string>>> CursorOf(
    const std::optional<std::string>& text) {
  if (!text) return std::optional<std::pair<std::int64_t, std::string>>{};
  const auto dot = text->find('.');
  std::int64_t ms = 0;
  if (dot == std::string::npos || dot + 1 >= text->size() ||
      std::from_chars(text->data(), text->data() + dot, ms).ptr != text->data() + dot) {
    return InvalidField("before", "must be the next_before of the previous page");
  }
  return std::optional(std::pair{ms, text->substr(dot + 1)});
}

Result<ConversationFilter> FilterOf(const Request& r) {
  ConversationFilter filter;
  filter.org_id = r.Param("org");
  filter.agent_id = r.QueryParam("agent");
  filter.env = r.QueryParam("env");
  if (filter.agent_id && filter.agent_id->empty()) filter.agent_id.reset();
  if (filter.env && filter.env->empty()) filter.env.reset();
  if (auto since = r.QueryParam("since"); since && !since->empty()) {
    AG_TRY(filter.since_ms, ParseIsoDay(*since, "since"));
  }
  if (auto until = r.QueryParam("until"); until && !until->empty()) {
    AG_TRY(const std::int64_t day, ParseIsoDay(*until, "until"));
    filter.until_ms = day + kMsPerDay;  // the whole day
  }
  AG_TRY(filter.before, CursorOf(r.QueryParam("before")));
  return filter;
}

}  // namespace

void AddAdminConversationListRoutes(Router& router, RouteDeps& deps) {
  router.Add(
      "GET", "/admin/v1/orgs/{org}/conversations",
      AdminHandler(deps, [&deps](Request& r) -> asio::awaitable<Result<Response>> {
        AG_CO_TRY(const int count, PageSize(r, 50, 500));
        AG_CO_TRY(auto filter, FilterOf(r));
        AG_CO_TRY(auto page, co_await deps.admin.ListConversations(filter, count));
        json::array listed;
        for (const auto& c : page) {
          json::object item{
              {"id", c.conversation.id},   {"agent_id", c.conversation.agent_id},
              {"env", c.conversation.env}, {"created_at", IsoTime(c.conversation.created_at_ms)},
              {"turns", c.turns},          {"cost_usd", c.cost_usd}};
          item["instance_id"] = c.conversation.instance_id.empty()
                                    ? json::value(nullptr)
                                    : json::value(c.conversation.instance_id);
          item["last_turn_at"] =
              c.turns == 0 ? json::value(nullptr) : json::value(IsoTime(c.last_turn_at_ms));
          listed.push_back(std::move(item));
        }
        json::object out{{"conversations", std::move(listed)}};
        out["next_before"] =
            static_cast<int>(page.size()) == count
                ? json::value(std::to_string(page.back().conversation.created_at_ms) + "." +
                              page.back().conversation.id)
                : json::value(nullptr);
        co_return JsonResponse(200, out);
      }));
}

}  // namespace agentgate::http
